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
    analysis:iterations=1500 (mcts with the analysis settings, limits.ANALYSIS)
    nomodel:iterations=1500  (mcts without the learned model, limits.NO_MODEL)
    level:strong            (or just: strong)
    adaptive                (or level:adaptive: plays as well as its opponents, search/adaptive.py)

Strength levels are MCTS budgets with a sampling temperature over the final
visit distribution (never injected blunders): the weak levels sample among the
well-visited moves only (`SearchSettings.floor`), so they play plausible moves.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

from cacaoai.engine import Action, Position

from . import adaptive
from ._mcts import greedy_code
from .driver import search
from .limits import LEVELS, PLAY, PRESETS, Limit, SearchSettings, level_search, parse_settings, setting_keys
from .request import Question, Reuse
from .reuse import TreeCache

History = Sequence[tuple[Position, Action]]
REUSE_BYTES = 256 * 2**20       # a reusing bot's TreeCache

__all__ = ["LEVELS", "AdaptiveBot", "Bot", "FlatMonteCarloBot", "GreedyBot", "Level", "MCTSBot", "RandomBot",
           "levels", "parse_bot", "rungs"]

@dataclass(frozen=True)
class Level:
    """A named strength: a budget and the settings it plays with."""

    name: str
    limit: Limit
    settings: SearchSettings


def levels() -> dict[str, Level]:
    """The named strength levels, weakest first, then ``adaptive`` (with the
    budget and settings of its strongest rung: the most it spends on a move)."""
    out = {name: _level(name, spec) for name, spec in LEVELS.items()}
    top = rungs()[adaptive.RUNGS[-1][0]]
    out[adaptive.ADAPTIVE] = Level(adaptive.ADAPTIVE, top.limit, top.settings)
    return out


def rungs() -> dict[str, Level]:
    """The settings the adaptive level plays (adaptive.RUNGS), weakest first."""
    return {name: _level(name, spec) for name, spec, _ in adaptive.RUNGS}


def _level(name: str, spec: str) -> Level:
    limit, settings = level_search(spec)
    return Level(name, limit, settings)


class Bot(ABC):
    """A player. `spec` is the string that builds it again (parse_bot)."""

    spec: str = ""

    @abstractmethod
    def choose(self, position: Position, rng_seed: int, history: History = ()) -> Action:
        """The action to play for the seat to act in `position` (not modified).
        `history`: the positions before it with the action played from each,
        oldest first (read by bots that reuse their search trees)."""

    def new_game(self) -> None:  # noqa: B027 - a hook: most bots keep nothing between games
        """Forget what was kept from an earlier game."""

    def ponder(self, position: Position, seat: int, rng_seed: int,  # noqa: B027 - a hook
               history: History = ()) -> None:
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
    """Information-set MCTS (cacaoai.search.search) with the given budget and settings.

    With `reuse`, the bot keeps its search trees in a TreeCache and continues
    them from move to move (given the game's `history`); with `ponder` (which
    implies reuse) it also searches for its own seat, with its own budget,
    whenever another seat is to act, and continues those trees on its turn.
    `stats` counts its searches for a move, their root visits and the visits
    they reused."""

    def __init__(self, limit: Limit, settings: SearchSettings = PLAY, spec: str = "",
                 reuse: bool = False, ponder: bool = False):
        self.limit = limit
        self.settings = settings
        self.pondering = ponder
        reuse = reuse or ponder
        self.spec = spec or _spec("mcts", limit, settings) + (
            ",ponder=1" if ponder else ",reuse=1" if reuse else "")
        self.cache = TreeCache(REUSE_BYTES) if reuse else None
        self.stats = {"searches": 0, "visits": 0, "reused_visits": 0}

    def ponder(self, position: Position, seat: int, rng_seed: int, history: History = ()) -> None:
        if self.pondering:
            search(position, self.limit, self.settings, seed=rng_seed % 2**64,
                   question=Question(seat=seat, multipv=0), reuse=self._reuse(history))

    def _reuse(self, history: History) -> Reuse | None:
        """The bot's kept trees and the game so far (None: it keeps none)."""
        return Reuse(self.cache, history) if self.cache is not None else None

    def choose(self, position: Position, rng_seed: int, history: History = ()) -> Action:
        result = search(position, self.limit, self.settings, seed=rng_seed % 2**64,
                        question=Question(multipv=1), reuse=self._reuse(history))
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


