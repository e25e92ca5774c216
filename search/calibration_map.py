"""Calibration of win probabilities: the measures, and a map that corrects them.

numpy only, and nothing else of the search: the search may load a map with
:func:`load_map` and correct its per-seat win probabilities with
:func:`apply_map` (:mod:`cacaoai.lab.calibration` measures and fits them).

**Measures**, over samples (a predicted win probability of one seat, and that
seat's outcome: its win share, 1 divided by the number of winners, or 0):

- expected calibration error (ECE): the samples in 10 equal-width bins of the
  prediction (the last bin holds 1.0), and the mean over the bins, weighted by
  their counts, of |mean prediction - mean outcome|. Noise alone makes it
  positive: even perfect predictions measured on few games have an ECE well
  above 0;
- Brier score: the mean squared difference between prediction and outcome;
- the base rate's Brier score: that of predicting 1 / players for every seat.
  When every seat of a position is a sample, this is also the observed base
  rate (the win shares of a game sum to 1);
- Brier skill: 1 - Brier / base rate's Brier (1: perfect, 0: no better than
  the base rate).

**The map's format** (JSON), one entry per player count::

    {"version": 1, "players": {"2": {"kind": "temperature", "t": 1.4},
                               "3": {"kind": "isotonic", "x": [0.0, 0.2, ...], "y": [0.0, 0.1, ...]}}}

- ``temperature``: a seat's probability becomes ``p_s ** (1/t)`` divided by
  the sum over the seats (softmax of log p / t; with 2 players this is
  ``sigmoid(logit(p) / t)``). t > 1 draws the predictions towards even, t < 1
  pushes them apart.
- ``isotonic``: each seat's p becomes the piecewise-linear interpolation of
  (x, y) (x increasing, y non-decreasing; constant beyond the ends), then the
  seats are divided by their sum so they add to 1 again.
- ``staged``: ``{"kind": "staged", "t": [t1, t2, t3]}``, a temperature per
  stage of the game: the first, middle or last third of its progress (the
  share of the worker tiles gone from hands and piles, ``Position.progress``).
  The search is sure of itself by different amounts as a game goes on (most
  underconfident near its end), which one temperature cannot follow. An
  optional ``"to_act": [b1, b2, b3]`` adds b (per stage) to the log-probability,
  after the temperature, of the seat to act: the tree can be a little
  optimistic for the seat it searches for (on weaker players' games, most of
  all early in a game), which a temperature, symmetric in the seats, cannot
  correct. An optional ``"one": [c1, c2, c3]`` adds c (per stage) to the
  log-probability of *the one seat* of a population "A vs B" (the seat that
  A plays, every other seat playing B): the search assumes strong play from
  every seat, and when it knows that the others play weaker (or stronger),
  that seat's chances differ from what the tree sees.

A player count without an entry is left as it is.

**Populations.** A model's calibration names its maps by the settings they
were fitted to (``"play"``, ``"analysis"``), and each may hold
``"populations"``: maps for the same settings fitted to the games of other
players than `strong` self-play, by population: ``"casual"`` (every seat
plays the level `casual`) or ``"strong vs easy"`` (one seat `strong`, the
others `easy`). When a request says who plays each seat (:func:`population`),
a search takes its settings' entry for that population and player count,
where there is one, and the settings' map otherwise (docs/search.md,
"Calibration").
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = ["BINS", "DEFAULT_POPULATION", "MAP_VERSION", "STAGES", "VERSUS", "Choice", "apply_entry", "apply_map",
           "brier", "choose_map", "ece", "fit_isotonic", "fit_temperature", "fit_temperature_offsets",
           "fit_temperature_to_act", "load_map", "measures", "population", "reliability", "select_map", "stage_of",
           "validate_map"]

Array = npt.NDArray[np.float64]

BINS = 10
MAP_VERSION = 1
STAGES = 3
_EPS = 1e-6                 # probabilities are clipped to [_EPS, 1] before a logarithm
VERSUS = " vs "             # a population "A vs B": A in one seat, B in the others
DEFAULT_POPULATION = "strong"   # whom the analysis map is fitted to: every seat as the level strong plays


def _bin_index(p: Array, bins: int) -> npt.NDArray[np.int64]:
    return np.minimum((p * bins).astype(np.int64), bins - 1)


def reliability(p: npt.ArrayLike, y: npt.ArrayLike, bins: int = BINS) -> list[dict[str, Any]]:
    """Per equal-width bin of the prediction: its bounds, count, mean prediction and mean outcome
    (None for an empty bin)."""
    pa, ya = np.asarray(p, dtype=np.float64), np.asarray(y, dtype=np.float64)
    index = _bin_index(pa, bins)
    rows = []
    for b in range(bins):
        inside = index == b
        n = int(inside.sum())
        rows.append({"low": b / bins, "high": (b + 1) / bins, "count": n,
                     "predicted": float(pa[inside].mean()) if n else None,
                     "observed": float(ya[inside].mean()) if n else None})
    return rows


def ece(p: npt.ArrayLike, y: npt.ArrayLike, bins: int = BINS, weights: npt.ArrayLike | None = None) -> float:
    """Expected calibration error: equal-width bins, weighted by their counts (or by `weights`).

    A bin's count times |mean prediction - mean outcome| is |sum of (p - y)|
    over the bin, so ECE is the sum of those over the bins, divided by the count.
    """
    pa, ya = np.asarray(p, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if pa.size == 0:
        return math.nan
    w = np.ones_like(pa) if weights is None else np.asarray(weights, dtype=np.float64)
    gaps = np.bincount(_bin_index(pa, bins), w * (pa - ya), minlength=bins)
    return float(np.abs(gaps).sum() / w.sum())


def brier(p: npt.ArrayLike, y: npt.ArrayLike, weights: npt.ArrayLike | None = None) -> float:
    """Mean squared difference between predictions and outcomes (weighted by `weights`)."""
    pa, ya = np.asarray(p, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if pa.size == 0:
        return math.nan
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    return float(np.average((pa - ya) ** 2, weights=w))


def measures(p: npt.ArrayLike, y: npt.ArrayLike, players: int, bins: int = BINS,
             weights: npt.ArrayLike | None = None) -> dict[str, Any]:
    """Samples, ECE, Brier, the base rate's Brier (1 / players) and Brier skill."""
    pa, ya = np.asarray(p, dtype=np.float64), np.asarray(y, dtype=np.float64)
    score = brier(pa, ya, weights)
    base = brier(np.full(pa.shape, 1.0 / players), ya, weights)
    return {"samples": int(pa.size), "ece": ece(pa, ya, bins, weights), "brier": score, "base_brier": base,
            "skill": 1.0 - score / base if base > 0 else math.nan}


