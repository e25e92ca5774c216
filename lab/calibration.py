"""cacao-calibration: do the search's win probabilities mean what they say?

    cacao-calibration --players 2 --games 40
    cacao-calibration --players 2 3 4 --games 200 --raw --out out/cal.json --fit out/cal-map.json
    cacao-calibration --input out/cal.json --games 0 --apply out/cal-map.json
    cacao-calibration --players 2 --games 150 --replays 24

Plays games in which every seat is a search of one spec (``--player``,
default ``mcts:iterations=300``; with ``--opponent``, the player in one seat,
rotating by game, and the opponent in the others), and at every k-th decision (``--every``,
default 4: decisions 0, 4, 8, ...) evaluates the position with another spec
(``--evaluator``, default ``analysis:iterations=1500``: the search with the
analysis settings the service analyses with) from the view of the seat to
act. Each evaluation gives a win probability per seat; each seat's is a
sample, with the seat's outcome (its win share: 1 / the number of winners, or
0). The report gives, per player count and per third of the game's decisions
(first, middle, last), the expected calibration error, the Brier score, the
base rate's and the Brier skill (:mod:`cacaoai.search.calibration_map`), and a
reliability table. ``--evaluator`` given several times (each with its own
``--out``) evaluates the same positions with each: the games, the costly part
with a strong player, are played once, and each file holds what a run of that
evaluator alone would.

Game g of a player count is dealt from ``derive_seed(seed, g)``; its moves
and evaluations are seeded from it, so with iteration budgets a seed gives
the same samples on any machine, whether the games run in local processes
(default) or on Ray (``--ray``). The samples and the report are written as
JSON (``--out``); ``--input`` reads such files back (their games are not
played again, so a run can be continued or split and merged).
``--journal FILE`` appends each game to FILE (JSON lines) as it finishes,
and a run given the same FILE reads it first: a run of hours that is
stopped resumes at the games it lacks. With
``--games 0`` the files may hold games between different players, evaluated
alike: they are measured, and fitted, together (a map for a mix of
opponents).

``--fit MAP`` fits a calibration map per player count: temperature scaling
and isotonic regression are fitted on the fitting games, the one with the
lower cross-validated Brier score (5 folds of games) is kept, and both are
reported before and after on held-out games (``--holdout``, 30% of the games
by default, spread evenly; never used to fit or choose). The map is written
in the format of :mod:`cacaoai.search.calibration_map`. ``--apply MAP``
corrects the samples with a map before measuring.

The evaluator reports probabilities as the search does: corrected by its
model's calibration map, when the model has one. ``--raw`` records the
tree's own instead, which is what ``--fit`` fits a map to (it refuses
samples made without it).

``--replays K`` measures how predictable the positions are at all: from
each evaluated position the game is played on K times by the players, the
hidden tiles redrawn each time from the view of the seat to act. The spread
of those outcomes is what no predictor that sees only that seat's view can
remove (the players' own choices included), so its mean is the Brier score of
the best possible prediction: the report's ``ceiling`` is that prediction's
skill, the most any evaluator could reach on these positions.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from cacaoai.engine import Position, derive_seed
from cacaoai.engine.cli import add_version_option
from cacaoai.search import calibration_map as cm
from cacaoai.search.bots import Bot, MCTSBot, parse_bot
from cacaoai.search.driver import search
from cacaoai.search.model import load_model
from cacaoai.search.request import Question
from cacaoai.search.results import SearchResult

from .arena import play_deal, play_out
from .pool import run_tasks

__all__ = ["DEFAULT_EVALUATOR", "DEFAULT_PLAYER", "KINDS", "fit", "main", "phase_of", "play_calibration_game",
           "play_evaluated", "replay", "report", "run", "win_shares"]

DEFAULT_PLAYER = "mcts:iterations=300"
DEFAULT_EVALUATOR = "analysis:iterations=1500"
PHASES = ("first", "middle", "last")
FOLDS = 5
_BOTS: dict[tuple[str, int], Bot] = {}          # the games' players
_EVALUATORS: dict[str, MCTSBot] = {}
_REPLAYERS: dict[tuple[str, int], Bot] = {}     # the replays' (a bot that keeps trees keeps its own)


def _evaluator(spec: str) -> MCTSBot:
    """The search an evaluator spec names (an MCTS or flat bot: it has a budget and settings)."""
    bot = _EVALUATORS.get(spec)
    if bot is None:
        made = parse_bot(spec)
        if not isinstance(made, MCTSBot):
            raise ValueError("the evaluator must be a search (mcts:..., analysis:..., flat:... or a level), "
                             f"got {spec!r}")
        bot = _EVALUATORS[spec] = made
    return bot


#: Joins a game's two players in its ``player`` field: "A vs B" seats A in one
#: seat (game g: seat g mod players) and B in the others.
VERSUS = " vs "


def seat_specs(player: str, players: int, game: int) -> list[str]:
    """Each seat's spec in game `game`: `player` everywhere, or for "A vs B" A
    in seat ``game % players`` and B in the others (so A moves first, second,
    ... equally often)."""
    if VERSUS not in player:
        return [player] * players
    one, others = player.split(VERSUS, 1)
    return [one if seat == game % players else others for seat in range(players)]


def _seat_bots(cache: dict[tuple[str, int], Bot], specs: Sequence[str]) -> list[Bot]:
    """One bot of each seat's spec, kept in `cache` (a bot that keeps trees keeps its own)."""
    bots = []
    for seat, spec in enumerate(specs):
        bot = cache.get((spec, seat))
        if bot is None:
            bot = cache[spec, seat] = parse_bot(spec)
        bots.append(bot)
    return bots


