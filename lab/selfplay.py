"""cacao-selfplay: games played by the search, recorded for training the
learned evaluation (docs/search.md, "The learned evaluation").

    cacao-selfplay --out data/gen0 --games 2000 --spec mcts:iterations=800
    cacao-selfplay --out data/gen1 --games 2000 --seed 2 \\
        --spec mcts:iterations=800,value=0.5,prior=model,puct=1.5,model=out/gen1.npz
    cacao-selfplay --out data/test --games 20 --players 2 --ray local

Every game is played by one search spec for all seats (an ``mcts:...`` or
``flat:...`` bot spec, with an iteration budget so that the games depend on
the seed only). Game g has ``players[g % len(players)]`` seats and is dealt
from ``derive_seed(derive_seed(seed, STREAM), g)``; the search for ply p
is seeded ``derive_seed(deal, p)``. For exploration, each seat's first
``explore_moves`` decisions play an action drawn with probability
proportional to ``visits ** (1 / temperature)`` (the search's own choice
otherwise), and a search may be given fewer iterations on some moves
(``fast_share`` of the decisions, with ``fast_iterations``; KataGo's
playout-cap randomisation): those moves are played but not recorded for the
policy, and their positions still give value rows.

The games are written in shards, ``shard-NNNNN.npz``, one per
``games_per_shard`` games, and a manifest ``selfplay.json`` (the spec, seed,
games, positions, and each shard's SHA-256). A shard holds numpy arrays
(SHARD_ARRAYS below): per recorded decision (a position where the seat to act
has more than one legal action and the search ran its full budget) the
features from the seat to act's view, the final result per seat from that
seat on (win share, final gold, margin over the best other seat), the search's
root win probabilities, the game, ply and player count; per decision its
legal actions' features with their root visits (every visited action and up
to ``unvisited`` of the others drawn at random, each of those standing for
``weight`` unvisited actions); and per position the features from each
other seat's view with the results from that seat on (more value rows per
game). A 2-player position the endgame solver proved has its exactly best
actions as visits (the budget shared by them) and, from every view, the
solver's exact values in place of the game's result: the win share the
position is worth under perfect play, not the one result that chance and
exploration gave.
Features are ``Position.features`` and ``Position.action_features``: they
read only what the viewing seat may see. Beside each shard,
``shard-NNNNN.records.jsonl`` holds its games whole (cacao-record/1, one a
line; the manifest names it with its SHA-256): a shard holds the features
of its own version only, and the records let other features (a network over
the board's cells) be computed from the same games without playing them again.

Shards do not depend on how the games are spread: local worker processes
(``--processes``) and Ray tasks (``--ray ADDRESS``, as cacao-arena) give the
same files, byte for byte, for the same seed.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cacaoai.engine import Action, Position, derive_seed, features
from cacaoai.engine.cli import add_version_option
from cacaoai.engine.seeds import salted_seed
from cacaoai.search.bots import MCTSBot, parse_bot
from cacaoai.search.driver import search
from cacaoai.search.limits import Limit
from cacaoai.search.request import Question
from cacaoai.search.results import SearchResult

from .pool import run_tasks

__all__ = ["FORMAT", "SHARD_ARRAYS", "SelfPlayConfig", "load_shards", "main", "play_game", "play_shard",
           "read_shard", "run"]

FORMAT = "cacao-selfplay/1"
STREAM = 0x5E1F        # the deals of self-play: their own stream of seeds
MAX_SEATS = 4

# name -> (dtype, what one row is); D decisions, A recorded actions, V views
SHARD_ARRAYS: dict[str, tuple[str, str]] = {
    "x": ("float32", "D x N_FEATURES: the position from the seat to act's view"),
    "game": ("int64", "D: the game's number in the run"),
    "deal": ("uint64", "D: the game's deal seed (unique per game: held-out splits use it)"),
    "ply": ("int16", "D: actions played before the decision"),
    "players": ("int8", "D: seats in the game"),
    "seat": ("int8", "D: the seat to act"),
    "win": ("float32", "D x 4: final win share per seat, from the seat to act on (0 for absent seats); "
            "the exact share where the endgame solver proved the position"),
    "gold": ("float32", "D x 4: final gold per seat, from the seat to act on (exact: the solver's expected gold)"),
    "margin": ("float32", "D x 4: final gold minus the best other seat's, per seat, from the seat to act on "
               "(exact: the solver's)"),
    "exact": ("bool", "D: win, gold and margin are the endgame solver's exact values (2 players), not the game's"),
    "search_win": ("float32", "D x 4: the search's root win probability per seat, from the seat to act on"),
    "explored": ("bool", "D: the action played was drawn by the exploration temperature"),
    "n_legal": ("int16", "D: legal actions"),
    "a_start": ("int64", "D + 1: decision d's actions are rows a_start[d]:a_start[d + 1]"),
    "a_x": ("float32", "A x N_ACTION_FEATURES: an action's features"),
    "a_code": ("uint32", "A: the action's code"),
    "a_visits": ("float32", "A: the search's root visits of the action"),
    "a_weight": ("float32", "A: legal actions the row stands for (1, or the unvisited ones per drawn one)"),
    "a_played": ("bool", "A: the action played"),
    "v_x": ("float32", "V x N_FEATURES: a position from another seat's view"),
    "v_decision": ("int64", "V: the position's decision (row of x), or -1 for a fast move's position"),
    "v_game": ("int64", "V: the game's number"),
    "v_deal": ("uint64", "V: the game's deal seed"),
    "v_ply": ("int16", "V: actions played before the position"),
    "v_players": ("int8", "V: seats in the game"),
    "v_viewer": ("int8", "V: the viewing seat"),
    "v_to_act": ("bool", "V: the viewing seat is the seat to act"),
    "v_win": ("float32", "V x 4: final win share per seat, from the viewer on"),
    "v_gold": ("float32", "V x 4: final gold per seat, from the viewer on"),
    "v_margin": ("float32", "V x 4: final margin per seat, from the viewer on"),
    "v_exact": ("bool", "V: v_win, v_gold and v_margin are the endgame solver's exact values"),
}


@dataclass(frozen=True)
class SelfPlayConfig:
    """What to play (the manifest records it; shards depend on nothing else).

    Attributes:
        spec: the search's bot spec (every seat plays it).
        games: games in the run.
        players: player counts, game g having players[g % len(players)].
        seed: the run's seed.
        games_per_shard: games a shard holds.
        explore_moves: each seat's first decisions that draw their action.
        temperature: visits ** (1 / temperature) for those draws.
        unvisited: unvisited actions recorded per decision (-1: all).
        fast_share: share of the other decisions searched with
            fast_iterations and not recorded for the policy (0: none).
        fast_iterations: the budget of those.
    """

    spec: str = "mcts:iterations=800"
    games: int = 100
    players: tuple[int, ...] = (2, 3, 4)
    seed: int = 1
    games_per_shard: int = 25
    explore_moves: int = 3
    temperature: float = 1.0
    unvisited: int = 12
    fast_share: float = 0.0
    fast_iterations: int = 100
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        bot = parse_bot(self.spec)
        if not isinstance(bot, MCTSBot):
            raise ValueError(f"spec: self-play needs a search (mcts:... or flat:...), got {self.spec!r}")
        if not self.players or any(p not in (2, 3, 4) for p in self.players):
            raise ValueError(f"players: each must be 2, 3 or 4, got {self.players!r}")
        if self.games < 1 or self.games_per_shard < 1:
            raise ValueError("games and games_per_shard: must be positive")
        if not 0 <= self.seed < 2**64:
            raise ValueError(f"seed: must be in 0..2**64-1, got {self.seed!r}")
        if self.temperature <= 0 or self.explore_moves < 0:
            raise ValueError("temperature: must be positive; explore_moves: not negative")
        if self.unvisited < -1 or not 0 <= self.fast_share < 1 or self.fast_iterations < 1:
            raise ValueError("unvisited: -1 or more; fast_share: in [0, 1); fast_iterations: positive")

    @property
    def shards(self) -> int:
        return -(-self.games // self.games_per_shard)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["players"] = list(self.players)
        out.pop("extra")
        return out


def deal_seed(seed: int, game: int) -> int:
    """The deal of game `game` of a run seeded `seed`."""
    return derive_seed(derive_seed(seed, STREAM), game)


def _relative(values: Sequence[float], viewer: int, n: int) -> list[float]:
    """Per-seat values from `viewer` on, padded to MAX_SEATS."""
    return [float(values[(viewer + k) % n]) for k in range(n)] + [0.0] * (MAX_SEATS - n)


def play_game(config: SelfPlayConfig, game: int) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """Play game `game` of the run: its rows (lists keyed like SHARD_ARRAYS,
    a_start relative to the game's first action row) and its record
    (cacao-record/1)."""
    bot = parse_bot(config.spec)
    assert isinstance(bot, MCTSBot)
    limit, settings = bot.limit, bot.settings
    fast = Limit(iterations=config.fast_iterations, threads=limit.threads)
    players = config.players[game % len(config.players)]
    deal = deal_seed(config.seed, game)
    position = Position.new(players, deal)
    rows: dict[str, list[Any]] = {name: [] for name in SHARD_ARRAYS}
    rows["a_start"].append(0)
    pending: list[tuple[int, int, int]] = []     # (decision or -1, ply, seat to act) of positions kept
    exact: dict[int, tuple[list[float], list[float], list[float]]] = {}   # ply -> the solver's win, gold, margin
    moves = [0] * players
    ply = 0
    while not position.is_over:
        seat = position.to_act
        assert seat is not None
        codes = position.legal_codes()
        if len(codes) == 1:
            position.apply(codes[0])
            ply += 1
            continue
        move_seed = derive_seed(deal, ply)
        draw = random.Random(salted_seed(move_seed, 0x7E3A))
        explore = moves[seat] < config.explore_moves
        quick = not explore and config.fast_share > 0 and draw.random() < config.fast_share
        result = search(position, fast if quick else limit, settings, seed=move_seed,
                        question=Question(multipv=0))
        moves[seat] += 1
        by_action = {position.decode(c): c for c in codes}
        visits = {by_action[c.action]: c.visits for c in result.candidates if c.visits > 0}
        if result.exact:        # proved: the exactly best actions are the target, not the tree's visits
            visits = _solved_visits(result, by_action, (fast if quick else limit).iterations or 1)
            if players == 2:    # and the exact values, not the one result chance and exploration gave
                exact[ply] = _exact_values(result)
        assert result.best_action is not None
        chosen = by_action[result.best_action]
        if explore and visits:
            pool = sorted(visits)
            weights = [visits[c] ** (1.0 / config.temperature) for c in pool]
            chosen = draw.choices(pool, weights)[0]
        if quick:
            pending.append((-1, ply, seat))
        else:
            decision = len(rows["x"])
            pending.append((decision, ply, seat))
            _record_decision(rows, position, seat, codes, visits, chosen, result.win_probability,
                             draw, config.unvisited)
            rows["explored"].append(explore and chosen != by_action[result.best_action])
        _record_views(rows, position, seat, pending[-1][0], ply)
        position.apply(chosen)
        ply += 1
    final = position.result()
    assert final is not None
    win = [(1.0 / len(final.winners)) if s in final.winners else 0.0 for s in range(players)]
    gold = [float(g) for g in final.gold]
    margin = [gold[s] - max(gold[o] for o in range(players) if o != s) for s in range(players)]
    for decision, d_ply, seat in pending:
        if decision >= 0:
            rows["game"].append(game)
            rows["deal"].append(deal)
            rows["ply"].append(d_ply)
            rows["players"].append(players)
            rows["seat"].append(seat)
            w, g, m = exact.get(d_ply, (win, gold, margin))
            rows["win"].append(_relative(w, seat, players))
            rows["gold"].append(_relative(g, seat, players))
            rows["margin"].append(_relative(m, seat, players))
            rows["exact"].append(d_ply in exact)
    for viewer, v_ply in zip(rows["v_viewer"], rows["v_ply"]):
        rows["v_game"].append(game)
        rows["v_deal"].append(deal)
        rows["v_players"].append(players)
        w, g, m = exact.get(v_ply, (win, gold, margin))
        rows["v_win"].append(_relative(w, viewer, players))
        rows["v_gold"].append(_relative(g, viewer, players))
        rows["v_margin"].append(_relative(m, viewer, players))
        rows["v_exact"].append(v_ply in exact)
    return rows, position.record()


def _exact_values(result: SearchResult) -> tuple[list[float], list[float], list[float]]:
    """A proved 2-player position's value targets per seat: the exact win
    share, the expected final gold and the margin over the other seat."""
    assert result.win_probability and result.expected_gold and result.score_lead
    return list(result.win_probability), list(result.expected_gold), list(result.score_lead)


def _solved_visits(result: SearchResult, by_action: dict[Action, int], total: int) -> dict[int, int]:
    """The policy target of a position the endgame solver proved: the
    budget's visits shared by its exactly best actions."""
    top = result.candidates[0]
    best = [by_action[c.action] for c in result.candidates
            if c.exact and (c.win_probability, c.score_lead) == (top.win_probability, top.score_lead)]
    return {code: total // len(best) + (1 if i < total % len(best) else 0) for i, code in enumerate(best)}


def _record_decision(rows: dict[str, list[Any]], position: Position, seat: int, codes: list[int],
                     visits: dict[int, int], chosen: int, win: tuple[float, ...] | None,
                     draw: random.Random, unvisited: int) -> None:
    players = position.players
    rows["x"].append(position.features(seat))
    rows["search_win"].append(_relative(win if win is not None else [1.0 / players] * players,
                                        seat, players))
    rows["n_legal"].append(len(codes))
    kept = [c for c in codes if c in visits]
    others = [c for c in codes if c not in visits]
    sample = others if unvisited < 0 or len(others) <= unvisited else draw.sample(others, unvisited)
    weight = len(others) / len(sample) if sample else 1.0
    kept_codes = kept + sample
    rows["a_x"].append(position.action_features(seat, kept_codes))
    rows["a_code"].extend(kept_codes)
    rows["a_visits"].extend(float(visits[c]) for c in kept)
    rows["a_visits"].extend(0.0 for _ in sample)
    rows["a_weight"].extend([1.0] * len(kept) + [weight] * len(sample))
    rows["a_played"].extend(c == chosen for c in kept_codes)
    rows["a_start"].append(rows["a_start"][-1] + len(kept_codes))


def _record_views(rows: dict[str, list[Any]], position: Position, seat: int, decision: int,
                  ply: int) -> None:
    """The position from the other seats' views (and the seat to act's, for a
    fast move's position, which has no decision row)."""
    for viewer in range(position.players):
        if viewer == seat and decision >= 0:
            continue
        rows["v_x"].append(position.features(viewer))
        rows["v_decision"].append(decision)
        rows["v_ply"].append(ply)
        rows["v_viewer"].append(viewer)
        rows["v_to_act"].append(viewer == seat)


def _games_of(config: SelfPlayConfig, index: int) -> tuple[int, int]:
    """The games [lo, hi) of shard `index`."""
    lo = index * config.games_per_shard
    return lo, min(config.games, lo + config.games_per_shard)


def play_shard(task: tuple[SelfPlayConfig, int]
               ) -> tuple[int, dict[str, np.ndarray], dict[str, Any], list[dict[str, Any]]]:
    """Play shard `index`'s games: (index, its arrays, its counts, its games' records)."""
    config, index = task
    lo, hi = _games_of(config, index)
    started = time.process_time()
    games = [play_game(config, g) for g in range(lo, hi)]
    arrays = _concatenate([rows for rows, _ in games])
    info = {"index": index, "games": [lo, hi], "decisions": len(arrays["x"]), "actions": len(arrays["a_x"]),
            "views": len(arrays["v_x"]), "cpu_s": round(time.process_time() - started, 3)}
    return index, arrays, info, [record for _, record in games]


def _concatenate(games: list[dict[str, list[Any]]]) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}
    widths = {"x": features.N_FEATURES, "v_x": features.N_FEATURES, "a_x": features.N_ACTION_FEATURES}
    for name, (dtype, _) in SHARD_ARRAYS.items():
        if name == "a_start":
            continue
        parts: list[np.ndarray] = []
        for rows in games:
            values = rows[name]
            if name in ("x", "v_x", "a_x"):
                part = (np.concatenate(values) if name == "a_x" else np.stack(values)) if values else \
                    np.zeros((0, widths[name]), np.float32)
            else:
                part = np.asarray(values, dtype=dtype)
            parts.append(part.astype(dtype, copy=False))
        arrays[name] = np.concatenate(parts) if parts else np.zeros(0, dtype)
    # a_start: offsets over the shard; v_decision: rows of the shard's x
    starts = [0]
    decisions = 0
    v_decision: list[int] = []
    for rows in games:
        base = starts[-1]
        starts.extend(base + s for s in rows["a_start"][1:])
        v_decision.extend(d + decisions if d >= 0 else -1 for d in rows["v_decision"])
        decisions += len(rows["x"])
    arrays["a_start"] = np.asarray(starts, dtype=np.int64)
    arrays["v_decision"] = np.asarray(v_decision, dtype=np.int64)
    for name in ("win", "gold", "margin", "search_win", "v_win", "v_gold", "v_margin"):
        arrays[name] = arrays[name].reshape(-1, MAX_SEATS)
    return arrays


def write_shard(path: Path, arrays: dict[str, np.ndarray]) -> str:
    """Write the arrays as an .npz file that is the same, byte for byte, for
    the same arrays (np.savez stamps the time); returns its SHA-256."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name in SHARD_ARRAYS:
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, member.getvalue())
    return _write_bytes(path, buffer.getvalue())


def write_records(path: Path, records: Sequence[dict[str, Any]]) -> str:
    """Write the games' records, one JSON line each, and return the file's SHA-256."""
    return _write_bytes(path, "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode())


def _write_bytes(path: Path, data: bytes) -> str:
    """Replace the file at once (a reader never sees half of it); its SHA-256."""
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
    return hashlib.sha256(data).hexdigest()


def read_shard(path: Path | str) -> dict[str, np.ndarray]:
    """A shard's arrays (SHARD_ARRAYS)."""
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in SHARD_ARRAYS}


