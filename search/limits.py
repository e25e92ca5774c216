"""How much to search (:class:`Limit`) and how (:class:`SearchSettings`).

:class:`Limit` is the project's one budget type, as python-chess has one
``chess.engine.Limit``: the search takes it, the server clamps it, the
``cacao.v1`` ``SearchLimits`` message carries it (``cacaoai.api.convert``
converts it, in one place), the client sends it and a search result reports
the one it ran with. Its text form (``"2s"``, ``"500"``,
``"iterations=500,time=2,threads=2"``) is what command lines, bot specs and
the board page write.

A *strength* is either a Limit or the name of a level (a Limit with
settings of its own: :data:`LEVELS`, :func:`level_search`; the players
that play them are in :mod:`cacaoai.search.bots`); :func:`parse_strength`
reads both from text.

Thread-safety: immutable values and pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["ALGORITHMS", "ANALYSIS", "LEVELS", "NO_MODEL", "NO_MODEL_NAME", "PLAY", "PLAYOUTS", "PRESETS", "Limit",
           "SearchSettings", "level_search", "parse_settings", "parse_strength"]

PLAYOUTS = {"random": 0, "informed": 1}
ALGORITHMS = ("mcts", "flat")
PRIORS = ("greedy", "model")
# the calibration maps a model may carry, by the settings they were fitted to
CALIBRATIONS = ("play", "analysis")
# The UCB constant by what values the leaves (SearchSettings.exploration None);
# each the strongest for its values (docs/decisions/search-defaults.md).
MODEL_EXPLORATION = 0.1
PLAYOUT_EXPLORATION = 0.7
# How a node below the root tries new actions (SearchSettings.expand_samples and
# widen_inner None), by what chooses them: the policy network's picks are sharp
# enough to try few, chosen among many; the one-step value's are not.
MODEL_EXPANSION = (32, 0.75)
GREEDY_EXPANSION = (4, 3.0)
# The gold margin's weight in the tree's values (SearchSettings.margin_weight
# None), by the number of players: with two, a smaller weight that cares more
# for winning than for winning by much plays stronger; with three or four it
# gained nothing (docs/decisions/search-defaults.md).
TWO_PLAYER_MARGIN_WEIGHT = 0.3
MARGIN_WEIGHT = 1.0
MAX_THREADS = 64

# short and long names of the limit's keys in its text form
_LIMIT_KEYS = {"iterations": "iterations", "i": "iterations", "iters": "iterations",
               "time": "time_s", "time_s": "time_s", "t": "time_s", "seconds": "time_s",
               "threads": "threads"}


@dataclass(frozen=True)
class Limit:
    """A search budget: the search stops at the first limit reached (or when
    it is told to stop).

    Attributes:
        iterations: most iterations over all threads (None: no limit).
        time_s: most seconds of wall-clock time (None: no limit).
        threads: independent trees searched in parallel (root parallelism);
            None: the default (1 for a direct search, the server's
            ``--search-threads`` for a request).
    """

    iterations: int | None = None
    time_s: float | None = None
    threads: int | None = None

    def __post_init__(self) -> None:
        if self.iterations is not None and (
                isinstance(self.iterations, bool) or not isinstance(self.iterations, int)
                or self.iterations < 1):
            raise ValueError(f"iterations: must be a positive integer or None, got {self.iterations!r}")
        if self.time_s is not None and not self.time_s > 0:
            raise ValueError(f"time_s: must be positive or None, got {self.time_s!r}")
        if self.threads is not None and (
                isinstance(self.threads, bool) or not isinstance(self.threads, int)
                or not 1 <= self.threads <= MAX_THREADS):
            raise ValueError(f"threads: must be in 1..{MAX_THREADS} or None, got {self.threads!r}")

    @property
    def bounded(self) -> bool:
        """Whether an iteration or a time limit is set."""
        return self.iterations is not None or self.time_s is not None

    @classmethod
    def parse(cls, text: str) -> Limit:
        """A limit from its text form.

        ``"500"`` or ``"iterations=500"`` (iterations); ``"2s"``, ``"250ms"``
        or ``"time=2"`` (seconds); ``"threads=2"``; several joined by commas:
        ``"iterations=5000,time=3s,threads=2"``.

        Raises:
            ValueError: saying which part is wrong and what was expected.
        """
        values: dict[str, Any] = {}
        for part in text.replace(" ", "").split(","):
            if not part:
                continue
            key, sep, value = part.partition("=")
            if not sep:
                key, value = _bare_key(part, text), part
            field = _LIMIT_KEYS.get(key.lower())
            if field is None:
                raise ValueError(f"bad limit {text!r}: unknown key {key!r} (iterations, time, threads)")
            values[field] = _limit_value(field, value, text)
        if not values:
            raise ValueError(f"bad limit {text!r}: give iterations such as '500' or a time such as '2s'")
        return cls(**values)

    def __str__(self) -> str:
        """The text form, which :meth:`parse` reads back ("" for no limit at all)."""
        parts = []
        if self.iterations is not None:
            parts.append(f"iterations={self.iterations}")
        if self.time_s is not None:
            parts.append(f"time={self.time_s:g}")
        if self.threads is not None:
            parts.append(f"threads={self.threads}")
        return ",".join(parts)

    def describe(self) -> str:
        """Short words for people: "500 iterations, 2 s a move, 2 threads"."""
        parts = []
        if self.iterations is not None:
            parts.append(f"{self.iterations} iterations")
        if self.time_s is not None:
            parts.append(f"{self.time_s:g} s a move")
        if self.threads is not None:
            parts.append(f"{self.threads} thread{'s' if self.threads > 1 else ''}")
        return ", ".join(parts) or "no limit"

    def to_json(self) -> dict[str, Any]:
        return {"iterations": self.iterations, "time_s": self.time_s, "threads": self.threads}


def _bare_key(part: str, text: str) -> str:
    """The key of a value written without one: a count is iterations, a
    number with a unit is time."""
    if re.fullmatch(r"\d+", part):
        return "iterations"
    if re.fullmatch(r"\d*\.?\d+(s|ms|sec)", part, re.IGNORECASE):
        return "time"
    if re.fullmatch(r"\d*\.\d+", part):
        raise ValueError(f"bad limit {text!r}: a bare {part} is neither iterations nor time: "
                         f"write {part}s for seconds")
    raise ValueError(f"bad limit {text!r}: {part!r} is not a number of iterations or a time")


def _limit_value(field: str, value: str, text: str) -> int | float:
    try:
        if field == "time_s":
            return _seconds(value)
        return int(value)
    except ValueError:
        kind = "a time such as 2s or 250ms" if field == "time_s" else "a whole number"
        raise ValueError(f"bad limit {text!r}: {field.removesuffix('_s')} must be {kind}, "
                         f"got {value!r}") from None


def _seconds(text: str) -> float:
    match = re.fullmatch(r"(\d*\.?\d+)\s*(ms|s|sec)?", text, re.IGNORECASE)
    if not match:
        raise ValueError(text)
    value = float(match.group(1))
    return value / 1000 if (match.group(2) or "").lower() == "ms" else value


def parse_strength(text: str | None) -> Limit | str | None:
    """A strength from text: a Limit (``"2s"``, ``"500"``, ``"time=2,threads=2"``),
    a level name (``"strong"``, or ``"level=strong"``), or None for empty text
    (the server's default level). Whether a level name exists is for the
    server (or :mod:`cacaoai.search.bots`) to say.

    Raises:
        ValueError: text that is neither a limit nor a level name.
    """
    text = (text or "").strip()
    if not text:
        return None
    if text.lower().startswith("level="):
        text = text[len("level="):].strip()
        if not re.fullmatch(r"[A-Za-z][\w-]*", text):
            raise ValueError(f"bad level name {text!r}")
        return text.lower()
    if re.fullmatch(r"[A-Za-z][\w-]*", text) and text.lower() not in _LIMIT_KEYS:
        return text.lower()
    try:
        return Limit.parse(text)
    except ValueError as error:
        raise ValueError(f"{error}; or give a level name such as 'strong'") from None


@dataclass(frozen=True)
class SearchSettings:
    """How the search plays, apart from its budget.

    Attributes:
        playout: "informed" (best one-step value among `samples` random
            actions per turn) or "random" (the engine's uniform playout).
        temperature: 0 plays the most visited action; T > 0 samples an action
            with probability proportional to visits ** (1 / T) among the
            candidates with at least `floor` x the most visits.
        exploration: the UCB constant c (values are win shares in [0, 1]);
            None (the default) takes the one tuned for the leaves' values:
            0.1 when the learned value judges them (`value` > 0), 0.7 when
            playouts alone do (their noisy values want more exploration).
        samples: candidate actions per informed playout turn.
        margin_weight: weight of the gold margin (in units of `margin_scale`
            gold) added to the win share in the tree's values; None (the
            default): 0.3 with 2 players, 1 with 3 or 4
            (`margin_weight_for`).
        algorithm: "mcts", or "flat" for flat Monte Carlo (root children only,
            played round-robin).
        expand_samples: a node expands the best (by one-step value, or by
            the policy network with `prior` "model") of this many untried
            actions drawn at random; 1 draws one. None (the default): 32
            with the model's prior, 4 with the one-step value.
        widen: when > 0, the root considers only its ceil(widen * sqrt(visits))
            best actions by the greedy bot's one-step value (progressive
            widening); 0 considers all.
        widen_inner: when > 0, a node below the root tries a new action only
            while fewer than widen_inner * sqrt(visits) + 1 of its actions
            are tried, and otherwise selects among those; 0 tries every action
            once before selecting. None (the default): 0.75 with the model's
            prior, 3 with the one-step value.
        floor: see `temperature`.
        max_nodes: node pool limit per tree (88 bytes a node, plus its
            8-byte edge in its parent's block of children); beyond it the
            tree stops growing and the search goes on with playouts.
        value: the share of a leaf's value that comes from the learned value
            network (0: playouts only; 1: no playout; between: a blend).
        late_value: the same share for a leaf in the last third of the game
            (two thirds of the worker tiles gone, `Position.progress`), where
            a playout is short and near exact; None (the default): `value`.
        prior: where the root's order and priors and a node's choice of an
            untried action come from: "greedy" (the one-step value) or
            "model" (the learned policy network).
        puct: > 0: the root selects by PUCT with the priors,
            mean + puct * prior * sqrt(visits) / (1 + child visits); 0: UCB.
        model: the learned model's name (a shipped one) or .npz path, for
            `value` > 0 or `prior` "model".
        endgame: the share of a time budget the exact endgame solver may
            spend first, once nothing is hidden (every draw pile empty) and
            it is likely to prove the result in what it may spend
            (:mod:`~cacaoai.search.endgame`); 0: never. A proved result is
            the answer (2 players) or corrects the search's (3-4 players).
        calibration: which of the model's calibration maps corrects the
            reported win probabilities: "play" (fitted to searches with the
            play settings) or "analysis" (to searches with ANALYSIS). It
            changes what the search reports, not how it searches.

    The defaults value=1, prior="model", puct=1.5 search with the shipped
    model (docs/search.md, "The learned evaluation"); NO_MODEL is the search
    without it, which gives the same answers as before the model existed.
    """

    playout: str = "informed"
    temperature: float = 0.0
    exploration: float | None = None
    samples: int = 8
    margin_weight: float | None = None
    margin_scale: float = 20.0
    algorithm: str = "mcts"
    expand_samples: int | None = None
    widen: float = 2.0
    widen_inner: float | None = None
    floor: float = 0.25
    max_nodes: int = 2_000_000
    value: float = 1.0
    late_value: float | None = None
    prior: str = "model"
    puct: float = 1.5
    model: str = "cacao"
    calibration: str = "play"
    endgame: float = 0.5

    def __post_init__(self) -> None:
        if self.playout not in PLAYOUTS:
            raise ValueError(f"playout: must be one of {', '.join(PLAYOUTS)}, got {self.playout!r}")
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm: must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}")
        if not self.temperature >= 0:
            raise ValueError(f"temperature: must be >= 0, got {self.temperature!r}")
        if self.exploration is not None and not self.exploration >= 0:
            raise ValueError(f"exploration: must be >= 0, got {self.exploration!r}")
        if self.margin_weight is not None and not self.margin_weight >= 0:
            raise ValueError(f"margin_weight: must be >= 0, got {self.margin_weight!r}")
        if not 1 <= self.samples <= 64:
            raise ValueError(f"samples: must be in 1..64, got {self.samples!r}")
        if self.expand_samples is not None and not 1 <= self.expand_samples <= 64:
            raise ValueError(f"expand_samples: must be in 1..64, got {self.expand_samples!r}")
        if not self.widen >= 0:
            raise ValueError(f"widen: must be >= 0, got {self.widen!r}")
        if self.widen_inner is not None and not self.widen_inner >= 0:
            raise ValueError(f"widen_inner: must be >= 0, got {self.widen_inner!r}")
        if not 0 <= self.floor <= 1:
            raise ValueError(f"floor: must be in 0..1, got {self.floor!r}")
        if self.max_nodes < 2:
            raise ValueError(f"max_nodes: must be at least 2, got {self.max_nodes!r}")
        if not 0 <= self.value <= 1:
            raise ValueError(f"value: must be in 0..1, got {self.value!r}")
        if self.late_value is not None and not 0 <= self.late_value <= 1:
            raise ValueError(f"late_value: must be in 0..1, got {self.late_value!r}")
        if self.prior not in PRIORS:
            raise ValueError(f"prior: must be one of {', '.join(PRIORS)}, got {self.prior!r}")
        if not self.puct >= 0:
            raise ValueError(f"puct: must be >= 0, got {self.puct!r}")
        if not self.model:
            raise ValueError("model: must name a model")
        if not 0 <= self.endgame < 1:
            raise ValueError(f"endgame: must be in 0..1 (below 1: the search needs time too), "
                             f"got {self.endgame!r}")
        if self.calibration not in CALIBRATIONS:
            raise ValueError(f"calibration: must be one of {', '.join(CALIBRATIONS)}, got {self.calibration!r}")

    @property
    def uses_model(self) -> bool:
        """Whether the search needs the learned model."""
        return self.value > 0 or bool(self.late_value) or self.prior == "model"

    @property
    def ucb_constant(self) -> float:
        """The UCB constant the tree uses: `exploration`, or the default for its values."""
        if self.exploration is not None:
            return self.exploration
        return MODEL_EXPLORATION if self.value > 0 else PLAYOUT_EXPLORATION

    def margin_weight_for(self, players: int) -> float:
        """The gold margin's weight the tree uses in a game of `players`:
        `margin_weight`, or the default for that many players."""
        if self.margin_weight is not None:
            return self.margin_weight
        return TWO_PLAYER_MARGIN_WEIGHT if players == 2 else MARGIN_WEIGHT

    @property
    def expansion(self) -> tuple[int, float]:
        """(expand_samples, widen_inner) as the tree uses them: the ones set,
        or the defaults for what chooses the actions a node tries."""
        samples, widen_inner = MODEL_EXPANSION if self.prior == "model" else GREEDY_EXPANSION
        return (samples if self.expand_samples is None else self.expand_samples,
                widen_inner if self.widen_inner is None else self.widen_inner)

    def tree_key(self) -> list[Any]:
        """The settings that shape a tree (a kept tree is continued only
        under the same ones)."""
        key: list[Any] = [self.playout, self.samples, self.algorithm, self.ucb_constant,
                          self.margin_weight, self.margin_scale, *self.expansion,
                          self.widen, self.max_nodes]
        if self.uses_model or self.puct:
            key += [self.value, self.late_value, self.prior, self.puct,
                    self.model if self.uses_model else ""]
        return key


#: The settings of an analysis: the service's AnalyzePosition and Analyze with
#: limits (not a level), the `analysis:` bot spec and the default evaluator of
#: cacao-calibration. They predict the outcome better per iteration than the
#: defaults but cost time a move that play cannot spare, so play keeps
#: SearchSettings() (docs/decisions/analysis-settings.md).
ANALYSIS = SearchSettings(expand_samples=64, widen_inner=0.5, puct=2.5, late_value=0.8,
                          calibration="analysis")

#: The settings of play: the `strong` level's, SuggestAction's with limits, the
#: `mcts:` bot spec's and ``search()``'s default.
PLAY = SearchSettings()

#: The search without the learned model (`value` 0, `prior` "greedy", `puct` 0)
#: nor the endgame solver, and with the margin's first weight: the same
#: answers, bit for bit, as before the model existed; the three weakest levels
#: and the `nomodel:` bot spec.
NO_MODEL = SearchSettings(value=0.0, prior="greedy", puct=0.0, endgame=0.0, margin_weight=MARGIN_WEIGHT)
#: Its name among the presets: the bot spec prefix that writes it (``nomodel:iterations=400``).
NO_MODEL_NAME = "nomodel"

#: The named presets, each with its bot spec prefix (``analysis:iterations=1500``).
PRESETS: dict[str, SearchSettings] = {"mcts": PLAY, "analysis": ANALYSIS, NO_MODEL_NAME: NO_MODEL}

# the settings whose default None means "chosen by the others" take these types
_OPTIONAL_TYPES: dict[str, type] = {"exploration": float, "expand_samples": int, "widen_inner": float,
                                     "late_value": float, "margin_weight": float}
_SETTING_TYPES: dict[str, type] = {f.name: _OPTIONAL_TYPES.get(f.name) or type(f.default)
                                   for f in fields(SearchSettings)}


def parse_settings(items: str, context: str = "", base: SearchSettings = SearchSettings()
                   ) -> tuple[Limit, SearchSettings, dict[str, str]]:
    """A Limit, SearchSettings and the other keys from ``key=value`` items
    joined by commas (or semicolons), as bot specs write them:
    ``"time=0.05,exploration=0.5,reuse=1"``. Settings not named keep
    `base`'s values.

    Returns:
        (limit, settings, the keys neither of them knows, with their text)

    Raises:
        ValueError: a value of the wrong type (naming ``context``).
    """
    where = f"{context!r}: " if context else ""
    limit: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    other: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in items.replace(";", ",").split(","))):
        key, eq, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not eq:
            raise ValueError(f"{where}bad setting {item!r}: write key=value")
        if key in _LIMIT_KEYS:
            field = _LIMIT_KEYS[key]
            try:
                limit[field] = float(value) if field == "time_s" else int(value)
            except ValueError:
                kind = "float" if field == "time_s" else "int"
                raise ValueError(f"{where}{key} must be a {kind}, got {value!r}") from None
        elif key in _SETTING_TYPES:
            setting_type = _SETTING_TYPES[key]
            try:
                settings[key] = setting_type(value)
            except ValueError:
                raise ValueError(f"{where}{key} must be a {setting_type.__name__}, got {value!r}") from None
        else:
            other[key] = value
    return Limit(**limit), replace(base, **settings), other


# Named strength levels, weakest first. The rule for their budgets: each 100 to
# 250 Elo above the one before on the ladder (docs/decisions/levels.md; today's
# ladder: BENCHMARKS.md, "Strength levels"). The three weakest search
# without the model: with it, even 10 iterations beat the greedy bot by far,
# which is no opponent for a first game. Past a few hundred iterations the
# model's gains flatten, so `max` spends far more to stand clearly above `strong`.
# The three playout levels play without the endgame solver (as `nomodel`
# does); from `club` up the levels play the last placements exactly where
# their budget proves them (200 nodes an iteration: `club` the last two,
# `advanced` two or three, `strong` three), as a club player counts
# out the end; without it `club` solved fewer of the endgame puzzles than
# `casual` (docs/decisions/levels.md).
LEVELS: dict[str, str] = {
    "beginner": "nomodel:iterations=50,temperature=1.0",
    "easy": "nomodel:iterations=100,temperature=0.5",
    "casual": "nomodel:iterations=400,temperature=0.5",
    "club": "mcts:iterations=12,temperature=1.0",
    "advanced": "mcts:iterations=60,temperature=0.5",
    "strong": "mcts:iterations=300",
    "max": "mcts:iterations=20000",
}


def level_search(spec: str) -> tuple[Limit, SearchSettings]:
    """The budget and settings a level searches with, from its spec: a
    level's name (LEVELS) or ``PRESET:key=value,...``. A level searches one
    tree unless its spec says otherwise, whatever a server allows.

    Raises:
        ValueError: an unknown preset, an unbounded budget or a key that is
            neither a budget nor a setting (naming the spec).
    """
    text = LEVELS.get(spec, spec)
    name, _, rest = text.partition(":")
    if name not in PRESETS:
        raise ValueError(f"{text!r}: a level is one of {', '.join(PRESETS)} with settings, or a level's name")
    limit, settings, other = parse_settings(rest, text, PRESETS[name])
    if other:
        raise ValueError(f"{text!r}: bad setting {next(iter(other))!r}")
    if not limit.bounded:
        raise ValueError(f"{text!r}: a level needs iterations or time")
    return replace(limit, threads=limit.threads or 1), settings


def setting_keys() -> list[str]:
    """Every key :func:`parse_settings` knows (for error messages and help)."""
    return ["iterations", "time", "threads", *_SETTING_TYPES]
