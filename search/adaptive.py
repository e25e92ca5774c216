"""The adaptive level: plays about as well as its opponents, and keeps the game even.

At each of its moves it aims at a rung of RUNGS (the fixed levels from
``beginner`` to ``strong``, with ``novice`` below and ``expert`` above) in
two parts:

- :func:`estimate`, which rung the other seats play like: for each of their
  decisions of the game so far (the position carries its game: its deal and
  actions; the last WINDOW of them), the chance that each rung from FLOOR
  to CEILING would have played the move made (:func:`likelihoods`: REPLICAS
  searches of the rung from the mover's view, its draw by visits as the rung
  draws, and a share of a uniform draw that is larger for the weaker rungs).
  The product of those chances over the decisions, from a prior that leans
  to the strong rungs (:func:`prior`), is a posterior over the rungs; its
  mean is placed on a ladder (RUNGS) fitted so that each fixed level's games
  stand on its own rung. This is how move-matching models (Maia in chess)
  tell a player's level: by which level's moves theirs are.
- :func:`band`, a rubber band on the game itself: its own win probability,
  searched from its own view (:func:`chances`), above an even share moves
  the aim weaker (GAIN_DOWN rungs per unit), below it stronger (GAIN_UP),
  plus a lean upward against the players placed above ``advanced``
  (:func:`lean`: a strong player punishes the weaker moves of a mix more
  than it gains from the stronger ones). Only the band reaches ``novice`` and ``expert``.

It plays the rung nearest the aim (:func:`pick`). The target: any fixed
level from ``beginner`` to ``strong`` wins 40-60% of 2-player games against
it (BENCHMARKS.md says how close it comes).

Cost: REPLICAS searches of each estimated rung for each decision of the
other seats (their budgets: about 900 iterations a replica, two fifths of
them with the model), and one CHANCES_LIMIT search a move. Each search is
seeded by the decision's place in the game, the rung and the replica, so
the estimate depends on the game alone; each decision's likelihoods are kept in a small in-process
memo (a pure function's cache), and a bot or server answering the moves of
one game searches each decision once.

Determinism: for a position (with its game), a seed and the budgets here,
the rung chosen and the move are the same on every run.

Thread-safety: the memo has a lock; the rest is pure.
"""

from __future__ import annotations

import math
import random
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from cacaoai.engine import Action, Position, derive_seed

from .driver import draw_weights, search
from .limits import ANALYSIS, Limit, SearchSettings, level_search
from .request import Question

__all__ = ["ADAPTIVE", "CEILING", "CHANCES_LIMIT", "EPSILON_STRONG", "EPSILON_WEAK", "FLOOR", "GAIN_DOWN",
           "GAIN_UP", "LEAN", "LEAN_FROM", "MIX", "PRIOR_TILT", "REPLICAS", "RUNGS", "SHARP", "WINDOW", "Choice",
           "Estimate", "band", "chances", "choose_level", "estimate", "fit_ladder", "lean", "likelihoods", "pick",
           "prior", "rung_of", "target_rung"]