def load_shards(folders: Sequence[Path | str], names: Sequence[str] = tuple(SHARD_ARRAYS)
                ) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """The arrays `names` of every shard of the self-play folders,
    concatenated (a_start and v_decision renumbered), and the folders'
    manifests. Arrays are read one at a time, so that memory holds little
    more than the result."""
    paths: list[Path] = []
    sizes: list[tuple[int, int]] = []        # (decisions, actions) per shard
    manifests = []
    for folder in folders:
        manifest = json.loads((Path(folder) / "selfplay.json").read_text())
        if manifest.get("features_version") != features.FEATURES_VERSION:
            raise ValueError(f"{folder}: recorded with features version {manifest.get('features_version')}, "
                             f"the engine gives {features.FEATURES_VERSION}: play the games again")
        manifests.append(manifest)
        for shard in manifest["shards"]:
            paths.append(Path(folder) / shard["file"])
            sizes.append((shard["decisions"], shard["actions"]))
    if not paths:
        raise ValueError("no shards")
    out: dict[str, np.ndarray] = {}
    for name in names:
        parts = []
        for path in paths:
            with np.load(path, allow_pickle=False) as data:
                parts.append(data[name])
        if name == "a_start":
            bases = np.cumsum([0] + [a for _, a in sizes])
            parts = [np.zeros(1, np.int64)] + [part[1:] + base for part, base in zip(parts, bases)]
        elif name == "v_decision":
            bases = np.cumsum([0] + [d for d, _ in sizes])
            parts = [np.where(part >= 0, part + base, -1) for part, base in zip(parts, bases)]
        out[name] = np.concatenate(parts)
    return out, manifests


