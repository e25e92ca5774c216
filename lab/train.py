"""cacao-train: train the learned evaluation from self-play, in numpy.

    cacao-train out/gen0 out/gen1 --out out/model            # train on self-play folders
    cacao-train --pipeline --generations 1 --out out/cacao   # the shipped weights, from nothing
    cacao-train --pipeline --out out/model                   # both generations of the pipeline

The model (docs/search.md, "The learned evaluation"; search/model.py reads
it) is two small networks:

- the value network reads a position's features from one seat's view and
  gives, per seat from the viewer on, a win-share logit (softmax over the
  seats that play), the final gold margin over the best other seat and the
  final gold, both in units of ``gold_scale`` gold. Its loss is the
  cross-entropy of the win shares the games ended with, plus the squared
  errors of margin and gold (weighted ``margin_weight``, ``gold_weight``);
- the policy network gives each legal action a logit from its features; its
  loss is the cross-entropy of the softmax over a decision's actions against
  the search's root visit distribution (an unvisited action drawn for the
  shard stands for ``weight`` actions in the softmax's sum).

With ``search_target`` above 0, the win-share target of a seat to act's row
is that share of the self-play search's root win probabilities and the rest
the game's result (as KataGo and others mix search values into the target:
less noise than one game's result, at the cost of the search's own errors).
Held-out metrics always score against the results.

Both are trained with Adam on minibatches, inputs standardised (folded into
the first layer when saved), the learning rate on a cosine schedule. Games are
split by their deal: the held-out games (``held_out`` of them, by a hash of
the deal) are never trained on, and the metrics are measured on them. The
same data and seed give the same weights.

``--pipeline`` runs it all: self-play with today's search (generation 0),
training, then self-play with that model and training on the union
(PIPELINE), printing progress and the held-out metrics; folders already
played are kept, so an interrupted run goes on where it stopped.
``--generations 1`` stops after generation 0: the shipped model's weights.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from cacaoai.engine import features
from cacaoai.engine.cli import add_version_option
from cacaoai.search.limits import NO_MODEL_NAME
from cacaoai.search.model import save_model

from .mlp import MLP, Adam
from .selfplay import SelfPlayConfig, load_shards
from .selfplay import run as selfplay

__all__ = ["PIPELINE", "TINY_PIPELINE", "TrainConfig", "load_data", "main", "pipeline", "train"]

F32 = np.float32
MAX_SEATS = 4
PROGRESS = features.POSITION_FEATURES.index("progress")
VALUE_CHANGE = features.ACTION_FEATURES.index("value_change")
GREEDY_SCALE = 20.0      # the greedy prior: softmax of the one-step value in points (value_change * 20)
HASH = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class TrainConfig:
    """How to train (the manifest records it).

    Attributes:
        hidden: the value network's hidden layers (a second of 0: one layer).
        policy_hidden: the policy network's hidden layer.
        policy_position: the policy's hidden layer also sees the position
            (the mover's view of it), not only the action.
        epochs, policy_epochs: passes over the training rows.
        batch, policy_batch: rows (decisions for the policy) a step.
        lr, policy_lr: Adam's peak learning rate (cosine to 5% of it).
        weight_decay: AdamW's decay of the weight matrices.
        margin_weight, gold_weight: the squared errors' weights in the value loss.
        other_views: weight of the rows from the views of seats not to act.
        search_target: share of the search's root win probabilities in the
            win-share target of the seat to act's rows (0: the results only).
        held_out: share of the games held out (by deal).
        gold_scale: gold per output unit of margin and gold.
        seed: initial weights and minibatch order.
    """

    hidden: tuple[int, int] = (64, 32)
    policy_hidden: int = 16
    policy_position: bool = False
    epochs: int = 12
    policy_epochs: int = 6
    batch: int = 512
    policy_batch: int = 128
    lr: float = 2e-3
    policy_lr: float = 3e-3
    weight_decay: float = 1e-4
    margin_weight: float = 1.0
    gold_weight: float = 0.5
    other_views: float = 1.0
    search_target: float = 0.0
    held_out: float = 0.1
    gold_scale: float = 20.0
    seed: int = 1

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["hidden"] = list(self.hidden)
        return out


TINY = TrainConfig(hidden=(16, 0), policy_hidden=4, epochs=3, policy_epochs=4, batch=64, policy_batch=16,
                   lr=3e-3, policy_lr=1e-2, weight_decay=1e-3, held_out=0.25)


# --- data ------------------------------------------------------------------


@dataclass
class ValueRows:
    """Positions from one seat's view with the final results from that seat on."""

    x: np.ndarray
    win: np.ndarray
    margin: np.ndarray
    gold: np.ndarray
    players: np.ndarray
    to_act: np.ndarray
    deal: np.ndarray
    search_win: np.ndarray       # the search's win probabilities (NaN where none was recorded)

    def take(self, mask: np.ndarray) -> ValueRows:
        return ValueRows(*(getattr(self, f)[mask] for f in self.__dataclass_fields__))

    def __len__(self) -> int:
        return len(self.x)


@dataclass
class PolicyRows:
    """Decisions: the rows start[d]:start[d + 1] of x, visits, weight are
    decision d's actions; position[d] is its position's features (the seat
    to act's view)."""

    x: np.ndarray
    visits: np.ndarray
    weight: np.ndarray
    start: np.ndarray
    players: np.ndarray
    deal: np.ndarray
    position: np.ndarray

    def take(self, which: np.ndarray) -> PolicyRows:
        """The decisions of a mask, or of increasing indices."""
        chosen = np.flatnonzero(which) if which.dtype == bool else which
        lengths = np.diff(self.start)[chosen]
        rows = _ranges(self.start[chosen], lengths)
        start = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        return PolicyRows(self.x[rows], self.visits[rows], self.weight[rows], start, self.players[chosen],
                          self.deal[chosen], self.position[chosen])

    def __len__(self) -> int:
        return len(self.start) - 1


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated aranges start[i]:start[i] + lengths[i]."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return np.arange(total, dtype=np.int64) + offsets


def held_out_games(deal: np.ndarray, share: float) -> np.ndarray:
    """Which rows belong to held-out games: a hash of the deal below `share`
    (at least the game of the smallest hash, when there are two games or more)."""
    with np.errstate(over="ignore"):
        h = (deal.astype(np.uint64) * HASH) >> np.uint64(11)
    u = h.astype(np.float64) / float(2**53)
    out = u < share
    if not out.any() and len(np.unique(deal)) > 1:
        out = deal == deal[np.argmin(u)]
    return out


DECISION_ARRAYS = ("x", "win", "margin", "gold", "players", "deal", "search_win", "a_x", "a_visits", "a_weight",
                   "a_start")
VIEW_ARRAYS = ("v_x", "v_win", "v_margin", "v_gold", "v_players", "v_to_act", "v_deal")


def load_data(folders: Sequence[Path | str], other_views: bool = True
              ) -> tuple[ValueRows, PolicyRows, list[dict[str, Any]]]:
    """The value rows (the views of the seat to act, and with `other_views`
    those of the other seats and of fast moves' positions) and the decisions
    of self-play folders."""
    d, manifests = load_shards(folders, DECISION_ARRAYS + (VIEW_ARRAYS if other_views else ()))
    n = len(d["x"])
    views = len(d["v_x"]) if other_views else 0

    def rows(name: str, fill: np.ndarray | None = None) -> np.ndarray:
        mine = d.pop(name)
        if not other_views:
            return mine
        other = d.pop(f"v_{name}") if fill is None else fill
        return np.concatenate([mine, other])

    value = ValueRows(
        x=rows("x"), win=rows("win"), margin=rows("margin"), gold=rows("gold"),
        players=rows("players").astype(np.int64),
        to_act=np.concatenate([np.ones(n, bool), d.pop("v_to_act") if other_views else np.zeros(0, bool)]),
        deal=np.concatenate([d["deal"], d.pop("v_deal") if other_views else np.zeros(0, np.uint64)]),
        search_win=rows("search_win", np.full((views, MAX_SEATS), np.nan, F32)))
    policy = PolicyRows(x=d.pop("a_x"), visits=d.pop("a_visits"), weight=d.pop("a_weight"), start=d.pop("a_start"),
                        players=value.players[:n], deal=d.pop("deal"), position=value.x[:n])
    return value, policy, manifests


# --- losses ----------------------------------------------------------------


def _present(players: np.ndarray) -> np.ndarray:
    return np.arange(MAX_SEATS)[None, :] < players[:, None]


def _log_softmax(logits: np.ndarray, present: np.ndarray) -> np.ndarray:
    masked = np.where(present, logits, -np.inf)
    top = masked.max(axis=1, keepdims=True)
    lse = top + np.log(np.exp(masked - top).sum(axis=1, keepdims=True))
    return np.where(present, logits - lse, 0.0)


def win_target(rows: ValueRows, search_share: float) -> np.ndarray:
    """The win shares the value network learns: the results, mixed with
    the search's root win probabilities where the search recorded them."""
    if search_share <= 0:
        return rows.win
    searched = ~np.isnan(rows.search_win[:, 0])
    mixed = (1 - search_share) * rows.win + search_share * np.clip(np.nan_to_num(rows.search_win), 0, 1)
    return np.where(searched[:, None], mixed, rows.win).astype(F32)


def value_loss(out: np.ndarray, rows: ValueRows, weight: np.ndarray, config: TrainConfig
               ) -> tuple[float, np.ndarray]:
    """The weighted mean loss over the rows and its gradient w.r.t. the outputs."""
    present = _present(rows.players)
    n_present = rows.players[:, None].astype(F32)
    logp = _log_softmax(out[:, :MAX_SEATS], present)
    p = np.where(present, np.exp(logp), 0.0)
    target = win_target(rows, config.search_target)
    ce = -(target * logp).sum(axis=1)
    dm = np.where(present, out[:, MAX_SEATS:2 * MAX_SEATS] - rows.margin / config.gold_scale, 0.0)
    dg = np.where(present, out[:, 2 * MAX_SEATS:] - rows.gold / config.gold_scale, 0.0)
    mse_m = 0.5 * (dm * dm).sum(axis=1) / n_present[:, 0]
    mse_g = 0.5 * (dg * dg).sum(axis=1) / n_present[:, 0]
    total = weight.sum()
    loss = float((weight * (ce + config.margin_weight * mse_m + config.gold_weight * mse_g)).sum() / total)
    w = (weight / total)[:, None]
    grad = np.concatenate([w * (p - target),
                           w * config.margin_weight * dm / n_present,
                           w * config.gold_weight * dg / n_present], axis=1).astype(F32)
    return loss, grad


def _segments(start: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(start) - 1), np.diff(start))