#: The adaptive level's name.
ADAPTIVE = "adaptive"
#: The most recent decisions of the other seats that are estimated from.
WINDOW = 24
#: The settings it plays, weakest first: (name, bot spec, its place on the
#: ladder the estimate's posterior mean is put on). The fixed levels from
#: ``beginner`` to ``strong``: searches are noisy samples of a level's play,
#: which favours the levels that draw widely, so a level's games are placed
#: off its own rung; the ladder is fitted (:func:`fit_ladder`) so that each
#: level's games stand on its own rung on average: the mean of the fits to
#: 200 2-player games a level against this level on two seeds
#: (benchmarks/adaptive.py prints the fit of its run). Beyond them
#: ``novice`` and ``expert``, which only the rubber band reaches (their
#: places only keep the ladder increasing): to give back a lead against a
#: beginner, to catch up against a strong player. The ``advanced`` rung
#: plays as that level did when the band was tuned (60 iterations, without
#: the endgame solver; docs/decisions/levels.md).
RUNGS: tuple[tuple[str, str, float], ...] = (
    ("novice", "nomodel:iterations=4,temperature=2.0", 1.0),
    ("beginner", "beginner", 1.33),
    ("easy", "easy", 1.60),
    ("casual", "casual", 2.49),
    ("club", "club", 4.30),
    ("advanced", "mcts:iterations=60,temperature=0.5,endgame=0", 4.82),
    ("strong", "strong", 5.49),
    ("expert", "mcts:iterations=3000", 6.0),
)
#: The rubber band: rungs weaker per unit of its own win probability above an
#: even share (1 / players), stronger per unit below it; and the lean upward
#: (in rungs), none up to rung LEAN_FROM (``advanced``), LEAN at CEILING;
#: chosen by 200- and 500-game runs of benchmarks/adaptive.py
#: (docs/decisions/levels.md).
GAIN_UP = 1.5
GAIN_DOWN = 1.25
LEAN = 0.5
LEAN_FROM = 5
#: Whether a target between two rungs draws one of them (True) or plays the nearest.
MIX = False
#: The weakest and the strongest rung the estimate places an opponent on
#: (beyond them: the band only).
FLOOR = 1
CEILING = 6
#: The share of a uniform draw over the legal actions in each rung's chances
#: of a move, from FLOOR (EPSILON_WEAK) to CEILING (EPSILON_STRONG),
#: geometrically between: a move no search of any rung would play says the
#: player is weak, and one search of a rung is only one sample of its play.
EPSILON_WEAK = 0.3
EPSILON_STRONG = 0.05
#: The prior's tilt: the log-odds of each rung over the one below it before
#: any decision is seen (0: an even prior). Weak play shows within a few
#: decisions (a blunder no strong rung would play), strong play only slowly
#: (its moves are also the middle rungs' best ones), so the prior leans to
#: the strong rungs; chosen by 500-game runs (docs/decisions/levels.md).
PRIOR_TILT = 0.3
#: The searches of each rung a decision is judged by (their draws averaged):
#: one is a noisy sample of the rung's play, which favours the rungs that
#: draw widely; two place `casual` and `strong` players nearer their rungs.
REPLICAS = 2
#: The temperature that stands for a rung that plays its most visited move:
#: which move that is varies with the seed, so one search's visits, sharpened.
SHARP = 0.2
#: The budget and settings of the search that judges its own chances.
CHANCES_LIMIT = Limit(iterations=200, threads=1)
#: Seeds of the estimate's searches (by decision index, rung and replica), of the draw between two rungs and
#: of the chances.
ESTIMATE_SEED = 0xADA
MIX_INDEX = 0xADA
CHANCES_INDEX = 0xC4A
MEMO_SIZE = 100_000

_memo: OrderedDict[tuple[str, int, str], tuple[float, ...] | None] = OrderedDict()
_memo_lock = threading.Lock()


@cache
def _rung(index: int) -> tuple[Limit, SearchSettings]:
    """The budget (one thread) and settings rung `index` searches with."""
    return level_search(RUNGS[index][1])


def _epsilon(index: int) -> float:
    """Rung `index`'s share of a uniform draw (EPSILON_WEAK at FLOOR to EPSILON_STRONG at CEILING)."""
    step = (index - FLOOR) / max(1, CEILING - FLOOR)
    return EPSILON_WEAK * (EPSILON_STRONG / EPSILON_WEAK) ** step


@dataclass(frozen=True)
class Estimate:
    """Which rung the other seats play like.

    Attributes:
        decisions: the other seats' decisions (more than one legal action) it rests on.
        posterior: the chance of each rung from FLOOR to CEILING, given those decisions.
        placed: the posterior's mean rung.
        rung: where that stands on the ladder of RUNGS (0: the first rung,
            len - 1: the last; fractional between).
    """

    decisions: int
    posterior: tuple[float, ...]
    placed: float
    rung: float