def run(config: SelfPlayConfig, out: Path | str, processes: int | None = None,
        ray_address: str | None = None, progress: bool = True) -> dict[str, Any]:
    """Play the run into folder `out` and return its manifest (also written
    there as selfplay.json). Shards already there from the same config (but
    for the number of games) are kept: an interrupted run goes on where it
    stopped, and a run can be made longer."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "selfplay.json"
    done: dict[int, dict[str, Any]] = {}
    if path.exists():     # keep the shards of the same games (a run may be made longer or shorter)
        old = json.loads(path.read_text())
        if {**old.get("config", {}), "games": 0} == {**config.to_json(), "games": 0}:
            done = {s["index"]: s for s in old.get("shards", [])
                    if s["index"] < config.shards and (out / s["file"]).exists()
                    and s["games"] == list(_games_of(config, s["index"]))}
    todo = [(config, i) for i in range(config.shards) if i not in done]
    started = time.monotonic()
    games_done = sum(s["games"][1] - s["games"][0] for s in done.values())

    def manifest(final: bool) -> dict[str, Any]:
        shards = [done[i] for i in sorted(done)]
        return {"format": FORMAT, "features_version": features.FEATURES_VERSION,
                "n_features": features.N_FEATURES, "n_action_features": features.N_ACTION_FEATURES,
                "config": config.to_json(), "complete": final and len(done) == config.shards,
                "games": sum(s["games"][1] - s["games"][0] for s in shards),
                "decisions": sum(s["decisions"] for s in shards),
                "actions": sum(s["actions"] for s in shards),
                "views": sum(s["views"] for s in shards),
                "cpu_s": round(sum(s["cpu_s"] for s in shards), 1), **config.extra,
                "arrays": {name: what for name, (_, what) in SHARD_ARRAYS.items()},
                "shards": shards}

    outcomes = run_tasks(play_shard, todo, processes or os.cpu_count() or 1, ray_address)
    for index, arrays, info, records in outcomes:
        name = f"shard-{index:05d}.npz"
        games_file = f"shard-{index:05d}.records.jsonl"
        info = {"file": name, **info, "sha256": write_shard(out / name, arrays),
                "records": games_file, "records_sha256": write_records(out / games_file, records)}
        done[index] = info
        games_done += info["games"][1] - info["games"][0]
        _write_json(path, manifest(False))
        if progress:
            elapsed = time.monotonic() - started
            sys.stderr.write(f"\rself-play {out.name}: {games_done}/{config.games} games, "
                             f"{sum(s['decisions'] for s in done.values())} decisions, {elapsed:.0f} s ")
            sys.stderr.flush()
    if progress:
        sys.stderr.write("\n")
    result = manifest(True)
    _write_json(path, result)
    return result


def _write_json(path: Path, value: dict[str, Any]) -> None:
    """Replace the file at once (a reader never sees half of it)."""
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(value, indent=1) + "\n")
    os.replace(temporary, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cacao-selfplay", description="Play games with the search and record them for training.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="The shards and the manifest: docs/search.md, 'The learned evaluation'. The same seed and\n"
               "spec give the same shards, on local processes or on Ray.\n\n"
               "examples:\n"
               "  cacao-selfplay --out out/sp --games 200 --spec mcts:iterations=400\n"
               "  cacao-selfplay --out out/sp2 --games 2000 --players 2,3,2,4 --fast-share 0.5 --processes 2\n"
               "  cacao-selfplay --out out/sp3 --games 100 --spec mcts:iterations=400,value=0.5,model=cacao --ray")
    add_version_option(parser)
    defaults = SelfPlayConfig()
    parser.add_argument("--out", required=True, help="folder for the shards and selfplay.json")
    parser.add_argument("--spec", default=defaults.spec,
                        help=f"the search every seat plays, a bot spec with an iteration budget "
                             f"(default {defaults.spec})")
    parser.add_argument("--games", type=int, default=defaults.games,
                        help=f"games to play (default {defaults.games})")
    parser.add_argument("--players", default="2,3,4", help="player counts, taken in turn (default 2,3,4)")
    parser.add_argument("--seed", type=int, default=defaults.seed,
                        help=f"seed of the deals, the searches and the exploration (default {defaults.seed})")
    parser.add_argument("--games-per-shard", type=int, default=defaults.games_per_shard,
                        help=f"games in each shard file (default {defaults.games_per_shard})")
    parser.add_argument("--explore-moves", type=int, default=defaults.explore_moves,
                        help="each seat's first decisions that draw their action by visits "
                             f"(default {defaults.explore_moves})")
    parser.add_argument("--temperature", type=float, default=defaults.temperature,
                        help="the exploring moves draw an action with probability visits^(1/T) "
                             f"(default {defaults.temperature})")
    parser.add_argument("--unvisited", type=int, default=defaults.unvisited,
                        help=f"unvisited actions kept per decision, -1: all (default {defaults.unvisited})")
    parser.add_argument("--fast-share", type=float, default=defaults.fast_share,
                        help="share of the moves searched with --fast-iterations and recorded for the "
                             f"value only (default {defaults.fast_share})")
    parser.add_argument("--fast-iterations", type=int, default=defaults.fast_iterations,
                        help=f"the fast moves' iteration budget (default {defaults.fast_iterations})")
    parser.add_argument("--processes", type=int, default=None,
                        help="local processes that play the games (default: one per core)")
    parser.add_argument("--ray", metavar="ADDRESS", nargs="?", const="local", default=None,
                        help="play on a Ray cluster instead: local (a one-machine cluster, the default), "
                             "auto, or ray://HOST:PORT; needs cacaoai[ray]")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    args = parser.parse_args(argv)
    try:
        players = tuple(int(p) for p in args.players.split(","))
        config = SelfPlayConfig(spec=args.spec, games=args.games, players=players, seed=args.seed,
                                games_per_shard=args.games_per_shard, explore_moves=args.explore_moves,
                                temperature=args.temperature, unvisited=args.unvisited,
                                fast_share=args.fast_share, fast_iterations=args.fast_iterations)
    except ValueError as exc:
        parser.error(str(exc))
    bot = parse_bot(config.spec)
    assert isinstance(bot, MCTSBot)
    if bot.limit.time_s is not None:
        print("cacao-selfplay: the spec has a time budget: the games depend on the machine's speed",
              file=sys.stderr)
    manifest = run(config, args.out, args.processes, args.ray, progress=not args.quiet)
    print(f"{manifest['games']} games, {manifest['decisions']} decisions, {manifest['actions']} actions, "
          f"{manifest['views']} other views, {manifest['cpu_s']:.0f} CPU s, in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