def win_shares(position: Position) -> list[float]:
    """Each seat's outcome of a finished game: its win share."""
    result = position.result()
    assert result is not None
    return [1.0 / len(result.winners) if s in result.winners else 0.0 for s in range(position.players)]


def replay(position: Position, player: str, replays: int, seed: int) -> dict[str, list[float]]:
    """Play `position` on `replays` times with `player` at every seat, the hidden
    tiles redrawn each time from the view of the seat to act: per seat, the
    mean outcome and its unbiased variance (0 for one replay)."""
    seat = position.to_act
    assert seat is not None
    bots = _seat_bots(_REPLAYERS, [player] * position.players)
    outcomes = []
    for k in range(replays):
        core = position.core.clone()
        core.determinize(seat, 1 << seat, derive_seed(seed, 2 * k))
        final = play_out(Position(core), derive_seed(seed, 2 * k + 1), range(position.players), bots)
        outcomes.append(win_shares(final))
    shares = np.asarray(outcomes, dtype=np.float64)
    var = shares.var(axis=0, ddof=1) if replays > 1 else np.zeros(position.players)
    return {"mean": [round(float(x), 6) for x in shares.mean(axis=0)],
            "var": [round(float(x), 6) for x in var]}


def _judge(position: Position, evaluator: str, seed: int, raw: bool) -> SearchResult:
    """The evaluator's search of `position` from the seat to act's view (`raw`: the tree's own probabilities)."""
    judge = _evaluator(evaluator)
    return search(position, judge.limit, judge.settings, seed=seed, question=Question(multipv=0, calibrated=not raw))


def play_observed(players: int, seed: int, game: int, player: str, every: int,
                  look: Callable[[Position, int, int], None]) -> tuple[Position, int]:
    """Play game `game` of `players` with `player` at every seat (or "A vs B",
    :func:`seat_specs`) and call ``look(position, ply, seed)`` at every
    `every`-th decision, with the seed that position's evaluations use (not the
    move's own, and the same whoever evaluates). Returns the final position and
    the number of decisions; looking does not change the game."""
    deal_seed = derive_seed(seed, game)
    game_seed = derive_seed(deal_seed, game)
    bots = _seat_bots(_BOTS, seat_specs(player, players, game))
    decisions = 0

    def observe(position: Position, ply: int) -> None:
        nonlocal decisions
        decisions = ply + 1
        if ply % every == 0:
            look(position, ply, derive_seed(derive_seed(game_seed, ply), 1))

    final = play_deal(players, deal_seed, game_seed, list(range(players)), bots, observe)
    return final, decisions


def play_evaluated(players: int, seed: int, game: int, player: str, evaluator: str, every: int, raw: bool,
                   visit: Callable[[Position, int, SearchResult, int], None]) -> tuple[Position, int]:
    """Play game `game` (:func:`play_observed`) and search every `every`-th
    decision with `evaluator` from the seat to act's view (`raw`: the tree's
    own probabilities). ``visit(position, ply, result, seed)`` gets each
    search's result (no win probability where the seat had one legal action)
    and the seed that position's replays use. Returns the final position and
    the number of decisions; the evaluations do not change the game."""
    _evaluator(evaluator)

    def look(position: Position, ply: int, seed_here: int) -> None:
        visit(position, ply, _judge(position, evaluator, seed_here, raw), derive_seed(seed_here, 2))

    return play_observed(players, seed, game, player, every, look)


def play_calibration_game(task: tuple[int, int, int, str, tuple[str, ...], int, bool, int]) -> list[dict[str, Any]]:
    """Play game `game` of `players` and evaluate every `every`-th decision
    with each of the `evaluators` (`raw`: with the tree's own probabilities, no
    calibration map; `replays`: that many replays from each evaluated position,
    :func:`replay`): the game once per evaluator, its samples that evaluator's
    (the same as a run of that evaluator alone gives)."""
    players, seed, game, player, evaluators, every, raw, replays = task
    samples: dict[str, list[dict[str, Any]]] = {evaluator: [] for evaluator in evaluators}
    skipped = dict.fromkeys(evaluators, 0)

    def look(position: Position, ply: int, seed_here: int) -> None:
        replayed = None
        for evaluator in evaluators:
            result = _judge(position, evaluator, seed_here, raw)
            if result.win_probability is None:      # a single legal action: nothing searched
                skipped[evaluator] += 1
                continue
            sample: dict[str, Any] = {"decision": ply, "to_act": position.to_act,
                                      "progress": position.progress,
                                      "p": [round(float(x), 6) for x in result.win_probability]}
            if replays:
                replayed = replayed or replay(position, player, replays, derive_seed(seed_here, 2))
                sample["replay"] = replayed
            samples[evaluator].append(sample)

    position, decisions = play_observed(players, seed, game, player, every, look)
    result = position.result()
    assert result is not None
    share = win_shares(position)
    return [{"players": players, "seed": seed, "game": game, "deal_seed": derive_seed(seed, game),
             "player": player, "evaluator": evaluator, "every": every, "raw": raw, "replays": replays,
             "decisions": decisions, "gold": list(result.gold),
             "cacao": list(result.cacao), "winners": list(result.winners), "outcome": share,
             "skipped": skipped[evaluator], "samples": samples[evaluator]} for evaluator in evaluators]