def likelihoods(before: Position, index: int, action: Action) -> tuple[float, ...] | None:
    """The chance that each rung from FLOOR to CEILING plays `action` from
    `before` (decision `index` of its game): REPLICAS searches of the rung
    from the mover's view (seeded by `index`, the rung and the replica),
    each read as the rung draws by visits (a rung that plays its most
    visited move at temperature SHARP; a proved result: its best move),
    averaged, and mixed with the rung's share of a uniform draw over the
    legal actions. None for a forced move. A pure function of its
    arguments, memoized."""
    legal = len(before.legal_codes())
    if legal < 2:
        return None
    key = (before.hash(), index, str(action.to_json()))
    with _memo_lock:
        if key in _memo:
            _memo.move_to_end(key)
            return _memo[key]
    chances_of: list[float] = []
    for rung in range(FLOOR, CEILING + 1):
        limit, settings = _rung(rung)
        share = 0.0
        for replica in range(REPLICAS):
            seed = derive_seed(derive_seed(derive_seed(ESTIMATE_SEED, index), rung), replica) % 2**64
            result = search(before, limit, settings, seed=seed, question=Question(multipv=0))
            ranked = sorted((c for c in result.candidates if c.visits > 0), key=lambda c: c.order)
            if result.exact or not ranked:
                share += float(result.best_action == action) / REPLICAS
            else:
                weights = draw_weights([c.visits for c in ranked], settings.temperature or SHARP, settings.floor)
                share += sum(w for c, w in zip(ranked, weights) if c.action == action) / sum(weights) / REPLICAS
        epsilon = _epsilon(rung)
        chances_of.append((1.0 - epsilon) * share + epsilon / legal)
    judged = tuple(chances_of)
    with _memo_lock:
        _memo[key] = judged
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
    return judged


def prior() -> tuple[float, ...]:
    """The chance of each rung from FLOOR to CEILING before any decision is
    seen: each PRIOR_TILT log-odds above the one below it."""
    weights = [math.exp(PRIOR_TILT * k) for k in range(CEILING - FLOOR + 1)]
    return tuple(w / sum(weights) for w in weights)


def estimate(position: Position, seat: int | None = None) -> Estimate:
    """Which rung the seats other than `seat` (default: the seat to act)
    play like in `position`'s game so far: the last WINDOW of their
    decisions, each with :func:`likelihoods`, from the :func:`prior`. A position
    without its game (from a snapshot or an observation) gives the prior."""
    me = position.to_act if seat is None else seat
    played = position.history
    decisions: list[tuple[Position, int, Action]] = []
    if played:
        replay = Position.from_record(position.record(), 0)
        for index, action in enumerate(played):
            if replay.to_act != me and len(replay.legal_codes()) > 1:
                decisions.append((replay.clone(), index, action))
            replay.apply(action)
    logs = [math.log(p) for p in prior()]
    for before, index, action in decisions[-WINDOW:]:
        judged = likelihoods(before, index, action)
        assert judged is not None
        logs = [total + math.log(p) for total, p in zip(logs, judged)]
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    posterior = tuple(w / sum(weights) for w in weights)
    placed = sum((FLOOR + k) * p for k, p in enumerate(posterior))
    return Estimate(min(len(decisions), WINDOW), posterior, placed, rung_of(placed))


def rung_of(placed: float, ladder: Sequence[float] | None = None) -> float:
    """Where a posterior mean `placed` stands on the `ladder` of placements
    (default: RUNGS'), interpolated linearly between the two rungs around
    it, clipped to FLOOR and CEILING."""
    values = [v for _, _, v in RUNGS] if ladder is None else ladder
    if placed <= values[FLOOR]:
        return float(FLOOR)
    for i in range(FLOOR + 1, CEILING + 1):
        if placed <= values[i]:
            return i - 1 + (placed - values[i - 1]) / (values[i] - values[i - 1])
    return float(CEILING)


