"""Players behind one interface: ``Bot.choose(position, rng_seed) -> Action``.

Bots read only what the seat to act may know: the board, the public counts and
their own hand. (The search determinizes everything else; the greedy bot never
looks at a blind draw.)

Specs name a bot and its settings, for the arena and front ends:

    random
    greedy
    flat:iterations=1000
    mcts:iterations=1000,exploration=0.5,playout=random
    mcts:time=2,threads=2
    mcts:time=0.05,reuse=1  (keeps its trees across its own moves: TreeCache)
    mcts:time=0.05,ponder=1 (also searches on the others' turns, for its own seat)
    level:strong            (or just: strong)

Strength levels are MCTS budgets with a sampling temperature over the final
visit distribution (never injected blunders): the weak levels sample among the
well-visited moves only (`SearchLimits.floor`), so they play plausible moves.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from cacaoai.engine import Action, Position

from . import SearchLimits, TreeCache, search
from ._mcts import greedy_code

History = Sequence[tuple[Position, Action]]
REUSE_BYTES = 256 * 2**20       # a reusing bot's TreeCache

__all__ = ["LEVELS", "Bot", "FlatMonteCarloBot", "GreedyBot", "MCTSBot", "RandomBot", "parse_bot"]

# Named strength levels, weakest first; each is measurably stronger than the
# one before (README, "Strength levels").
LEVELS: dict[str, str] = {
    "beginner": "mcts:iterations=50,temperature=1.0",
    "casual": "mcts:iterations=250,temperature=0.5",
    "strong": "mcts:iterations=1500",
    "max": "mcts:iterations=10000,threads=2",
}


class Bot(ABC):
    """A player. `spec` is the string that builds it again (parse_bot)."""

    spec: str = ""

    @abstractmethod
    def choose(self, position: Position, rng_seed: int, history: History = ()) -> Action:
        """The action to play for the seat to act in `position` (not modified).
        `history`: the positions before it with the action played from each,
        oldest first (read by bots that reuse their search trees)."""

    def new_game(self) -> None:
        """Forget what was kept from an earlier game."""

    def ponder(self, position: Position, seat: int, rng_seed: int, history: History = ()) -> None:
        """Think for `seat` while another seat is to act (bots that ponder)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


class RandomBot(Bot):
    """Uniform over the legal actions."""

    spec = "random"

    def choose(self, position: Position, rng_seed: int, history: History = ()) -> Action:
        return random.Random(rng_seed).choice(position.legal_actions())


class GreedyBot(Bot):
    """One ply maximising its own value = gold + water-track value + sun +
    0.5 x cacao + 0.5 x the temple awards it would get now; a blind draw counts
    as an empty cell; resolves by the same value; ties at random."""

    spec = "greedy"

    def choose(self, position: Position, rng_seed: int, history: History = ()) -> Action:
        return position.decode(greedy_code(position.core, rng_seed % 2**64))


class MCTSBot(Bot):
    """Information-set MCTS (cacaoai.search.search) with the given limits.

    With `reuse`, the bot keeps its search trees in a TreeCache and continues
    them from move to move (given the game's `history`); with `ponder` (which
    implies reuse) it also searches for its own seat, with its own budget,
    whenever another seat is to act, and continues those trees on its turn.
    `stats` counts its searches for a move, their root visits and the visits
    they reused."""

    def __init__(self, limits: SearchLimits, spec: str = "", reuse: bool = False,
                 ponder: bool = False):
        self.limits = limits
        self.pondering = ponder
        reuse = reuse or ponder
        self.spec = spec or _limits_spec("mcts", limits) + (
            ",ponder=1" if ponder else ",reuse=1" if reuse else "")
        self.cache = TreeCache(REUSE_BYTES) if reuse else None
        self.stats = {"searches": 0, "visits": 0, "reused_visits": 0}

    def ponder(self, position: Position, seat: int, rng_seed: int, history: History = ()) -> None:
        if self.pondering:
            search(position, self.limits, seed=rng_seed % 2**64, seat=seat, multipv=0,
                   cache=self.cache, history=history)

    def choose(self, position: Position, rng_seed: int, history: History = ()) -> Action:
        result = search(position, self.limits, seed=rng_seed % 2**64, multipv=1,
                        cache=self.cache, history=history if self.cache is not None else ())
        assert result.best_action is not None
        if result.root is not None:
            self.stats["searches"] += 1
            self.stats["visits"] += result.root.visits
            self.stats["reused_visits"] += result.root.reused_visits
        return result.best_action

    def new_game(self) -> None:
        if self.cache is not None:
            self.cache.clear()
        self.stats = {"searches": 0, "visits": 0, "reused_visits": 0}