def phase_of(decision: int, decisions: int) -> int:
    """0, 1 or 2: the third of the game's decisions a decision falls in."""
    return min(2, 3 * decision // max(decisions, 1))


def _arrays(games: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per position: per-seat predictions, per-seat outcomes, phase and the game's index in `games`."""
    probs, outcomes, phases, owners = [], [], [], []
    for index, g in enumerate(games):
        for s in g["samples"]:
            probs.append(s["p"])
            outcomes.append(g["outcome"])
            phases.append(phase_of(s["decision"], g["decisions"]))
            owners.append(index)
    players = games[0]["players"] if games else 2
    return (np.asarray(probs, dtype=np.float64).reshape(-1, players),
            np.asarray(outcomes, dtype=np.float64).reshape(-1, players),
            np.asarray(phases, dtype=np.int64), np.asarray(owners, dtype=np.int64))


def _progress(games: Sequence[dict[str, Any]]) -> np.ndarray | None:
    """Per position (in :func:`_arrays`'s order): the game's progress; None unless every
    sample has it (samples of older runs do not)."""
    rows = [s.get("progress") for g in games for s in g["samples"]]
    return None if any(r is None for r in rows) else np.asarray(rows, dtype=np.float64)


def _to_act(games: Sequence[dict[str, Any]]) -> np.ndarray | None:
    """Per position (in :func:`_arrays`'s order): the seat to act; None unless every
    sample has it."""
    rows = [s.get("to_act") for g in games for s in g["samples"]]
    return None if any(r is None for r in rows) else np.asarray(rows, dtype=np.int64)


def _one(games: Sequence[dict[str, Any]]) -> np.ndarray | None:
    """Per position (in :func:`_arrays`'s order): the one seat of games between
    "A vs B" (A's seat, :func:`seat_specs`); None unless every game is such a game."""
    if not games or not all(VERSUS in g.get("player", "") for g in games):
        return None
    return np.asarray([g["game"] % g["players"] for g in games for _ in g["samples"]], dtype=np.int64)


def _replay_variances(games: Sequence[dict[str, Any]]) -> np.ndarray | None:
    """Per position (in :func:`_arrays`'s order): the per-seat variances of its
    replays' outcomes; None unless every position was replayed."""
    rows = [s["replay"]["var"] for g in games for s in g["samples"] if "replay" in s]
    if not rows or len(rows) != sum(len(g["samples"]) for g in games):
        return None
    return np.asarray(rows, dtype=np.float64)


def _ceiling(variances: np.ndarray, outcomes: np.ndarray, players: int,
             weights: np.ndarray | None = None) -> dict[str, float]:
    """The best prediction's Brier score (the mean variance of the replays'
    outcomes) and its skill over the base rate's on the same outcomes."""
    w = np.ones(variances.shape[0]) if weights is None else weights
    brier = float((variances * w[:, None]).sum() / (w.sum() * players))
    base = cm.measures(np.full(outcomes.size, 1.0 / players), outcomes.ravel(), players,
                       weights=np.repeat(w, players))["base_brier"]
    return {"brier": brier, "skill": 1.0 - brier / base if base > 0 else math.nan}


def _by_players(games: Iterable[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for g in sorted(games, key=lambda g: (g["players"], g["seed"], g["game"])):
        out.setdefault(g["players"], []).append(g)
    return out


def _bootstrap(probs: np.ndarray, outcomes: np.ndarray, owners: np.ndarray, groups: dict[str, np.ndarray],
               games: int, players: int, resamples: int, seed: int,
               variances: np.ndarray | None = None) -> dict[str, dict[str, Any]]:
    """Per group of positions: 95% intervals of Brier and skill (``ci95``; and of
    the ceiling's skill, with `variances`) and ECE's floor (``ece_floor``).

    The intervals are percentiles of a bootstrap over games (the unit: a
    game's samples share its outcome). The floor is the mean ECE of perfectly
    calibrated predictions on these positions: outcomes drawn from the
    predictions themselves, one uniform draw per game shared by all its
    positions (so they are as correlated within a game as real outcomes),
    `resamples` times. Noise alone gives an ECE about that large on this many
    games.
    """
    rng = np.random.default_rng(seed)
    values: dict[str, dict[str, list[float]]] = {g: {"brier": [], "skill": [], "floor": [], "ceiling": []}
                                                 for g in groups}
    cumulative = np.cumsum(probs, axis=1)
    cumulative[:, -1] = np.inf
    for _ in range(resamples):
        counts = np.bincount(rng.integers(0, games, games), minlength=games).astype(np.float64)
        weights = counts[owners]
        draw = rng.random(games)[owners]
        calibrated = np.eye(players)[np.argmax(draw[:, None] < cumulative, axis=1)]
        for name, inside in groups.items():
            w = np.repeat(weights[inside], players)
            if w.sum() > 0:
                m = cm.measures(probs[inside].ravel(), outcomes[inside].ravel(), players, weights=w)
                values[name]["brier"].append(m["brier"])
                values[name]["skill"].append(m["skill"])
                if variances is not None:
                    values[name]["ceiling"].append(_ceiling(variances[inside], outcomes[inside], players,
                                                            weights[inside])["skill"])
            if inside.any():
                values[name]["floor"].append(cm.ece(probs[inside].ravel(), calibrated[inside].ravel()))
    out: dict[str, dict[str, Any]] = {}
    for name, per in values.items():
        out[name] = {"ci95": {key: [float(v) for v in np.percentile(per[key], [2.5, 97.5])] if per[key]
                              else [math.nan, math.nan] for key in ("brier", "skill")},
                     "ece_floor": float(np.mean(per["floor"])) if per["floor"] else math.nan}
        if variances is not None:
            out[name]["ci95"]["ceiling"] = [float(v) for v in np.percentile(per["ceiling"], [2.5, 97.5])]
    return out


def report(games: Sequence[dict[str, Any]], calibration: dict[str, Any] | None = None, resamples: int = 200,
           seed: int = 1) -> dict[str, Any]:
    """The measures per player count, overall and per third of the game, with the reliability table.

    `calibration`: a map applied to the predictions first. `resamples`: a
    bootstrap over games gives Brier and skill 95% intervals, and as many
    draws the floor ECE would show with perfect predictions (:func:`_bootstrap`;
    0: none).
    """
    out: dict[str, Any] = {}
    for players, group in _by_players(games).items():
        probs, outcomes, phases, owners = _arrays(group)
        if calibration is not None:
            entry = calibration["players"].get(str(players))
            if entry is not None:
                progress, to_act, one = _progress(group), _to_act(group), _one(group)
                if entry["kind"] == "staged" and progress is None:
                    raise ValueError("a staged map needs each sample's progress: these samples were made "
                                     "before it was recorded; play them again")
                if "one" in entry and one is None:
                    raise ValueError("a map with offsets for the one seat measures games between \"A vs B\" only")
                probs = cm.apply_entry(entry, probs, progress, to_act, one)
        masks = {"all": np.ones(len(phases), dtype=bool), **{name: phases == k for k, name in enumerate(PHASES)}}
        found = {name: cm.measures(probs[m].ravel(), outcomes[m].ravel(), players) for name, m in masks.items()}
        variances = _replay_variances(group)
        if variances is not None:
            for name, m in masks.items():
                found[name]["ceiling"] = _ceiling(variances[m], outcomes[m], players)
        if resamples > 0:
            for name, extra in _bootstrap(probs, outcomes, owners, masks, len(group), players, resamples,
                                          seed, variances).items():
                found[name].update(extra)
        out[str(players)] = {
            "games": len(group), "positions": int(probs.shape[0]),
            "skipped": sum(g["skipped"] for g in group),
            "all": found["all"], "phases": {name: found[name] for name in PHASES},
            "reliability": cm.reliability(probs.ravel(), outcomes.ravel()),
        }
    return out


def _held_out(n: int, fraction: float) -> np.ndarray:
    """Which of n games (in order) are held out: `fraction` of them, spread evenly."""
    r = np.arange(n)
    return np.floor((r + 1) * fraction) > np.floor(r * fraction)


# the kinds of map the fit chooses among; "staged-to-act" is a staged map with to-act offsets,
# "staged-one" one with offsets for the one seat of games between "A vs B"
KINDS = ("none", "temperature", "isotonic", "staged", "staged-to-act", "staged-one")


def _fit_kind(kind: str, probs: np.ndarray, outcomes: np.ndarray, progress: np.ndarray | None,
              to_act: np.ndarray | None, one: np.ndarray | None = None) -> dict[str, Any] | None:
    """One kind of map fitted to positions' predictions and outcomes (None: no map)."""
    if kind == "none":
        return None
    if kind == "temperature":
        return {"kind": "temperature", "t": cm.fit_temperature(probs, outcomes)}
    if kind == "staged":
        assert progress is not None
        stage = cm.stage_of(progress)
        # a stage without positions keeps t = 1 (no correction)
        return {"kind": "staged", "t": [cm.fit_temperature(probs[stage == k], outcomes[stage == k])
                                        if (stage == k).any() else 1.0 for k in range(cm.STAGES)]}
    if kind in ("staged-to-act", "staged-one"):
        seats = to_act if kind == "staged-to-act" else one
        assert progress is not None and seats is not None
        stage = cm.stage_of(progress)
        fitted = [cm.fit_temperature_offsets(probs[stage == k], outcomes[stage == k], [seats[stage == k]])
                  if (stage == k).any() else (1.0, [0.0]) for k in range(cm.STAGES)]
        return {"kind": "staged", "t": [t for t, _ in fitted], kind.removeprefix("staged-").replace("-", "_"):
                [b for _, (b,) in fitted]}
    x, y = cm.fit_isotonic(probs.ravel(), outcomes.ravel())
    return {"kind": "isotonic", "x": x, "y": y}


def _apply(entry: dict[str, Any] | None, probs: np.ndarray, progress: np.ndarray | None,
           to_act: np.ndarray | None, one: np.ndarray | None = None) -> np.ndarray:
    return probs if entry is None else cm.apply_entry(entry, probs, progress, to_act, one)


def _gain(errors: np.ndarray, simpler: np.ndarray) -> tuple[float, float]:
    """The mean gain of per-fold Brier scores over a simpler map's, and its standard error."""
    gain = simpler - errors
    return float(gain.mean()), float(gain.std(ddof=1) / math.sqrt(len(gain)))


def _beats(errors: np.ndarray, simpler: np.ndarray) -> bool:
    """Whether per-fold Brier scores beat a simpler map's by more than the standard
    error of the gain (the one-standard-error rule)."""
    mean, se = _gain(errors, simpler)
    return mean > se


def fit(games: Sequence[dict[str, Any]], holdout: float = 0.3) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fit a calibration map per player count; returns (map, what was measured).

    Per player count: the games (in order of seed and number) are split into
    fitting and held-out games. On the fitting games the Brier score of no
    map, temperature scaling, isotonic regression, a temperature per stage
    of the game (when the samples have their progress) and the same with an
    offset for the seat to act (``staged-to-act``) is cross-validated over 5
    folds of games; a map is kept only if it beats no map by more than the
    standard error of its gain over the folds (the one-standard-error rule;
    a single temperature, one number, only has to beat no map), the best is
    fitted on all of them (no map: the player count gets no entry), and
    every kind is measured on the held-out games.
    """
    if not all(g.get("raw", False) for g in games):
        raise ValueError("a map is fitted to the tree's own probabilities: play the games with --raw")
    calibration: dict[str, Any] = {"version": cm.MAP_VERSION, "players": {}}
    details: dict[str, Any] = {}
    for players, group in _by_players(games).items():
        probs, outcomes, _, owners = _arrays(group)
        progress, to_act, one = _progress(group), _to_act(group), _one(group)
        kinds = [k for k in KINDS if not k.startswith("staged") or progress is not None]
        needs = {"staged-to-act": to_act, "staged-one": one}
        kinds = [k for k in kinds if k not in needs or needs[k] is not None]

        def part(mask: np.ndarray, values: np.ndarray | None) -> np.ndarray | None:
            return None if values is None else values[mask]

        def context(mask: np.ndarray, progress: np.ndarray | None = progress, to_act: np.ndarray | None = to_act,
                    one: np.ndarray | None = one) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
            return part(mask, progress), part(mask, to_act), part(mask, one)
        held = _held_out(len(group), holdout)[owners]
        fit_games = np.flatnonzero(~_held_out(len(group), holdout))
        if len(fit_games) < FOLDS or not held.any():
            raise ValueError(f"{players} players: too few games to fit and hold out "
                             f"({len(group)}; at least {FOLDS + 2} are needed)")
        fold_of_game = np.full(len(group), -1)
        fold_of_game[fit_games] = np.arange(len(fit_games)) % FOLDS
        folds = fold_of_game[owners]
        cv: dict[str, float] = {}
        per_fold: dict[str, np.ndarray] = {}
        for kind in kinds:
            errors, counts = [], []
            for k in range(FOLDS):
                train, test = (~held) & (folds != k), (~held) & (folds == k)
                entry = _fit_kind(kind, probs[train], outcomes[train], *context(train))
                errors.append(((_apply(entry, probs[test], *context(test)) - outcomes[test]) ** 2).sum())
                counts.append(outcomes[test].size)
            cv[kind] = float(sum(errors) / outcomes[~held].size)
            per_fold[kind] = np.asarray(errors) / np.maximum(counts, 1)
        # one-standard-error rule: a map must beat no map (and the to-act or one-seat
        # offsets the staged map they extend) by more than the standard error of its gain
        # over the folds, or it is not worth its noise; a single temperature, which
        # has no noise to fit, only has to beat no map
        margin = {kind: _gain(per_fold[kind], per_fold["none"])[1] for kind in kinds}
        eligible = [k for k in kinds if k == "none" or (
            (_beats(per_fold[k], per_fold["none"]) or (k == "temperature" and cv[k] < cv["none"])) and (
                k not in ("staged-to-act", "staged-one") or _beats(per_fold[k], per_fold["staged"])))]
        fitted = {kind: _fit_kind(kind, probs[~held], outcomes[~held], *context(~held)) for kind in kinds}
        chosen = min(eligible, key=lambda k: (cv[k], KINDS.index(k)))
        if fitted[chosen] is not None:
            calibration["players"][str(players)] = fitted[chosen]
        test_p, test_y = probs[held], outcomes[held]
        temperature = fitted["temperature"]
        assert temperature is not None
        details[str(players)] = {
            "chosen": chosen, "cv_brier": cv, "cv_margin": {k: margin[k] for k in kinds if k != "none"},
            "fit_games": len(fit_games), "held_out_games": len(group) - len(fit_games),
            "held_out": {kind: cm.measures(_apply(entry, test_p, *context(held)).ravel(), test_y.ravel(), players)
                         for kind, entry in fitted.items()},
            "temperature": temperature["t"]}
        staged = fitted.get("staged")
        if staged is not None:
            details[str(players)]["staged"] = staged["t"]
        to_act_map = fitted.get("staged-to-act")
        if to_act_map is not None:
            details[str(players)]["staged-to-act"] = {"t": to_act_map["t"], "to_act": to_act_map["to_act"]}
        one_map = fitted.get("staged-one")
        if one_map is not None:
            details[str(players)]["staged-one"] = {"t": one_map["t"], "one": one_map["one"]}
    cm.validate_map(calibration)
    return calibration, details


def fit_kind(games: Sequence[dict[str, Any]], kind: str) -> dict[str, Any]:
    """A map of one kind (:data:`KINDS`) fitted to all the games, per player count,
    without the choice and the held-out games of :func:`fit`: for a population's
    map, chosen beforehand and measured on games of other seeds."""
    if kind not in KINDS or kind == "none":
        raise ValueError(f"kind: must be one of {', '.join(KINDS[1:])}, got {kind!r}")
    calibration: dict[str, Any] = {"version": cm.MAP_VERSION, "players": {}}
    for players, group in _by_players(games).items():
        probs, outcomes, _, _ = _arrays(group)
        entry = _fit_kind(kind, probs, outcomes, _progress(group), _to_act(group), _one(group))
        if entry is not None:
            calibration["players"][str(players)] = entry
    cm.validate_map(calibration)
    return calibration


def _key(g: dict[str, Any]) -> tuple[int, str, int, int]:
    return (g["players"], g["player"], g["seed"], g["game"])


def read_samples(paths: Sequence[str]) -> list[dict[str, Any]]:
    """The games of sample files (--out of earlier runs); a game in two files is kept once."""
    games: dict[tuple[int, str, int, int], dict[str, Any]] = {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        if data.get("format") != "cacao-calibration/1":
            raise ValueError(f"{path}: not a cacao-calibration/1 file")
        for g in data["games"]:
            games.setdefault(_key(g), g)
    return list(games.values())


def read_journal(path: str) -> list[dict[str, Any]]:
    """The games a --journal file holds (none when it does not exist). A
    last line cut short by a stop mid-write is left out."""
    if not os.path.exists(path):
        return []
    games = []
    with open(path) as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            games.append(json.loads(line))
        except json.JSONDecodeError:
            if number == len(lines):     # the last line, unfinished: that game is played again
                break
            raise ValueError(f"--journal: {path} line {number} is not a game (JSON)") from None
    return games


class Journal:
    """Appends each finished game to a --journal file, one JSON line per
    evaluator's entry; a last line cut short by a stop is cut off first."""

    def __init__(self, path: str) -> None:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.path = path
        with open(path, "a+b") as f:
            f.seek(0)
            text = f.read()
            if text and not text.endswith(b"\n"):
                f.truncate(text.rfind(b"\n") + 1)

    def __call__(self, outcome: list[dict[str, Any]]) -> None:
        with open(self.path, "a") as f:
            f.write("".join(json.dumps(g) + "\n" for g in outcome))
            f.flush()
            os.fsync(f.fileno())


def made_by(games: Sequence[dict[str, Any]]) -> tuple[str, tuple[str, int, bool, int]]:
    """How sample games were made: their players (several joined by " + ",
    in order of first appearance) and the one (evaluator, every, raw,
    replays) they share. A report or a map is about one evaluator's
    predictions, so samples of several raise ValueError; games between
    different players may be measured and fitted together (a map for a mix
    of opponents)."""
    made = {(g["evaluator"], g["every"], g.get("raw", False), g.get("replays", 0)) for g in games}
    if len(made) != 1:
        found = "; ".join(f"evaluator {m[0]!r}, every {m[1]}{', --raw' if m[2] else ''}"
                          f"{f', --replays {m[3]}' if m[3] else ''}" for m in sorted(made))
        raise ValueError(f"the samples read come from different evaluations ({found}): give one at a time")
    players = list(dict.fromkeys(g["player"] for g in games))
    return " + ".join(players), made.pop()


def run(players: Sequence[int], games: int, seed: int = 1, player: str = DEFAULT_PLAYER,
        evaluator: str | Sequence[str] = DEFAULT_EVALUATOR, every: int = 4, processes: int = 1,
        ray_address: str | None = None, have: Sequence[dict[str, Any]] = (),
        progress: bool = False, raw: bool = False, replays: int = 0,
        on_game: Callable[[list[dict[str, Any]]], None] | None = None) -> list[dict[str, Any]]:
    """Play the games not in `have` (games 0..games-1 of each player count) and return all of them,
    in order. Several evaluators evaluate the same positions of games played once: each game comes
    once per evaluator (in their order), as a run of that evaluator alone gives it. `on_game` is
    called with each game played (one entry per evaluator) as it finishes."""
    evaluators = [evaluator] if isinstance(evaluator, str) else list(evaluator)
    if not evaluators or len(set(evaluators)) != len(evaluators):
        raise ValueError(f"evaluators: give one or more, each once, got {evaluators}")
    for spec in player.split(VERSUS):
        parse_bot(spec)
    for spec in evaluators:
        _evaluator(spec)
    if replays and VERSUS in player:
        raise ValueError("--replays plays on with one player at every seat: give no --opponent")
    if every < 1:
        raise ValueError("every must be at least 1")
    if replays < 0:
        raise ValueError(f"replays must not be negative, got {replays}")
    for g in have:
        made = (g["player"], g["every"], g.get("raw", False), g.get("replays", 0))
        if made != (player, every, raw, replays) or g["evaluator"] not in evaluators:
            raise ValueError(f"the samples read were made with player {g['player']!r}, evaluator "
                             f"{g['evaluator']!r}, every {g['every']}"
                             f"{', --raw' if g.get('raw', False) else ''}"
                             f"{f', --replays {made[3]}' if made[3] else ''}: give the same to add games")
    known = {(*_key(g), g["evaluator"]) for g in have}
    tasks = []
    for n in players:
        for game in range(games):
            missing = tuple(e for e in evaluators if (n, player, seed, game, e) not in known)
            if missing:
                tasks.append((n, seed, game, player, missing, every, raw, replays))
    done = list(have)
    started = time.monotonic()
    for count, outcome in enumerate(run_tasks(play_calibration_game, tasks, processes, ray_address), 1):
        done.extend(outcome)
        if on_game is not None:
            on_game(outcome)
        if progress:
            sys.stderr.write(f"\r{count}/{len(tasks)} games, {time.monotonic() - started:.0f} s ")
            sys.stderr.flush()
    if progress and tasks:
        sys.stderr.write("\n")
    return sorted(done, key=lambda g: (_key(g), evaluators.index(g["evaluator"])))


def _f(value: float | None, digits: int = 3) -> str:
    return "  -  " if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _ci(m: dict[str, Any], key: str) -> str:
    if "ci95" not in m:
        return ""
    lo, hi = m["ci95"][key]
    return f" [{_f(lo)}, {_f(hi)}]"


def _print_report(rep: dict[str, Any], details: dict[str, Any] | None) -> None:
    for players, r in rep.items():
        print(f"\n{players} players: {r['games']} games, {r['positions']} positions evaluated "
              f"({r['all']['samples']} seat samples; {r['skipped']} single-action positions skipped)")
        boot = "ci95" in r["all"]
        interval = " [95%]" if boot else ""
        ceiling = "ceiling" in r["all"]
        print(f"  {'':<13}{'samples':>8}{'ECE':>7}{'floor' if boot else '':>7}  {'Brier' + interval:<22}"
              f"{'base':>5}  " + (f"{'skill' + interval:<22}  {'ceiling' + interval}" if ceiling
                                   else f"{'skill' + interval}"))
        rows = [("all", r["all"])] + [(f"{name} third", r["phases"][name]) for name in PHASES]
        for name, m in rows:
            floor = _f(m["ece_floor"]) if boot else ""
            brier_text = _f(m["brier"]) + _ci(m, "brier")
            skill_text = _f(m["skill"]) + _ci(m, "skill")
            print(f"  {name:<13}{m['samples']:>8}{_f(m['ece']):>7}{floor:>7}  {brier_text:<22}"
                  f"{_f(m['base_brier']):>5}  " + (f"{skill_text:<22}  {_f(m['ceiling']['skill'])}"
                                                   f"{_ci(m, 'ceiling')}" if ceiling else skill_text))
        print(f"  {'predicted':<13}{'count':>8}{'mean p':>8}{'won':>8}")
        for row in r["reliability"]:
            print(f"  {row['low']:.1f}-{row['high']:.1f}{'':<6}{row['count']:>8}"
                  f"{_f(row['predicted']):>8}{_f(row['observed']):>8}")
        if details and players in details:
            d = details[players]
            cv, se = d["cv_brier"], d["cv_margin"]
            staged = (f", staged {cv['staged']:.4f} (se {se['staged']:.4f}) at t = "
                      + " / ".join(f"{t:.3f}" for t in d["staged"]) if "staged" in cv else "")
            if "staged-to-act" in cv:
                m = d["staged-to-act"]
                staged += (f", staged-to-act {cv['staged-to-act']:.4f} (se {se['staged-to-act']:.4f}) at t = "
                           + " / ".join(f"{t:.3f}" for t in m["t"]) + ", to act "
                           + " / ".join(f"{b:+.3f}" for b in m["to_act"]))
            print(f"  calibration map: {d['chosen']} (cross-validated Brier on {d['fit_games']} games: none "
                  f"{cv['none']:.4f}, temperature {cv['temperature']:.4f} (se of the gain {se['temperature']:.4f}) "
                  f"at t = {d['temperature']:.3f}, isotonic {cv['isotonic']:.4f} (se {se['isotonic']:.4f}){staged})")
            print(f"  on {d['held_out_games']} held-out games:{'ECE':>7}{'Brier':>8}{'skill':>8}")
            for name in d["held_out"]:
                m = d["held_out"][name]
                mark = " (chosen)" if name == d["chosen"] else ""
                print(f"    {name:<22}{_f(m['ece']):>7}{_f(m['brier']):>8}{_f(m['skill']):>8}{mark}")


def _map_to_apply(name: str) -> dict[str, Any]:
    """--apply's map: a file, or the shipped model's map of the settings named (its populations aside)."""
    if name in ("analysis", "play"):
        chosen = cm.select_map(load_model().manifest.get("calibration"), name)
        if chosen is None:
            raise ValueError(f"--apply: the shipped model has no {name} map")
        return {"version": chosen["version"], "players": chosen["players"]}
    return cm.load_map(name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cacao-calibration", description="Measure (and correct) the calibration of the search's "
        "win probabilities.", formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Specs as cacao-arena takes them: mcts:iterations=300, level:strong, ...\n\n"
               "examples:\n"
               "  cacao-calibration --players 2 3 4 --games 1200 --raw --out samples.json\n"
               "  cacao-calibration --input samples.json --games 0 --fit map.json   # fit a map, play nothing\n"
               "  cacao-calibration --evaluator mcts:iterations=1500,value=1,prior=model --games 100\n"
               "  cacao-calibration --games 150 --replays 24   # and the best possible prediction's skill")
    add_version_option(parser)
    parser.add_argument("--players", type=int, nargs="+", default=[2], help="player counts (default 2)")
    parser.add_argument("--games", type=int, default=40, help="games per player count (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and the moves (default 1)")
    parser.add_argument("--player", default=DEFAULT_PLAYER, help=f"every seat's bot (default {DEFAULT_PLAYER})")
    parser.add_argument("--opponent", help="with this, --player sits in one seat (seat g mod players in game g) "
                                           "and this bot in the others")
    parser.add_argument("--evaluator", action="append", default=None, metavar="SPEC",
                        help=f"the search that predicts (default {DEFAULT_EVALUATOR}); given again, each "
                             "evaluates the same positions of games played once, with an --out each")
    parser.add_argument("--every", type=int, default=4, help="evaluate every k-th decision (default 4)")
    parser.add_argument("--raw", action="store_true",
                        help="record the tree's own probabilities, without the model's calibration map "
                             "(what --fit needs)")
    parser.add_argument("--replays", type=int, default=0, metavar="K",
                        help="play each evaluated position on K times, for the ceiling: the skill of the best "
                             "possible prediction (default 0: none)")
    parser.add_argument("--processes", type=int, default=None, help="default: one per core")
    parser.add_argument("--ray", metavar="ADDRESS", default=None,
                        help="run the games on a Ray cluster: auto, ray://HOST:PORT or local")
    parser.add_argument("--input", nargs="+", default=[], metavar="FILE",
                        help="samples of earlier runs (--out files): read, and not played again")
    parser.add_argument("--journal", metavar="FILE", default=None,
                        help="append each game to FILE as it finishes, and read FILE first: a stopped run "
                             "given the same FILE plays only the games it lacks")
    parser.add_argument("--out", action="append", default=None,
                        help="write the samples and the report here (default: out/calibration-<time>.json "
                             "when games are played); one per --evaluator")
    parser.add_argument("--apply", metavar="MAP", default=None, help="correct the predictions with this map "
                        "first: a map file, or analysis or play for the shipped model's map of those settings")
    parser.add_argument("--fit", metavar="MAP", default=None, help="fit a calibration map and write it here")
    parser.add_argument("--holdout", type=float, default=0.3, help="share of games held out by --fit (0.3)")
    parser.add_argument("--bootstrap", type=int, default=200,
                        help="bootstrap resamples of the games for the 95%% intervals, and draws for ECE's "
                             "floor (0: none; default 200)")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if any(n not in (2, 3, 4) for n in args.players):
        parser.error("--players: 2, 3 or 4")
    if args.games < 0:
        parser.error("--games must not be negative")
    if not 0 < args.holdout < 1:
        parser.error("--holdout must be in (0, 1)")
    evaluators, outs = args.evaluator or [DEFAULT_EVALUATOR], args.out or []
    if len(evaluators) > 1 and (len(outs) != len(evaluators) or args.fit or not args.games):
        parser.error(f"{len(evaluators)} evaluators: give an --out for each ({len(outs)} given), and play games "
                     "(no --fit or --games 0: those take one evaluator's samples)")
    if len(evaluators) == 1 and len(outs) > 1:
        parser.error("--out: one per --evaluator")
    started = time.monotonic()
    try:
        have = read_samples(args.input)
        if args.journal:
            known = {(*_key(g), g["evaluator"]) for g in have}
            have += [g for g in read_journal(args.journal) if (*_key(g), g["evaluator"]) not in known]
        player, every, raw, replays = args.player, args.every, args.raw, args.replays
        if args.opponent:
            player = f"{player}{VERSUS}{args.opponent}"
        if args.games == 0 and have:
            # only re-measure or fit: the inputs say how they were made, and may
            # mix populations of players (one evaluator's predictions)
            player, (evaluator, every, raw, replays) = made_by(have)
            evaluators = [evaluator]
            games = sorted(have, key=_key)
        else:
            games = run(args.players, args.games, args.seed, player, evaluators, every,
                        args.processes or os.cpu_count() or 1, args.ray, have, progress=not args.quiet,
                        raw=raw, replays=replays, on_game=Journal(args.journal) if args.journal else None)
        calibration = _map_to_apply(args.apply) if args.apply else None
        runs = [(e, [g for g in games if g["evaluator"] == e]) for e in evaluators]
        reports = [report(found, calibration, args.bootstrap, args.seed) for _, found in runs]
        details = None
        if args.fit:
            fitted, details = fit(games, args.holdout)
            os.makedirs(os.path.dirname(os.path.abspath(args.fit)), exist_ok=True)
            with open(args.fit, "w") as f:
                json.dump(fitted, f, indent=1)
                f.write("\n")
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    elapsed = time.monotonic() - started
    for (evaluator, found), rep, out in zip(runs, reports, outs or [None]):
        played = len(found) - sum(g["evaluator"] == evaluator for g in have)
        out = out or (time.strftime("out/calibration-%Y%m%d-%H%M%S.json") if played else None)
        summary = {"format": "cacao-calibration/1", "player": player, "evaluator": evaluator, "every": every,
                   "raw": raw, "replays": replays, "seed": args.seed, "applied_map": args.apply, "report": rep,
                   "fit": details, "elapsed_s": elapsed, "games": found}
        if out:
            os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
            with open(out, "w") as f:
                json.dump(summary, f)
                f.write("\n")
        if args.json:
            print(json.dumps({k: v for k, v in summary.items() if k != "games"}))
            continue
        seated = (f"{player.replace(VERSUS, ' in one seat, ')} in the others" if VERSUS in player
                  else f"{player} at every seat")
        print(f"{len(found)} games ({played} played, {elapsed:.0f} s): {seated}, every {every}th decision "
              f"evaluated by {evaluator}" + (" (the tree's own probabilities)" if raw else "")
              + (f", each replayed {replays} times" if replays else "")
              + (f", corrected by {args.apply}" if args.apply else "") + (f"; samples in {out}" if out else ""))
        _print_report(rep, details)
    if args.fit and not args.json:
        print(f"\ncalibration map written to {args.fit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