def fit_ladder(placements: dict[int, Sequence[float]], rounds: int = 2000) -> list[float]:
    """The ladder on which each fixed level's games (`placements`: rung ->
    the posterior means its games were placed at) stand on its own rung on
    average: the ends (FLOOR, CEILING) at their mean placement, each rung
    between moved until its games' mean :func:`rung_of` is its own."""
    values = [v for _, _, v in RUNGS]
    for end in (FLOOR, CEILING):
        values[end] = sum(placements[end]) / len(placements[end])
    for _ in range(rounds):
        for i in range(FLOOR + 1, CEILING):
            games = placements[i]
            mean = sum(rung_of(p, values) for p in games) / len(games)
            step = 0.05 * (mean - i) * (values[i + 1] - values[i - 1])
            values[i] = min(max(values[i] + step, values[i - 1] + 1e-3), values[i + 1] - 1e-3)
    return values


@dataclass(frozen=True)
class Choice:
    """The setting the adaptive level plays a move with, and why.

    Attributes:
        level: the rung's name (RUNGS).
        estimate: what it made of the other seats' play.
        win: its own win probability, from its own view (None: not searched).
        target: the rung aimed at: the estimate's, moved by the rubber band.
    """

    level: str
    estimate: Estimate
    win: float | None
    target: float


def band(win: float | None, players: int) -> float:
    """The rubber band, in rungs: weaker (negative) when its own win
    probability `win` is above an even share, stronger below it."""
    if win is None:
        return 0.0
    gap = win - 1.0 / players
    return -(GAIN_DOWN if gap > 0 else GAIN_UP) * gap


def lean(rung: float) -> float:
    """The lean upward at the estimate's `rung`: none up to LEAN_FROM, LEAN
    at CEILING, linear between (against a stronger player a weaker move
    costs more, so it errs to the strong side there)."""
    return LEAN * min(max((rung - LEAN_FROM) / (CEILING - LEAN_FROM), 0.0), 1.0)


def target_rung(rung: float, win: float | None, players: int) -> float:
    """The rung aimed at: the estimate's `rung` moved by the band and the lean, within the ladder."""
    return min(max(rung + band(win, players) + lean(rung), 0.0), float(len(RUNGS) - 1))


def pick(target: float, seed: int) -> str:
    """The rung played for a `target` between two rungs: the one above with
    the probability of the fraction between them, drawn from `seed`."""
    if not MIX:
        return RUNGS[min(math.floor(target + 0.5), len(RUNGS) - 1)][0]
    low = math.floor(target)
    upper = random.Random(derive_seed(seed, MIX_INDEX)).random() < target - low
    return RUNGS[min(low + upper, len(RUNGS) - 1)][0]


def chances(position: Position, seat: int, seed: int, limit: Limit = CHANCES_LIMIT) -> float | None:
    """`seat`'s win probability in `position`, searched from its own view
    (what it cannot see determinized); None when nothing was searched."""
    result = search(position, limit, ANALYSIS, seed=derive_seed(seed, CHANCES_INDEX) % 2**64,
                    question=Question(seat=seat, multipv=0))
    return None if result.win_probability is None else result.win_probability[seat]


def choose_level(position: Position, seed: int, seat: int | None = None) -> Choice:
    """The rung the adaptive level plays this move with: the estimate of the
    other seats' play (:func:`estimate`), moved by the rubber band of its own
    chances (:func:`chances`, :func:`band`), and between two rungs one of
    them drawn from `seed` (:func:`pick`)."""
    me = position.to_act if seat is None else seat
    assert me is not None, "the game is over"
    found = estimate(position, me)
    win = chances(position, me, seed) if len(position.legal_codes()) > 1 else None
    target = target_rung(found.rung, win, position.players)
    return Choice(pick(target, seed), found, win, target)