def policy_loss(logits: np.ndarray, visits: np.ndarray, weight: np.ndarray, start: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """Per decision, the cross-entropy of its actions' softmax (each row
    counted `weight` times in the sum) against the visit distribution; and the
    gradient of their mean w.r.t. the logits."""
    first = start[:-1]
    seg = _segments(start)
    top = np.maximum.reduceat(logits, first)
    e = weight * np.exp(logits - top[seg])
    z = np.add.reduceat(e, first)
    lse = top + np.log(z)
    target = visits / np.add.reduceat(visits, first)[seg]
    ce = -np.add.reduceat(target * (logits - lse[seg]), first)
    grad = (e / z[seg] - target) / len(first)
    return ce, grad.astype(F32)


# --- training ----------------------------------------------------------------


def _schedule(step: int, total: int, peak: float) -> float:
    warm = max(1, total // 50)
    if step < warm:
        return peak * (step + 1) / warm
    t = (step - warm) / max(1, total - warm)
    return peak * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * t)))


def _standardiser(x: np.ndarray, select: np.ndarray, chunk: int = 1 << 18) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation (1 where below 1e-3) of the rows of x
    that `select` (a mask) picks, a chunk at a time."""
    total, first, second = 0, np.zeros(x.shape[1]), np.zeros(x.shape[1])
    for i in range(0, len(x), chunk):
        part = x[i:i + chunk][select[i:i + chunk]].astype(np.float64)
        total += len(part)
        first += part.sum(axis=0)
        second += (part * part).sum(axis=0)
    mean = first / max(total, 1)
    std = np.sqrt(np.maximum(second / max(total, 1) - mean * mean, 0.0))
    return mean.astype(F32), np.where(std > 1e-3, std, 1.0).astype(F32)


def train_value(rows: ValueRows, train: np.ndarray, config: TrainConfig, rng: np.random.Generator,
                log: Callable[[str], None], check: Callable[[MLP], str] | None = None) -> MLP:
    """The value network, trained on the rows of the mask `train`."""
    h1, h2 = config.hidden
    sizes = [features.N_FEATURES, h1] + ([h2] if h2 else []) + [3 * MAX_SEATS]
    weight = np.where(rows.to_act, 1.0, config.other_views).astype(F32)
    select = train & (weight > 0)
    mean, scale = _standardiser(rows.x, select)
    net = MLP(sizes, rng, mean, scale, last_gain=0.1)
    present = _present(rows.players[select])
    net.biases[-1][2 * MAX_SEATS:] = F32(rows.gold[select][present].mean() / config.gold_scale)
    keep = np.flatnonzero(select)
    adam = Adam(net.params, config.lr, weight_decay=config.weight_decay)
    steps = max(1, len(keep) // config.batch)
    total = steps * config.epochs
    for epoch in range(config.epochs):
        order = keep[rng.permutation(len(keep))]
        running = 0.0
        for k in range(steps):
            batch = np.sort(order[k * config.batch:(k + 1) * config.batch])
            part = rows.take(batch)
            out, acts = net.forward(part.x)
            loss, grad = value_loss(out, part, weight[batch], config)
            adam.step(net.backward(acts, grad), _schedule(epoch * steps + k, total, config.lr))
            running += loss
        log(f"value epoch {epoch + 1}/{config.epochs}: train loss {running / steps:.4f}"
            + (f", held out {check(net)}" if check else ""))
    return net


class PolicyNet:
    """The policy network: an MLP on an action's features; with a position
    part, its hidden layer also gets the decision's standardised position
    features times `wx`, the same for every action of the decision (the
    search computes it once a node: model_policy_bias in model.pxi)."""

    def __init__(self, net: MLP, position: tuple[np.ndarray, np.ndarray] | None, rng: np.random.Generator):
        self.net = net
        self.position = position           # the position features' mean and scale
        self.wx: np.ndarray | None = None
        if position is not None:
            n_in = net.sizes[0] + len(position[0])
            self.wx = rng.normal(0.0, math.sqrt(2.0 / n_in), (net.sizes[1], len(position[0]))).astype(F32)

    @property
    def params(self) -> list[np.ndarray]:
        return self.net.params + ([] if self.wx is None else [self.wx])

    @property
    def size(self) -> int:
        return sum(p.size for p in self.params)

    def forward(self, rows: PolicyRows) -> tuple[np.ndarray, tuple[list[np.ndarray], np.ndarray | None]]:
        """Each action's logit, and what backward() needs."""
        first = xc = None
        if self.wx is not None and self.position is not None:
            mean, scale = self.position
            xc = ((rows.position - mean) / scale).astype(F32)
            first = (xc @ self.wx.T)[_segments(rows.start)]
        out, acts = self.net.forward(rows.x, first)
        return out[:, 0], (acts, xc)

    def backward(self, cache: tuple[list[np.ndarray], np.ndarray | None], grad: np.ndarray,
                 start: np.ndarray) -> list[np.ndarray]:
        """Gradients of ``params`` from the gradient w.r.t. the logits."""
        acts, xc = cache
        grads, g = self.net.backward_first(acts, grad[:, None])
        if xc is not None:
            grads.append(np.add.reduceat(g, start[:-1]).T @ xc)
        return grads

    def logits(self, rows: PolicyRows, decisions: int = 20000) -> np.ndarray:
        """Every action's logit, a batch of decisions at a time."""
        parts = [self.forward(rows.take(np.arange(i, min(i + decisions, len(rows)))))[0]
                 for i in range(0, len(rows), decisions)]
        return np.concatenate(parts) if parts else np.zeros(0, F32)

    def arrays(self) -> dict[str, np.ndarray]:
        """The model file's policy arrays (search/model.py), standardisation folded in."""
        w, b = self.net.folded()
        out = {"p_w1": w[0], "p_b1": b[0], "p_w2": w[1][0], "p_b2": b[1]}
        if self.wx is not None and self.position is not None:
            mean, scale = self.position
            wx = self.wx / scale[None, :]
            out["p_wx"] = wx.astype(F32)
            out["p_b1"] = (b[0] - wx @ mean).astype(F32)
        return out