# --- maps ------------------------------------------------------------------------------------


Offsets = Sequence[tuple[npt.NDArray[np.int64], "float | Array"]]


def _temperature(probs: Array, t: float | Array, offsets: Offsets = ()) -> Array:
    """Softmax of log p / t, with each (seats, offset) of `offsets` adding its
    offset to one seat's logit per row (the seat to act, the one seat)."""
    logits = np.log(np.clip(probs, _EPS, 1.0)) / t
    rows = np.arange(logits.shape[0])
    for seats, offset in offsets:
        logits[rows, seats] += offset
    logits -= logits.max(axis=-1, keepdims=True)
    e = np.exp(logits)
    out: Array = e / e.sum(axis=-1, keepdims=True)
    return out


def _isotonic(probs: Array, x: Sequence[float], y: Sequence[float]) -> Array:
    mapped = np.interp(probs, np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    total = mapped.sum(axis=-1, keepdims=True)
    out: Array = np.where(total > 0, mapped / np.where(total > 0, total, 1.0), 1.0 / probs.shape[-1])
    return out


def stage_of(progress: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The stage (0, 1 or 2: the third) of the game at a progress in [0, 1]. A progress
    on a boundary (10 of 30 tiles gone) is in the later stage, whatever its rounding."""
    scaled = np.floor(np.asarray(progress, dtype=np.float64) * STAGES + 1e-9)
    stage: npt.NDArray[np.int64] = np.clip(scaled.astype(np.int64), 0, STAGES - 1)
    return stage


def apply_entry(entry: Mapping[str, Any], probs: npt.ArrayLike, progress: npt.ArrayLike | None = None,
                to_act: npt.ArrayLike | None = None, one: npt.ArrayLike | None = None) -> Array:
    """Apply one player count's map to positions' per-seat probabilities, (..., players);
    `progress` (one per position, :func:`stage_of`) is needed by a staged map,
    `to_act` (the seat to act, one per position) by one with to-act offsets and
    `one` (the one seat of a population "A vs B") by one with its offsets."""
    pa = np.asarray(probs, dtype=np.float64)
    if entry["kind"] == "temperature":
        return _temperature(pa, float(entry["t"]))
    if entry["kind"] == "isotonic":
        return _isotonic(pa, entry["x"], entry["y"])
    if entry["kind"] == "staged":
        if progress is None:
            raise ValueError("a staged calibration map needs the game's progress")
        stage = stage_of(progress)
        t = np.asarray(entry["t"], dtype=np.float64)[stage]
        if "to_act" not in entry and "one" not in entry:
            return _temperature(pa, t[..., None] if t.ndim else float(t))
        offsets = []
        for key, seats, what in (("to_act", to_act, "the seat to act"), ("one", one, "its one seat")):
            if key in entry:
                if seats is None:
                    raise ValueError(f"a calibration map with {key} offsets needs {what}")
                offsets.append((np.atleast_1d(np.asarray(seats, dtype=np.int64)),
                                np.asarray(entry[key], dtype=np.float64)[np.atleast_1d(stage)]))
        rows = pa.reshape(-1, pa.shape[-1])
        mapped = _temperature(rows, np.atleast_1d(t)[:, None], offsets)
        return mapped.reshape(pa.shape)
    raise ValueError(f"unknown calibration map kind {entry['kind']!r}")


def apply_map(calibration: Mapping[str, Any], probabilities: Sequence[float],
              progress: float | None = None, to_act: int | None = None, one: int | None = None) -> list[float]:
    """One position's per-seat win probabilities, corrected by a map (:func:`load_map`);
    `progress`: the game's (``Position.progress``), which a staged map needs;
    `to_act`: the seat to act, which a map with to-act offsets needs; `one`:
    the one seat of the population "A vs B" the map is fitted to."""
    entry = calibration["players"].get(str(len(probabilities)))
    if entry is None:
        return [float(p) for p in probabilities]
    return [float(q) for q in apply_entry(entry, probabilities, progress, to_act, one)]


def population(levels: Sequence[str]) -> tuple[str, int | None]:
    """The population whose games a position is part of, from each seat's level
    ("" for a seat whose player is not known), and its one seat: every seat one
    level L gives ("L", None); one seat at A and every other at B gives ("A vs B",
    that seat); anything else, or an unknown seat, gives the default population
    (every seat as `strong` plays)."""
    if not levels or any(not level for level in levels):
        return DEFAULT_POPULATION, None
    kinds = sorted(set(levels))
    if len(kinds) == 1:
        return kinds[0], None
    if len(kinds) == 2:
        for a, b in (kinds, kinds[::-1]):
            if list(levels).count(a) == 1:
                return f"{a}{VERSUS}{b}", list(levels).index(a)
    return DEFAULT_POPULATION, None


class Choice(NamedTuple):
    """The map a search's probabilities are corrected by: the map (None: none),
    the population it holds for and that population's one seat."""

    map: Mapping[str, Any] | None
    population: str
    one: int | None


def choose_map(calibration: Mapping[str, Any] | None, name: str, levels: Sequence[str] = (),
               players: int = 2) -> Choice:
    """The map for the settings `name` and a game of `players` seats whose
    players are `levels` (:func:`population`): the population's own entry
    for that player count where the settings' map has one (in a 2-player
    game "A vs B" is also "B vs A" from the other seat), else the settings'
    map, for the default population."""
    chosen = select_map(calibration, name)
    wanted, one = population(levels)
    maps: Mapping[str, Any] = (chosen or {}).get("populations", {})
    candidates = [(wanted, one)]
    if VERSUS in wanted and players == 2 and one is not None:
        a, b = wanted.split(VERSUS, 1)
        candidates.append((f"{b}{VERSUS}{a}", 1 - one))
    for key, seat in candidates:
        found = maps.get(key)
        if found is not None and str(players) in found.get("players", {}):
            return Choice(found, key, seat)
    return Choice(chosen, DEFAULT_POPULATION, None)


def select_map(calibration: Mapping[str, Any] | None, name: str) -> Mapping[str, Any] | None:
    """A model's map for the settings `name` ("play" or "analysis"): a model's
    ``calibration`` is one map for every search, or an object of maps by the
    settings they were fitted to (None: no map for them)."""
    if not calibration or "version" in calibration:
        return calibration
    chosen: Mapping[str, Any] | None = calibration.get(name)
    return chosen


def validate_map(calibration: Mapping[str, Any]) -> None:
    """Raise ValueError unless `calibration` is a map of this format."""
    if calibration.get("version") != MAP_VERSION:
        raise ValueError(f"calibration map: version must be {MAP_VERSION}, got {calibration.get('version')!r}")
    entries = calibration.get("players")
    if not isinstance(entries, dict):
        raise ValueError("calibration map: 'players' must be an object")
    populations = calibration.get("populations", {})
    if not isinstance(populations, dict):
        raise ValueError("calibration map: 'populations' must be an object")
    for name, found in populations.items():
        try:
            validate_map(found)
        except ValueError as e:
            raise ValueError(f"{e} (in populations {name!r})") from None
    for players, entry in entries.items():
        where = f"calibration map: players {players!r}"
        if players not in ("2", "3", "4"):
            raise ValueError(f"{where}: must be \"2\", \"3\" or \"4\"")
        if entry.get("kind") == "temperature":
            t = entry.get("t")
            if not isinstance(t, (int, float)) or not t > 0:
                raise ValueError(f"{where}: t must be a positive number, got {t!r}")
        elif entry.get("kind") == "staged":
            t = entry.get("t")
            if (not isinstance(t, list) or len(t) != STAGES
                    or not all(isinstance(v, (int, float)) and v > 0 for v in t)):
                raise ValueError(f"{where}: t must be a list of {STAGES} positive numbers, got {t!r}")
            for key in ("to_act", "one"):
                b = entry.get(key, [0.0] * STAGES)
                if (not isinstance(b, list) or len(b) != STAGES
                        or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in b)):
                    raise ValueError(f"{where}: {key} must be a list of {STAGES} finite numbers, got {b!r}")
        elif entry.get("kind") == "isotonic":
            x, y = entry.get("x"), entry.get("y")
            if not isinstance(x, list) or not isinstance(y, list) or len(x) != len(y) or not x:
                raise ValueError(f"{where}: x and y must be lists of the same length")
            if any(b < a for a, b in zip(x, x[1:])) or any(b < a for a, b in zip(y, y[1:])):
                raise ValueError(f"{where}: x and y must not decrease")
            if not all(0 <= v <= 1 for v in x + y):
                raise ValueError(f"{where}: x and y must be in [0, 1]")
        else:
            raise ValueError(f"{where}: kind must be temperature, isotonic or staged, got {entry.get('kind')!r}")


def load_map(path: str) -> dict[str, Any]:
    """Read and check a calibration map file."""
    with open(path) as f:
        calibration: dict[str, Any] = json.load(f)
    validate_map(calibration)
    return calibration


def _minimise(loss: Callable[[float], float], grid: Array) -> float:
    """The argument of a 1-D loss's minimum: the best point of `grid`, then
    golden-section refinement between its neighbours."""
    values = [loss(float(u)) for u in grid]
    best = int(np.argmin(values))
    lo, hi = float(grid[max(best - 1, 0)]), float(grid[min(best + 1, len(grid) - 1)])
    ratio = (math.sqrt(5) - 1) / 2
    a, b = lo + (1 - ratio) * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = loss(a), loss(b)
    for _ in range(60):
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = lo + (1 - ratio) * (hi - lo)
            fa = loss(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = loss(b)
    return (lo + hi) / 2


_LOG_T = np.linspace(math.log(0.05), math.log(20.0), 121)     # the temperatures searched, as log t
_OFFSETS = np.linspace(-3.0, 3.0, 61)                          # the to-act offsets searched


def fit_temperature(probs: npt.ArrayLike, outcomes: npt.ArrayLike) -> float:
    """The temperature that minimises the Brier score of positions' per-seat probabilities.

    probs, outcomes: (positions, players). A search over log t in
    [1/20, 20]: a grid, then golden-section refinement around its best point.
    The Brier score, not the log loss, is minimised: predictions of exactly 0
    or 1 that were wrong would dominate a log loss.
    """
    pa = np.asarray(probs, dtype=np.float64)
    ya = np.asarray(outcomes, dtype=np.float64)
    return math.exp(_minimise(lambda u: float(np.mean((_temperature(pa, math.exp(u)) - ya) ** 2)), _LOG_T))


def _brier_offsets(probs: Array, outcomes: Array, seats: Sequence[npt.NDArray[np.int64]], t: float,
                   offsets: Sequence[float]) -> float:
    return float(np.mean((_temperature(probs, t, list(zip(seats, offsets))) - outcomes) ** 2))


def _brier_offset(probs: Array, outcomes: Array, seats: Sequence[npt.NDArray[np.int64]], t: float,
                  offsets: Sequence[float], k: int, value: float) -> float:
    return _brier_offsets(probs, outcomes, seats, t, [*offsets[:k], value, *offsets[k + 1:]])


def fit_temperature_offsets(probs: npt.ArrayLike, outcomes: npt.ArrayLike,
                            seats: Sequence[npt.ArrayLike]) -> tuple[float, list[float]]:
    """The temperature t and one offset per array of `seats` (one seat per row:
    the seat to act, the one seat; see the map's format) that together minimise
    the Brier score: each offset in turn, then t, by :func:`_minimise`, until
    none moves."""
    p, y = np.asarray(probs, dtype=np.float64), np.asarray(outcomes, dtype=np.float64)
    rows = [np.asarray(s, dtype=np.int64) for s in seats]
    t, offsets = fit_temperature(p, y), [0.0] * len(rows)
    for _ in range(20):
        before = list(offsets)
        for k in range(len(rows)):
            offsets[k] = _minimise(partial(_brier_offset, p, y, rows, t, offsets, k), _OFFSETS)
        t_next = math.exp(_minimise(lambda u: _brier_offsets(p, y, rows, math.exp(u), offsets), _LOG_T))
        moved = sum(abs(a - b) for a, b in zip(offsets, before)) + abs(math.log(t_next / t))
        t = t_next
        if moved < 1e-6:
            break
    return t, offsets


def fit_temperature_to_act(probs: npt.ArrayLike, outcomes: npt.ArrayLike,
                           to_act: npt.ArrayLike) -> tuple[float, float]:
    """The temperature t and the seat to act's offset b (see the map's format)
    that together minimise the Brier score (:func:`fit_temperature_offsets`)."""
    t, (b,) = fit_temperature_offsets(probs, outcomes, [to_act])
    return t, b


def fit_isotonic(p: npt.ArrayLike, y: npt.ArrayLike) -> tuple[list[float], list[float]]:
    """Isotonic regression of outcomes on predictions (pool adjacent violators).

    Returns the knots (x, y) of a non-decreasing piecewise-linear map: each
    pooled block gives its lowest and highest prediction, both mapped to the
    block's mean outcome.
    """
    pa, ya = np.asarray(p, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
    if pa.size == 0:
        return [0.0, 1.0], [0.0, 1.0]
    order = np.argsort(pa, kind="stable")
    xs, ys = pa[order], ya[order]
    # equal predictions first pooled into one point
    unique, start = np.unique(xs, return_index=True)
    counts = np.diff(np.append(start, xs.size)).astype(np.float64)
    sums = np.add.reduceat(ys, start)
    means: list[float] = []
    weights: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    for value, w, s in zip(unique, counts, sums):
        means.append(s / w)
        weights.append(w)
        lows.append(float(value))
        highs.append(float(value))
        while len(means) > 1 and means[-2] >= means[-1]:
            w2 = weights[-2] + weights[-1]
            m2 = (means[-2] * weights[-2] + means[-1] * weights[-1]) / w2
            means[-2:], weights[-2:] = [m2], [w2]
            highs[-2:] = [highs[-1]]
            lows[-2:] = [lows[-2]]
    x_out: list[float] = []
    y_out: list[float] = []
    for low, high, m in zip(lows, highs, means):
        for v in (low, high) if high > low else (low,):
            x_out.append(float(v))
            y_out.append(float(min(max(m, 0.0), 1.0)))
    return x_out, y_out