class FlatMonteCarloBot(MCTSBot):
    """Flat Monte Carlo: no tree; playouts go round-robin over the root actions
    (with the same playouts and root widening as MCTS, so that a match between
    the two measures the tree alone)."""

    def __init__(self, limits: SearchLimits, spec: str = "", reuse: bool = False,
                 ponder: bool = False):
        super().__init__(_replace(limits, algorithm="flat"), spec or _limits_spec("flat", limits),
                         reuse, ponder)


_KEYS: dict[str, tuple[str, type]] = {
    "iterations": ("iterations", int), "time": ("time_s", float), "time_s": ("time_s", float),
    "threads": ("threads", int), "playout": ("playout", str), "temperature": ("temperature", float),
    "exploration": ("exploration", float), "samples": ("samples", int),
    "margin_weight": ("margin_weight", float), "margin_scale": ("margin_scale", float),
    "expand_samples": ("expand_samples", int), "widen": ("widen", float),
    "widen_inner": ("widen_inner", float),
    "floor": ("floor", float), "max_nodes": ("max_nodes", int), "reuse": ("reuse", bool),
    "ponder": ("ponder", bool),
}


def parse_bot(spec: str) -> Bot:
    """Build a bot from its spec (module docstring). Raises ValueError."""
    text = spec.strip()
    name, _, rest = text.partition(":")
    name = name.strip().lower()
    if name in LEVELS and not rest:
        rest, name = name, "level"
    if name == "level":
        level = rest.strip().lower()
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
        bot = parse_bot(LEVELS[level])
        bot.spec = f"level:{level}"
        return bot
    if name in ("random", "greedy"):
        if rest:
            raise ValueError(f"{name} takes no settings, got {rest!r}")
        return RandomBot() if name == "random" else GreedyBot()
    if name not in ("mcts", "flat"):
        raise ValueError(f"unknown bot {name!r}; bots: random, greedy, flat, mcts, level:NAME")
    settings: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.replace(";", ",").split(","))):
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or key not in _KEYS:
            raise ValueError(f"{spec!r}: bad setting {item!r}; settings: {', '.join(_KEYS)}")
        field, kind = _KEYS[key]
        if kind is bool:
            flag = value.strip().lower()
            if flag not in ("0", "1", "true", "false", "yes", "no"):
                raise ValueError(f"{spec!r}: {key} must be 0 or 1, got {value!r}")
            settings[field] = flag in ("1", "true", "yes")
            continue
        try:
            settings[field] = kind(value.strip())
        except ValueError:
            raise ValueError(f"{spec!r}: {key} must be a {kind.__name__}, got {value!r}") from None
    reuse = settings.pop("reuse", False)
    ponder = settings.pop("ponder", False)
    if "iterations" not in settings and "time_s" not in settings:
        settings["iterations"] = 1000
    limits = SearchLimits(**settings)
    return (MCTSBot if name == "mcts" else FlatMonteCarloBot)(limits, text, reuse, ponder)


def _replace(limits: SearchLimits, **changes: Any) -> SearchLimits:
    values = {f.name: getattr(limits, f.name) for f in fields(limits)}
    values.update(changes)
    return SearchLimits(**values)


def _limits_spec(name: str, limits: SearchLimits) -> str:
    default = SearchLimits(iterations=1)
    parts = []
    for key, (field, _) in _KEYS.items():
        if key in ("time", "reuse", "ponder"):
            continue
        value = getattr(limits, field)
        if value is not None and (field == "iterations" or value != getattr(default, field)):
            parts.append(f"{key}={value}")
    return f"{name}:{','.join(parts)}"