def train_policy(rows: PolicyRows, train: np.ndarray, config: TrainConfig, rng: np.random.Generator,
                 log: Callable[[str], None], check: Callable[[PolicyNet], str] | None = None) -> PolicyNet:
    """The policy network, trained on the decisions of the mask `train`."""
    mean, scale = _standardiser(rows.x, np.repeat(train, np.diff(rows.start)))
    net = PolicyNet(MLP([features.N_ACTION_FEATURES, config.policy_hidden, 1], rng, mean, scale),
                    _standardiser(rows.position, train) if config.policy_position else None, rng)
    adam = Adam(net.params, config.policy_lr, weight_decay=config.weight_decay)
    keep = np.flatnonzero(train)
    steps = max(1, len(keep) // config.policy_batch)
    total = steps * config.policy_epochs
    for epoch in range(config.policy_epochs):
        order = keep[rng.permutation(len(keep))]
        running = 0.0
        for k in range(steps):
            part = rows.take(np.sort(order[k * config.policy_batch:(k + 1) * config.policy_batch]))
            out, cache = net.forward(part)
            ce, grad = policy_loss(out.astype(np.float64), part.visits, part.weight, part.start)
            adam.step(net.backward(cache, grad, part.start), _schedule(epoch * steps + k, total, config.policy_lr))
            running += float(ce.mean())
        log(f"policy epoch {epoch + 1}/{config.policy_epochs}: train cross-entropy {running / steps:.4f}"
            + (f", held out {check(net)}" if check else ""))
    return net


# --- metrics -----------------------------------------------------------------


def _calibration(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error of probabilities p for outcomes y (equal-width bins)."""
    if len(p) == 0:
        return float("nan")
    k = np.minimum((p * bins).astype(int), bins - 1)
    count = np.bincount(k, minlength=bins)
    gap = np.abs(np.bincount(k, p, bins) - np.bincount(k, y, bins))
    return float(gap.sum() / count.sum())


def _win_figures(prob: np.ndarray, rows: ValueRows, constant: np.ndarray) -> dict[str, float]:
    """Log loss of the win shares, and Brier, its skill and ECE of the viewer's win probability."""
    eps = 1e-7
    logloss = float(-(rows.win * np.log(np.clip(prob, eps, 1))).sum(axis=1).mean())
    base_logloss = float(-(rows.win * np.log(np.clip(constant, eps, 1))).sum(axis=1).mean())
    p0, y0, c0 = prob[:, 0], rows.win[:, 0], constant[:, 0]
    brier = float(((p0 - y0) ** 2).mean())
    base = float(((c0 - y0) ** 2).mean())
    return {"log_loss": logloss, "log_loss_constant": base_logloss, "brier": brier,
            "brier_constant": base, "brier_skill": 1 - brier / base if base > 0 else float("nan"),
            "ece": _calibration(p0, y0)}


def value_prediction(net: MLP, x: np.ndarray, players: np.ndarray, gold_scale: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(win probabilities, margins, gold) per seat from the viewer on, in gold."""
    out = net(x).astype(np.float64)
    present = _present(players)
    prob = np.where(present, np.exp(_log_softmax(out[:, :MAX_SEATS], present)), 0.0)
    return prob, out[:, MAX_SEATS:2 * MAX_SEATS] * gold_scale, out[:, 2 * MAX_SEATS:] * gold_scale


def base_rates(rows: ValueRows) -> dict[int, np.ndarray]:
    """The constant predictor: mean win shares per player count (seat-relative)."""
    return {n: rows.win[rows.players == n].mean(axis=0) for n in np.unique(rows.players).tolist()}


def value_metrics(net: MLP, rows: ValueRows, rates: dict[int, np.ndarray], gold_scale: float
                  ) -> dict[str, Any]:
    """Held-out figures of the value network on the rows of the seat to act
    (what the search evaluates), overall, by player count and by game phase."""
    rows = rows.take(rows.to_act)
    prob, margin, gold = value_prediction(net, rows.x, rows.players, gold_scale)
    constant = np.stack([rates.get(int(n), np.full(MAX_SEATS, 1.0 / n)) for n in rows.players]) \
        if len(rows) else np.zeros((0, MAX_SEATS))
    phase = np.minimum((rows.x[:, PROGRESS] * 3).astype(int), 2)

    def figures(mask: np.ndarray) -> dict[str, Any]:
        part = rows.take(mask)
        out: dict[str, Any] = {"positions": int(mask.sum()), "games": int(len(np.unique(part.deal)))}
        out.update(_win_figures(prob[mask], part, constant[mask]))
        out["margin_mae"] = float(np.abs(margin[mask, 0] - part.margin[:, 0]).mean())
        out["gold_mae"] = float(np.abs(gold[mask, 0] - part.gold[:, 0]).mean())
        searched = ~np.isnan(part.search_win[:, 0])
        if searched.any():
            s = part.take(searched)
            sp = np.clip(s.search_win.astype(np.float64), 0, 1)
            sp = sp / np.maximum(sp.sum(axis=1, keepdims=True), 1e-9)
            fig = _win_figures(sp, s, constant[mask][searched])
            out["search"] = {k: fig[k] for k in ("log_loss", "brier", "brier_skill", "ece")}
        return out

    result = figures(np.ones(len(rows), bool))
    result["by_players"] = {str(n): figures(rows.players == n) for n in sorted(set(rows.players.tolist()))}
    result["by_phase"] = {name: figures(phase == k) for k, name in enumerate(("opening", "middle", "end"))
                          if (phase == k).any()}
    return result


def _agreement(scores: np.ndarray, visits: np.ndarray, start: np.ndarray) -> float:
    """Mean over decisions of the share of the best-scored actions (ties
    split) that are among the most visited."""
    first = start[:-1]
    seg = _segments(start)
    best = scores >= np.maximum.reduceat(scores, first)[seg]
    top = visits >= np.maximum.reduceat(visits, first)[seg]
    hits = np.add.reduceat((best & top).astype(np.float64), first)
    return float((hits / np.add.reduceat(best.astype(np.float64), first)).mean())


def policy_metrics(net: PolicyNet, rows: PolicyRows) -> dict[str, Any]:
    """Held-out cross-entropy against the visits and top-1 agreement with the
    most visited action, for the network, the greedy one-step value's prior
    and uniform priors."""
    if len(rows) == 0:
        return {"decisions": 0}
    logits = net.logits(rows).astype(np.float64)
    greedy = rows.x[:, VALUE_CHANGE].astype(np.float64) * GREEDY_SCALE
    ce, _ = policy_loss(logits, rows.visits, rows.weight, rows.start)
    ce_greedy, _ = policy_loss(greedy, rows.visits, rows.weight, rows.start)
    legal = np.add.reduceat(rows.weight.astype(np.float64), rows.start[:-1])
    return {"decisions": len(rows), "cross_entropy": float(ce.mean()), "top1": _agreement(logits, rows.visits,
                                                                                            rows.start),
            "cross_entropy_greedy": float(ce_greedy.mean()),
            "top1_greedy": _agreement(greedy, rows.visits, rows.start),
            "cross_entropy_uniform": float(np.log(legal).mean())}


# --- the model -----------------------------------------------------------------


def model_arrays(value: MLP, policy: PolicyNet) -> dict[str, np.ndarray]:
    """The arrays of the model file (search/model.py) from the two networks."""
    w, b = value.folded()
    h1 = w[0].shape[0]
    two = len(w) == 3
    return {"w1": w[0], "b1": b[0],
            "w2": w[1] if two else np.zeros((0, h1), F32), "b2": b[1] if two else np.zeros(0, F32),
            "w_out": w[-1], "b_out": b[-1], **policy.arrays()}


def value_network(path: Path | str) -> MLP:
    """The value network of a model file, as an MLP (its standardisation
    folded into the first layer, as the file keeps it)."""
    with np.load(Path(path).with_suffix(".npz")) as data:
        arrays = {key: np.asarray(data[key], F32) for key in ("w1", "b1", "w2", "b2", "w_out", "b_out")}
    two = arrays["w2"].size > 0
    layers = [("w1", "b1")] + ([("w2", "b2")] if two else []) + [("w_out", "b_out")]
    sizes = [arrays["w1"].shape[1]] + [arrays[w].shape[0] for w, _ in layers]
    net = MLP(sizes, np.random.default_rng(0))
    net.weights = [arrays[w] for w, _ in layers]
    net.biases = [arrays[b] for _, b in layers]
    return net


def train(folders: Sequence[Path | str], out: Path | str, config: TrainConfig = TrainConfig(), *,
          name: str = "cacao", version: str = "1", log: Callable[[str], None] = print,
          value_from: Path | str | None = None) -> dict[str, Any]:
    """Train a model on the self-play folders, write it to `out` (.npz and
    .json) and return its manifest. With `value_from` (a model file), keep
    that model's value network and train the policy alone: what a change of
    the policy alone is worth, against that model."""
    started = time.monotonic()
    value, policy, manifests = load_data(folders, config.other_views > 0)
    v_held = held_out_games(value.deal, config.held_out)
    p_held = np.isin(policy.deal, np.unique(value.deal[v_held]))
    test_to_act, p_test = value.take(v_held & value.to_act), policy.take(p_held)
    games = len(np.unique(value.deal[~v_held])), len(np.unique(test_to_act.deal))
    log(f"data: {games[0]} games to train on ({int((~v_held).sum())} value rows, {int((~p_held).sum())} "
        f"decisions), {games[1]} held out ({len(test_to_act)} positions of the seat to act, {len(p_test)} decisions)")
    rng = np.random.default_rng(config.seed)
    rates = base_rates(value.take(~v_held & value.to_act))

    def check_value(net: MLP) -> str:
        m = value_metrics(net, test_to_act, rates, config.gold_scale)
        return (f"log loss {m['log_loss']:.4f} (constant {m['log_loss_constant']:.4f}), "
                f"Brier skill {m['brier_skill']:.3f}, margin MAE {m['margin_mae']:.2f}")

    def check_policy(net: PolicyNet) -> str:
        m = policy_metrics(net, p_test)
        return f"cross-entropy {m['cross_entropy']:.4f}, top-1 {m['top1']:.3f}"

    if value_from is None:
        value_net = train_value(value, ~v_held, config, rng, log, check_value if len(test_to_act) else None)
    else:
        value_net = value_network(value_from)
        log(f"value network kept from {value_from}")
    policy_net = train_policy(policy, ~p_held, config, rng, log, check_policy if len(p_test) else None)
    metrics = {"value": value_metrics(value_net, test_to_act, rates, config.gold_scale),
               "policy": policy_metrics(policy_net, p_test)}
    elapsed = time.monotonic() - started
    manifest = {
        "name": name, "version": version, "gold_scale": config.gold_scale, "seed": config.seed,
        "description": "value: win-share logits, gold margin and final gold per seat from the viewer on; "
                       "policy: a logit per action from its features"
                       + (" and its position's" if config.policy_position else ""),
        "sizes": {"value": value_net.sizes, "policy": policy_net.net.sizes,
                  "parameters": value_net.size + policy_net.size},
        "training": {**config.to_json(), "time_s": round(elapsed, 1), "numpy": np.__version__,
                     "python": platform.python_version(),
                     "value_rows": int((~v_held).sum()), "decisions": int((~p_held).sum()), "games": games[0]},
        "data": [_describe(m, f) for f, m in zip(folders, manifests)],
        "held_out": {"games": games[1], "positions": int(test_to_act.x.shape[0]), "decisions": len(p_test)},
        **({"value_from": str(value_from)} if value_from is not None else {}),
        "metrics": metrics,
    }
    path = save_model(out, model_arrays(value_net, policy_net), manifest)
    log(f"model written to {path} and {path.with_suffix('.json')} in {elapsed:.0f} s")
    log(summary(manifest))
    return json.loads(path.with_suffix(".json").read_text())


def _describe(manifest: dict[str, Any], folder: Path | str) -> dict[str, Any]:
    config = manifest["config"]
    return {"spec": portable_spec(config["spec"], folder), "seed": config["seed"], "players": config["players"],
            "games": manifest["games"], "decisions": manifest["decisions"], "views": manifest["views"],
            "explore_moves": config["explore_moves"], "fast_share": config["fast_share"],
            **({"generation": manifest["generation"]} if "generation" in manifest else {})}


def portable_spec(spec: str, folder: Path | str) -> str:
    """A self-play folder's bot spec as a model's manifest records it: a model
    file named by an absolute path is named relative to the folder instead,
    so that a shipped manifest names no directory of the machine that
    trained it."""
    prefix, colon, settings = spec.partition(":")
    parts = []
    for part in settings.split(",") if settings else []:
        key, _, value = part.partition("=")
        if key == "model" and os.path.isabs(value):
            part = f"model={os.path.relpath(value, Path(folder).resolve())}"
        parts.append(part)
    return prefix + colon + ",".join(parts)


def summary(manifest: dict[str, Any]) -> str:
    """The held-out metrics as a few lines for people."""
    v, p = manifest["metrics"]["value"], manifest["metrics"]["policy"]
    lines = [f"held-out value ({v['positions']} positions of {v['games']} games, the seat to act's view):",
             "  players  log loss (constant)  Brier (constant)  skill   ECE    margin MAE  gold MAE"]
    for key, m in [("all", v), *v["by_players"].items()]:
        lines.append(f"  {key:>7}  {m['log_loss']:.4f} ({m['log_loss_constant']:.4f})    "
                     f"{m['brier']:.4f} ({m['brier_constant']:.4f})  {m['brier_skill']:6.3f}  "
                     f"{m['ece']:.4f}  {m['margin_mae']:8.2f}  {m['gold_mae']:8.2f}")
    for key, m in v["by_phase"].items():
        lines.append(f"  {key:>7}  {m['log_loss']:.4f} ({m['log_loss_constant']:.4f})    "
                     f"{m['brier']:.4f} ({m['brier_constant']:.4f})  {m['brier_skill']:6.3f}  {m['ece']:.4f}")
    if "search" in v:
        s = v["search"]
        lines.append(f"  (the self-play search's own root estimate: log loss {s['log_loss']:.4f}, "
                     f"Brier skill {s['brier_skill']:.3f}, ECE {s['ece']:.4f})")
    if p.get("decisions"):
        lines.append(f"held-out policy ({p['decisions']} decisions): cross-entropy {p['cross_entropy']:.4f} "
                     f"(greedy prior {p['cross_entropy_greedy']:.4f}, uniform {p['cross_entropy_uniform']:.4f}), "
                     f"top-1 agreement {p['top1']:.3f} (greedy {p['top1_greedy']:.3f})")
    return "\n".join(lines)


# --- the pipeline ---------------------------------------------------------------


@dataclass(frozen=True)
class Generation:
    """One round of self-play: `spec` may name the model trained before it as {model}."""

    spec: str
    games: int
    seed: int


@dataclass(frozen=True)
class Pipeline:
    generations: tuple[Generation, ...]
    players: tuple[int, ...]
    games_per_shard: int
    explore_moves: int
    unvisited: int
    fast_share: float
    fast_iterations: int
    train: TrainConfig
    between: TrainConfig        # the models that only play the next generation


# The shipped model: generation 0 by the search without a model (its preset, so
# that a pipeline from nothing needs no model), then one with the model. (The
# shipped cacao-1 is trained on generation 0 alone, played as
# "mcts:iterations=1000" when that spec meant the search without a model.)
PIPELINE = Pipeline(
    generations=(Generation(f"{NO_MODEL_NAME}:iterations=1000", 16000, 1),
                 Generation("mcts:iterations=1000,value=0.5,prior=model,puct=1.5,model={model}", 12000, 2)),
    players=(2, 3, 2, 4), games_per_shard=100, explore_moves=3, unvisited=8, fast_share=0.5,
    fast_iterations=200, train=TrainConfig(), between=TrainConfig(epochs=8, policy_epochs=4))

# Seconds, for tests and trying the command out.
TINY_PIPELINE = Pipeline(
    generations=(Generation(f"{NO_MODEL_NAME}:iterations=40", 16, 1),
                 Generation("mcts:iterations=40,value=0.5,prior=model,puct=1.5,model={model}", 8, 2)),
    players=(2, 3, 2, 4), games_per_shard=4, explore_moves=2, unvisited=4, fast_share=0.5,
    fast_iterations=10, train=TINY, between=TINY)


def pipeline(out: Path | str, work: Path | str, plan: Pipeline = PIPELINE, *, processes: int | None = None,
             ray_address: str | None = None, name: str = "cacao", version: str = "1",
             log: Callable[[str], None] = print, progress: bool = True) -> dict[str, Any]:
    """Self-play and train generation after generation; the last model goes to `out`."""
    work = Path(work)
    started = time.monotonic()
    folders: list[Path] = []
    model = ""
    manifest: dict[str, Any] = {}
    for k, gen in enumerate(plan.generations):
        spec = gen.spec.format(model=model)
        folder = work / f"gen{k}"
        play = SelfPlayConfig(spec=spec, games=gen.games, players=plan.players, seed=gen.seed,
                              games_per_shard=plan.games_per_shard, explore_moves=plan.explore_moves,
                              unvisited=plan.unvisited, fast_share=plan.fast_share,
                              fast_iterations=plan.fast_iterations, extra={"generation": k})
        log(f"[{_clock(started)}] generation {k}: {gen.games} games of {spec} into {folder}")
        played = selfplay(play, folder, processes, ray_address, progress)
        log(f"[{_clock(started)}] generation {k}: {played['games']} games, {played['decisions']} decisions, "
            f"{played['views']} other views")
        folders.append(folder)
        last = k == len(plan.generations) - 1
        target = Path(out) if last else work / f"model-gen{k}"
        config = plan.train if last else plan.between
        kept = _trained(target, folders, config)
        if kept and not last:
            manifest = kept
            log(f"[{_clock(started)}] {target} is trained on these games already: kept")
        else:
            log(f"[{_clock(started)}] training on generations 0-{k} into {target}")
            manifest = train(folders, target, config, name=name, version=version if last else f"{version}-gen{k}",
                             log=lambda line: log(f"[{_clock(started)}]   {line}"))
        model = str(target.with_suffix(".npz").resolve())
    log(f"[{_clock(started)}] done")
    return manifest


def _trained(target: Path, folders: Sequence[Path], config: TrainConfig) -> dict[str, Any] | None:
    """The manifest of the model at `target` when it was trained on these
    folders' games with this config (training is deterministic), else None."""
    path = target.with_suffix(".json")
    if not path.exists() or not target.with_suffix(".npz").exists():
        return None
    manifest = json.loads(path.read_text())
    data = [_describe(json.loads((Path(f) / "selfplay.json").read_text()), f) for f in folders]
    before = TrainConfig().to_json()          # a setting newer than the model: it was trained with its default
    training = {key: manifest.get("training", {}).get(key, before[key]) for key in config.to_json()}
    if manifest.get("data") != data or training != config.to_json():
        return None
    return dict(manifest)


def _clock(started: float) -> str:
    s = int(time.monotonic() - started)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def add_network_options(parser: argparse.ArgumentParser, defaults: TrainConfig) -> None:
    """The flags that shape the networks and their value target (cacao-train's
    and cacao-generations'); :func:`network_changes` reads them."""
    parser.add_argument("--hidden", default=None,
                        help="the value network's hidden layers, e.g. 64,32 or 64 (default "
                             f"{','.join(str(h) for h in defaults.hidden if h)})")
    parser.add_argument("--policy-hidden", type=int, default=None,
                        help=f"the policy network's hidden layer (default {defaults.policy_hidden})")
    parser.add_argument("--policy-position", action="store_true", default=None,
                        help="the policy network's hidden layer sees the position's features too, not only "
                             "the action's (default: " + ("on" if defaults.policy_position else "off") + ")")
    parser.add_argument("--search-target", type=float, default=None,
                        help="share of the self-play search's root win probabilities in the value target "
                             f"(default {defaults.search_target:g}; 0: the games' results only)")


def network_changes(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """The TrainConfig fields that :func:`add_network_options`' flags change
    (parser.error naming the flag on a bad value)."""
    changes: dict[str, Any] = {}
    if args.hidden:
        try:
            layers = [int(h) for h in args.hidden.split(",")]
        except ValueError:
            parser.error(f"--hidden: widths separated by commas, e.g. 64,32, got {args.hidden!r}")
        if not 1 <= len(layers) <= 2 or min(layers) < 1:
            parser.error(f"--hidden: one or two positive widths, got {args.hidden!r}")
        changes["hidden"] = (layers[0], layers[1] if len(layers) > 1 else 0)
    if args.policy_hidden is not None:
        if args.policy_hidden < 1:
            parser.error(f"--policy-hidden: must be positive, got {args.policy_hidden}")
        changes["policy_hidden"] = args.policy_hidden
    if args.policy_position:
        changes["policy_position"] = True
    if args.search_target is not None:
        if not 0 <= args.search_target <= 1:
            parser.error(f"--search-target: {args.search_target} is not between 0 and 1")
        changes["search_target"] = args.search_target
    return changes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cacao-train", description="Train the learned evaluation (numpy) from self-play.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Training is deterministic for a seed and the data; the manifest (.json) records the data,\n"
               "the settings and the held-out metrics (docs/search.md, 'The learned evaluation').\n\n"
               "examples:\n"
               "  cacao-train out/pipeline/gen0 --out search/models/cacao          # the shipped model\n"
               "  cacao-train out/sp out/sp2 --out out/model --hidden 64 --epochs 4\n"
               "  cacao-train --pipeline --out out/model --work out/pipeline      # self-play, then train\n"
               "  cacao-train --pipeline --generations 1 --out out/cacao          # the shipped weights\n"
               "  cacao-train --pipeline --tiny --out out/tiny --work out/tiny-work  # seconds")
    add_version_option(parser)
    parser.add_argument("data", nargs="*", help="self-play folders (cacao-selfplay --out)")
    parser.add_argument("--out", required=True, help="the model's path (.npz, and .json beside it)")
    parser.add_argument("--pipeline", action="store_true",
                        help="self-play and train from nothing, generation after generation")
    parser.add_argument("--generations", type=int, default=None,
                        help="with --pipeline: play and train only the first N generations (1: the shipped "
                             "model's weights, trained on generation 0)")
    parser.add_argument("--work", default="out/pipeline", help="the pipeline's self-play folders and models")
    parser.add_argument("--tiny", action="store_true", help="tiny networks (and a tiny pipeline): seconds")
    parser.add_argument("--processes", type=int, default=None, help="self-play processes (default: one per core)")
    parser.add_argument("--ray", metavar="ADDRESS", nargs="?", const="local", default=None,
                        help="self-play on a Ray cluster (see cacao-selfplay)")
    parser.add_argument("--seed", type=int, default=None, help="training seed (default 1)")
    add_network_options(parser, PIPELINE.train)
    parser.add_argument("--epochs", type=int, default=None,
                        help=f"passes over the value rows (default {PIPELINE.train.epochs})")
    parser.add_argument("--policy-epochs", type=int, default=None,
                        help=f"passes over the decisions (default {PIPELINE.train.policy_epochs})")
    parser.add_argument("--other-views", type=float, default=None,
                        help="weight of the views of seats not to act (default 1)")
    parser.add_argument("--name", default="cacao", help="the model's name in its manifest (default cacao)")
    parser.add_argument("--model-version", default="1",
                        help="the model's version in its manifest, which GetServerInfo reports (default 1)")
    parser.add_argument("--value-from", metavar="MODEL", default=None,
                        help="keep this model's value network (a .npz) and train the policy alone")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)
    plan = TINY_PIPELINE if args.tiny else PIPELINE
    config = plan.train
    changes = network_changes(args, parser)
    if args.seed is not None:
        changes["seed"] = args.seed
    for key in ("epochs", "policy_epochs", "other_views"):
        if getattr(args, key) is not None:
            changes[key] = getattr(args, key)
    config = replace(config, **changes)
    log: Callable[[str], None] = (lambda line: None) if args.quiet else (lambda line: print(line, flush=True))
    try:
        if args.pipeline:
            if args.data:
                parser.error("--pipeline plays its own data: give no folders")
            if args.value_from is not None:
                parser.error("--value-from: trains on folders, not with --pipeline")
            if args.generations is not None:
                if not 1 <= args.generations <= len(plan.generations):
                    parser.error(f"--generations: {args.generations} is not between 1 and "
                                 f"{len(plan.generations)}, the pipeline's generations")
                plan = replace(plan, generations=plan.generations[:args.generations])
            plan = replace(plan, train=config)
            manifest = pipeline(args.out, args.work, plan, processes=args.processes, ray_address=args.ray,
                                name=args.name, version=args.model_version, log=log, progress=not args.quiet)
        else:
            if not args.data:
                parser.error("give self-play folders, or --pipeline")
            if args.value_from is not None and not Path(args.value_from).with_suffix(".npz").exists():
                parser.error(f"--value-from: no model file {args.value_from}")
            manifest = train(args.data, args.out, config, name=args.name, version=args.model_version, log=log,
                             value_from=args.value_from)
    except ValueError as exc:
        parser.error(str(exc))
    if args.quiet:
        print(summary(manifest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
