"""Ratings from game results: Bradley-Terry Elo with bootstrap intervals, and the SPRT.

numpy only; no game is played here (:mod:`cacaoai.lab.ladder` plays them).

**Bradley-Terry.** Bot i beats bot j with probability
``1 / (1 + 10 ** (-(R_i - R_j) / 400))`` (the Elo scale). The ratings R
maximise the likelihood of the pairwise results (a tie counts half a win
each way), plus ``prior_draws`` virtual draws between every two bots that met,
which keeps a perfect score finite (it then shows how far the data pushed, not
an estimate). One bot, the anchor, is held at a given rating. The fit is
Newton's method on the concave log-likelihood, batched over bootstrap
resamples.

**Intervals.** Pairwise results are not independent: the games of one deal
share its tiles, and in a 3- or 4-player game the pairs of seats share one
game. So intervals come from a bootstrap over deals (clusters): resample the
deals with replacement, keep every game of each, refit, and take the 2.5 and
97.5 percentiles of each rating. Ratings and intervals are relative to the
anchor.

**SPRT.** Fishtest's generalised SPRT (Michel Van den Bergh): outcomes fall in
categories with scores in [0, 1] (the pentanomial model: a pair of games on one
deal with seats swapped scores 0, 1/4, 1/2, 3/4 or 1; the trinomial: one game
scores 0, 1/2 or 1). The log-likelihood ratio compares the most likely
category distributions whose mean score is that of Elo ``elo0`` and of ``elo1``
(logistic Elo, per game), and Wald's bounds ``log(beta / (1 - alpha))`` and
``log((1 - beta) / alpha)`` stop the test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["ELO_PER_NAT", "PENTANOMIAL", "TRINOMIAL", "SPRT", "bootstrap_elo", "bootstrap_samples", "components",
           "elo_to_score", "fit_bradley_terry", "percentile_interval", "score_estimate", "score_to_elo", "sprt_llr"]

Array = npt.NDArray[np.float64]

ELO_PER_NAT = 400.0 / math.log(10.0)
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)     # a game pair's score for A, halved
TRINOMIAL = (0.0, 0.5, 1.0)                   # a game's score for A
_MAX_STEP = 2.0                               # nats a Newton step may move a rating


def elo_to_score(elo: float) -> float:
    """Expected score a game of a bot `elo` points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """Elo difference of an expected score (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def components(games: npt.ArrayLike) -> list[list[int]]:
    """Groups of bots linked by games (indices), from an (n, n) matrix of games played."""
    met = np.asarray(games) > 0
    n = met.shape[0]
    seen = [False] * n
    groups = []
    for start in range(n):
        if seen[start]:
            continue
        group, stack = [], [start]
        seen[start] = True
        while stack:
            i = stack.pop()
            group.append(i)
            for j in np.flatnonzero(met[i] | met[:, i]):
                if not seen[j]:
                    seen[j] = True
                    stack.append(int(j))
        groups.append(sorted(group))
    return groups


def fit_bradley_terry(wins: npt.ArrayLike, games: npt.ArrayLike, anchor: int = 0, anchor_elo: float = 0.0,
                      prior_draws: float = 1.0, met: npt.ArrayLike | None = None,
                      tolerance: float = 1e-9, max_iterations: int = 200) -> Array:
    """Maximum-likelihood Elo ratings.

    Args:
        wins: (..., n, n) score of bot i against bot j (wins plus half the ties).
        games: (..., n, n) pairwise results between i and j (symmetric).
        anchor: the bot held at `anchor_elo`.
        prior_draws: virtual draws added between every two bots that met.
        met: (n, n) which bots met (default: ``games > 0``, per batch entry);
            the bootstrap passes the full data's, so every resample gets the
            same prior.

    Returns:
        (..., n) ratings on the Elo scale.

    Raises:
        ValueError: the bots are not all linked by games.
    """
    w = np.asarray(wins, dtype=np.float64)
    g = np.asarray(games, dtype=np.float64)
    batch_shape = w.shape[:-2]
    n = w.shape[-1]
    w = w.reshape((-1, n, n))
    g = g.reshape((-1, n, n))
    mask = (np.asarray(met) > 0) if met is not None else (g + np.swapaxes(g, 1, 2)) > 0
    mask = np.broadcast_to(mask, g.shape).astype(np.float64)
    for m in mask[:1] if met is not None else mask:
        groups = components(m)
        if len(groups) > 1:
            raise ValueError(f"the bots are not linked by games: groups {groups}")
    w = w + prior_draws / 2 * mask
    g = g + prior_draws * mask
    free = [i for i in range(n) if i != anchor]
    theta = np.zeros((w.shape[0], n))
    if n > 1:
        for _ in range(max_iterations):
            diff = theta[:, :, None] - theta[:, None, :]
            p = 1.0 / (1.0 + np.exp(-diff))
            grad = (w - g * p).sum(axis=2)
            curv = g * p * (1.0 - p)
            info = -curv                            # minus the Hessian: a weighted graph Laplacian
            info[:, np.arange(n), np.arange(n)] = curv.sum(axis=2) - curv[:, np.arange(n), np.arange(n)]
            step = np.linalg.solve(info[:, free][:, :, free], grad[:, free][:, :, None])[:, :, 0]
            step = np.clip(step, -_MAX_STEP, _MAX_STEP)
            theta[:, free] += step
            if np.max(np.abs(step)) < tolerance:
                break
    return (theta * ELO_PER_NAT + anchor_elo).reshape(batch_shape + (n,))


def bootstrap_elo(wins: npt.ArrayLike, games: npt.ArrayLike, anchor: int = 0, anchor_elo: float = 0.0,
                  resamples: int = 1000, seed: int = 1, prior_draws: float = 1.0, level: float = 0.95,
                  chunk: int = 250) -> tuple[Array, Array, Array]:
    """Ratings and bootstrap intervals from per-cluster results.

    Args:
        wins, games: (clusters, n, n) per cluster (a deal: every game played
            on it), as for :func:`fit_bradley_terry`.
        resamples: bootstrap resamples of the clusters (0: no intervals).
        seed: the resampling's seed (the same seed, the same intervals).
        level: the intervals' coverage (percentile intervals).

    Returns:
        (ratings, low, high), each (n,).
    """
    point, samples = bootstrap_samples(wins, games, anchor, anchor_elo, resamples, seed, prior_draws, chunk)
    if samples is None:
        return point, point.copy(), point.copy()
    low, high = percentile_interval(samples, level)
    return point, low, high


def bootstrap_samples(wins: npt.ArrayLike, games: npt.ArrayLike, anchor: int = 0, anchor_elo: float = 0.0,
                      resamples: int = 1000, seed: int = 1, prior_draws: float = 1.0,
                      chunk: int = 250) -> tuple[Array, Array | None]:
    """The point ratings (n,) and the ratings of every bootstrap resample of the clusters
    (resamples, n), or None without resamples: what :func:`bootstrap_elo` takes its
    intervals from, and the intervals of a difference between two bots."""
    cw = np.asarray(wins, dtype=np.float64)
    cg = np.asarray(games, dtype=np.float64)
    clusters, n = cw.shape[0], cw.shape[-1]
    total_w, total_g = cw.sum(axis=0), cg.sum(axis=0)
    met = (total_g + total_g.T) > 0
    point = fit_bradley_terry(total_w, total_g, anchor, anchor_elo, prior_draws, met)
    if resamples <= 0 or clusters == 0:
        return point, None
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(clusters, np.full(clusters, 1.0 / clusters), size=resamples).astype(np.float64)
    flat_w, flat_g = cw.reshape(clusters, n * n), cg.reshape(clusters, n * n)
    samples = []
    for start in range(0, resamples, chunk):
        c = counts[start:start + chunk]
        samples.append(fit_bradley_terry((c @ flat_w).reshape(-1, n, n), (c @ flat_g).reshape(-1, n, n),
                                         anchor, anchor_elo, prior_draws, met))
    return point, np.concatenate(samples)


def percentile_interval(samples: npt.ArrayLike, level: float = 0.95) -> tuple[Array, Array]:
    """The central `level` percentile interval of bootstrap samples, along the first axis."""
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(np.asarray(samples, dtype=np.float64), [tail, 100 - tail], axis=0)
    return low, high


def _constrained_mle(pdf: Array, scores: Array, s: float, iterations: int = 64) -> Array:
    """The category distribution nearest `pdf` (most likely) whose mean score is `s`.

    ``q_i = p_i / (1 + x (a_i - s))``, with x found by bisection (the
    constraint's function is decreasing in x). pdf: (..., k), all positive.
    """
    d = scores - s
    lo = np.full(pdf.shape[:-1], -1.0 / d.max() * (1 - 1e-12))
    hi = np.full(pdf.shape[:-1], -1.0 / d.min() * (1 - 1e-12))
    for _ in range(iterations):
        mid = (lo + hi) / 2
        f = (pdf * d / (1.0 + mid[..., None] * d)).sum(axis=-1)
        up = f > 0
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    x = (lo + hi) / 2
    return pdf / (1.0 + x[..., None] * d)


def sprt_llr(counts: npt.ArrayLike, elo0: float, elo1: float,
             scores: Sequence[float] = PENTANOMIAL) -> Array:
    """The generalised SPRT's log-likelihood ratio of H1 (Elo `elo1`) to H0 (`elo0`).

    counts: (..., k) outcomes per category (scores in `scores`); empty
    categories count 0.001 (as Fishtest regularises them), so that a
    distribution with mean score s exists for any s in (0, 1).
    """
    c = np.asarray(counts, dtype=np.float64)
    a = np.asarray(scores, dtype=np.float64)
    reg = np.where(c > 0, c, 1e-3)
    total = reg.sum(axis=-1)
    pdf = reg / total[..., None]
    q0 = _constrained_mle(pdf, a, elo_to_score(elo0))
    q1 = _constrained_mle(pdf, a, elo_to_score(elo1))
    llr: Array = total * (pdf * np.log(q1 / q0)).sum(axis=-1)
    return llr


def score_estimate(counts: Sequence[float], scores: Sequence[float] = PENTANOMIAL,
                   z: float = 1.959964) -> tuple[float, float, float]:
    """Elo from the mean score of the outcomes, and its 95% interval.

    The variance is that of the units counted (game pairs for the
    pentanomial model, so the correlation within a pair is accounted for);
    normal approximation on the score, mapped to Elo. Not corrected for the
    early stop of an SPRT, which biases it away from zero a little.
    """
    c = np.asarray(counts, dtype=np.float64)
    a = np.asarray(scores, dtype=np.float64)
    n = c.sum()
    if n == 0:
        return 0.0, -math.inf, math.inf
    mean = float((c * a).sum() / n)
    se = math.sqrt(float((c * (a - mean) ** 2).sum() / n) / n)
    return score_to_elo(mean), score_to_elo(mean - z * se), score_to_elo(mean + z * se)


@dataclass(frozen=True)
class SPRT:
    """A sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "pentanomial"

    def __post_init__(self) -> None:
        if self.model not in ("pentanomial", "trinomial"):
            raise ValueError(f"model: pentanomial or trinomial, got {self.model!r}")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError("alpha and beta must be in (0, 1)")
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 ({self.elo1}) must be above elo0 ({self.elo0})")

    @property
    def scores(self) -> tuple[float, ...]:
        return PENTANOMIAL if self.model == "pentanomial" else TRINOMIAL

    @property
    def lower(self) -> float:
        """Below it, H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Above it, H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[float]) -> float:
        return float(sprt_llr(counts, self.elo0, self.elo1, self.scores))

    def decide(self, llr: float) -> str:
        """"H1" (accept: at least elo1), "H0" (reject: at most elo0) or "" (go on)."""
        return "H1" if llr >= self.upper else "H0" if llr <= self.lower else ""

    def path(self, outcomes: Sequence[int]) -> tuple[str, int, float]:
        """Run the test over a stream of category indices; returns the decision
        ("" if none), the outcomes it took and the last LLR."""
        k = len(self.scores)
        counts = np.cumsum(np.eye(k)[np.asarray(outcomes, dtype=np.int64)], axis=0)
        if counts.shape[0] == 0:
            return "", 0, 0.0
        start, block = 0, 64
        llrs = np.zeros(0)
        while start < counts.shape[0]:          # in growing blocks: most tests stop early
            llrs = sprt_llr(counts[start:start + block], self.elo0, self.elo1, self.scores)
            crossed = np.flatnonzero((llrs >= self.upper) | (llrs <= self.lower))
            if crossed.size:
                i = int(crossed[0])
                return self.decide(float(llrs[i])), start + i + 1, float(llrs[i])
            start += block
            block *= 2
        return "", counts.shape[0], float(llrs[-1])