class AdaptiveBot(Bot):
    """The adaptive level (cacaoai.search.adaptive): each move played by the
    fixed level that its estimate of the other seats' play picks."""

    spec = "level:adaptive"

    def __init__(self) -> None:
        self.bots = {name: parse_bot(spec) for name, spec, _ in adaptive.RUNGS}
        self.chosen: list[str] = []
        self.choices: list[adaptive.Choice] = []

    def choose(self, position: Position, rng_seed: int, history: History = ()) -> Action:
        choice = adaptive.choose_level(position, rng_seed)
        self.chosen.append(choice.level)
        self.choices.append(choice)
        return self.bots[choice.level].choose(position, rng_seed, history)

    def new_game(self) -> None:
        self.chosen = []
        self.choices = []


class FlatMonteCarloBot(MCTSBot):
    """Flat Monte Carlo: no tree; playouts go round-robin over the root actions
    (with the same playouts and root widening as MCTS, so that a match between
    the two measures the tree alone)."""

    def __init__(self, limit: Limit, settings: SearchSettings = PLAY, spec: str = "",
                 reuse: bool = False, ponder: bool = False):
        super().__init__(limit, replace(settings, algorithm="flat"),
                         spec or _spec("flat", limit, settings), reuse, ponder)


_FLAGS = ("reuse", "ponder")


def parse_bot(spec: str) -> Bot:
    """Build a bot from its spec (module docstring). Raises ValueError."""
    text = spec.strip()
    name, _, rest = text.partition(":")
    name = name.strip().lower()
    if (name in LEVELS or name == adaptive.ADAPTIVE) and not rest:
        rest, name = name, "level"
    if name == "level":
        level = rest.strip().lower()
        if level == adaptive.ADAPTIVE:
            return AdaptiveBot()
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}, {adaptive.ADAPTIVE}")
        bot = parse_bot(LEVELS[level])
        bot.spec = f"level:{level}"
        return bot
    if name in ("random", "greedy"):
        if rest:
            raise ValueError(f"{name} takes no settings, got {rest!r}")
        return RandomBot() if name == "random" else GreedyBot()
    if name not in ("flat", *PRESETS):
        raise ValueError(f"unknown bot {name!r}; bots: random, greedy, flat, {', '.join(PRESETS)}, level:NAME")
    limit, settings, other = parse_settings(rest, spec, PRESETS.get(name, PLAY))
    flags = {}
    for key, value in other.items():
        if key not in _FLAGS:
            raise ValueError(f"{spec!r}: bad setting {key!r}; settings: "
                             f"{', '.join(setting_keys() + list(_FLAGS))}")
        flag = value.lower()
        if flag not in ("0", "1", "true", "false", "yes", "no"):
            raise ValueError(f"{spec!r}: {key} must be 0 or 1, got {value!r}")
        flags[key] = flag in ("1", "true", "yes")
    if not limit.bounded:
        limit = replace(limit, iterations=1000)
    return (FlatMonteCarloBot if name == "flat" else MCTSBot)(
        limit, settings, text, flags.get("reuse", False), flags.get("ponder", False))


def _spec(name: str, limit: Limit, settings: SearchSettings) -> str:
    """The spec of a bot with this budget and the settings that differ from the defaults."""
    default = SearchSettings()
    parts = [str(limit)] if str(limit) else []
    parts += [f"{f.name}={getattr(settings, f.name)}" for f in fields(settings)
              if getattr(settings, f.name) != getattr(default, f.name)]
    return f"{name}:{','.join(parts)}"
