"""Does the board's layout tell the value network what the 148 features do not?

Trains, on the same decisions of a self-play run and the same held-out
games, a value network over ``Position.features`` alone and the same network
fed also by a small convolution over the board's cells (``lab/cells.py``),
and prints each one's held-out cross-entropy against the search's root win
probability (the generation loop's value target) and against the games'
results (docs/decisions/network.md, "The board as cells").

    pip install -e '.[experiments]'       # jax and optax: the convolution's gradients
    python benchmarks/cells_value.py /path/to/selfplay --cache cells.npz --epochs 20
    python benchmarks/cells_value.py /path/to/selfplay --cache cells.npz --teacher-repeat 4000
    python benchmarks/cells_value.py /path/to/selfplay --cache cells.npz --only features --lookahead

The target is the seat to act's win probability alone (one sigmoid), not the
model's twelve outputs: enough to compare what the inputs carry. Training
draws one of the board's four quarter turns per row (``--no-turns`` keeps
north fixed). ``--teacher-repeat N`` searches N held-out decisions again
with the run's own search spec and another seed, and scores that second
search as the networks are scored: how far the target repeats itself.
``--lookahead`` adds four inputs a ply deep: the mover's best one-step gains
(:func:`lookahead`).
"""
from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cacaoai.engine import Position
from cacaoai.engine.features import ACTION_FEATURES
from cacaoai.lab.cells import CODES, decision_cells, rotate_cells
from cacaoai.lab.selfplay import load_shards
from cacaoai.search.bots import MCTSBot, parse_bot
from cacaoai.search.driver import search
from cacaoai.search.request import Question


def load(folders: Sequence[str], cache: str | None) -> dict[str, np.ndarray]:
    """The runs' decisions with their cells, from `cache` when it exists
    (game numbers of the second run on counted on past the first's)."""
    if cache and Path(cache).exists():
        with np.load(cache) as saved:
            return dict(saved)
    runs = [decision_cells(folder) for folder in folders]
    for i, run in enumerate(runs[1:], 1):
        run["game"] = run["game"] + sum(int(r["game"].max()) + 1 for r in runs[:i])
    data = {name: np.concatenate([run[name] for run in runs]) for name in runs[0]}
    if cache:
        np.savez(cache, **data)
    return data


LOOKAHEAD = ("value_change", "value_change", "gold", "temple_change")   # the best, the second best, the best, the best


def lookahead(folders: Sequence[str]) -> np.ndarray:
    """Per decision, the mover's best one-step gains among the actions its
    shard records (every legal action in about half the decisions; else the
    ones the search visited and 8 others): the best and second-best change of
    the greedy one-step value, the most gold and the best temple change."""
    arrays = load_shards(folders, ("a_start", "a_x"))[0]
    start, counts = arrays["a_start"][:-1], np.diff(arrays["a_start"])
    if (counts == 0).any():
        raise ValueError("a decision without recorded actions: no best gain to read")
    a = arrays["a_x"][:, [ACTION_FEATURES.index(name) for name in LOOKAHEAD]]
    first = np.maximum.reduceat(a, start, axis=0)
    owner = np.repeat(np.arange(len(counts)), counts)
    ranked = a[np.lexsort((-a[:, 0], owner)), 0]          # each decision's value changes, best first
    first[:, 1] = np.where(counts > 1, ranked[np.minimum(start + 1, len(a) - 1)], first[:, 0])
    return first.astype(np.float32)


def held_out(games: np.ndarray, share: float, seed: int) -> np.ndarray:
    """Rows whose game is among a random `share` of the games."""
    unique = np.unique(games)
    chosen = np.random.default_rng(seed).choice(unique, int(round(share * len(unique))), replace=False)
    return np.isin(games, chosen)


def cross_entropy(target: np.ndarray, p: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(np.mean(-(target * np.log(p) + (1 - target) * np.log(1 - p))))


def train(data: dict[str, np.ndarray], cells: bool, args: argparse.Namespace) -> dict[str, Any]:
    """Train one network; its held-out figures."""
    import jax
    import jax.numpy as jnp
    import optax

    x = data["x"].astype(np.float32)
    grid = data["cells"]
    target = data["search_win"][:, 0].astype(np.float32)
    result = data["win"][:, 0].astype(np.float32)
    test = held_out(data["game"], args.held_out, args.seed)
    mean, std = x[~test].mean(0), x[~test].std(0) + 1e-3
    x = (x - mean) / std
    keys = iter(jax.random.split(jax.random.PRNGKey(args.seed), 8))

    def dense(n_in: int, n_out: int) -> tuple[Any, Any]:
        return jax.random.normal(next(keys), (n_in, n_out)) * np.sqrt(2.0 / n_in), jnp.zeros(n_out)

    params: dict[str, Any] = {}
    width = x.shape[1]
    if cells:
        ch = args.channels
        params["embed"] = jax.random.normal(next(keys), (CODES, ch)) * 0.5
        for layer in range(args.layers):
            params[f"conv{layer}"] = jax.random.normal(next(keys), (3, 3, ch, ch)) * np.sqrt(2.0 / (9 * ch))
            params[f"conv{layer}_b"] = jnp.zeros(ch)
        width += 2 * ch                                  # the cells' sum and max
    h1, h2 = args.hidden
    params["w1"], params["b1"] = dense(width, h1)
    params["w2"], params["b2"] = dense(h1, h2)
    params["w3"], params["b3"] = dense(h2, 1)

    def forward(p: dict[str, Any], xb: Any, cb: Any) -> Any:
        parts = [xb]
        if cells:
            h = p["embed"][cb]                           # B x W x W x channels
            for layer in range(args.layers):
                h = jax.nn.relu(jax.lax.conv_general_dilated(
                    h, p[f"conv{layer}"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
                    + p[f"conv{layer}_b"])
            parts += [h.sum((1, 2)) / 16.0, h.max((1, 2))]
        z = jnp.concatenate(parts, 1)
        z = jax.nn.relu(z @ p["w1"] + p["b1"])
        z = jax.nn.relu(z @ p["w2"] + p["b2"])
        return (z @ p["w3"] + p["b3"])[:, 0]

    rows = np.flatnonzero(~test)
    if args.train_share < 1:                             # a learning curve: fewer training games
        rows = rows[held_out(data["game"][rows], args.train_share, args.seed + 1)]
    steps = args.epochs * (len(rows) // args.batch)
    opt = optax.adamw(optax.cosine_decay_schedule(args.lr, steps, alpha=0.05), weight_decay=args.weight_decay)
    state = opt.init(params)

    @jax.jit
    def step(p: dict[str, Any], s: Any, xb: Any, cb: Any, yb: Any) -> tuple[Any, Any, Any]:
        loss, grad = jax.value_and_grad(
            lambda q: jnp.mean(optax.sigmoid_binary_cross_entropy(forward(q, xb, cb), yb)))(p)
        updates, s = opt.update(grad, s, p)
        return optax.apply_updates(p, updates), s, loss

    predict = jax.jit(forward)
    rng = np.random.default_rng(args.seed)
    started = time.process_time()
    for epoch in range(args.epochs):
        rng.shuffle(rows)
        losses = []
        for k in range(len(rows) // args.batch):
            batch = np.sort(rows[k * args.batch:(k + 1) * args.batch])
            cb = grid[batch]
            if cells and args.turns:
                cb = rotate_cells(cb, rng.integers(0, 4, len(batch)))
            params, state, loss = step(params, state, x[batch], cb.astype(np.int32), target[batch])
            losses.append(float(loss))
        print(f"  {'cells' if cells else 'features'} epoch {epoch + 1}/{args.epochs}: "
              f"train {np.mean(losses):.4f}", flush=True)
    idx = np.flatnonzero(test)
    p = np.concatenate([1 / (1 + np.exp(-np.asarray(predict(params, x[j], grid[j].astype(np.int32)))))
                        for j in np.array_split(idx, max(1, len(idx) // 4096))])
    out = {"train": float(np.mean(losses)), "cpu_s": time.process_time() - started,
           "search": cross_entropy(target[idx], p), "result": cross_entropy(result[idx], p),
           "floor": cross_entropy(target[idx], target[idx]), "teacher": cross_entropy(result[idx], target[idx])}
    for n in (2, 3, 4):
        m = data["players"][idx] == n
        out[f"search_{n}p"] = cross_entropy(target[idx][m], p[m]) if m.any() else float("nan")
    return out


def teacher_repeat(folder: str, data: dict[str, np.ndarray], count: int, args: argparse.Namespace
                   ) -> dict[str, float]:
    """The run's search again, another seed, on `count` held-out decisions,
    scored against the recorded search and the results."""
    manifest = json.loads((Path(folder) / "selfplay.json").read_text())
    bot = parse_bot(manifest["config"]["spec"])
    assert isinstance(bot, MCTSBot)
    test = np.flatnonzero(held_out(data["game"], args.held_out, args.seed))
    rows = np.sort(np.random.default_rng(args.seed + 2).choice(test, min(count, len(test)), replace=False))
    records = {}                                          # game -> its record's line, for the shards needed
    for shard in manifest["shards"]:
        games = range(*shard["games"])
        if np.isin(data["game"][rows], games).any():
            records.update(zip(games, (Path(folder) / shard["records"]).read_text().splitlines()))
    second = np.zeros(len(rows))
    for i, row in enumerate(rows):
        game, ply, seat = int(data["game"][row]), int(data["ply"][row]), int(data["seat"][row])
        position = Position.from_record(records[game], upto=ply)
        win = search(position, bot.limit, bot.settings, seed=10**9 + int(row),
                     question=Question(multipv=0)).win_probability
        second[i] = win[seat] if win is not None else 1.0 / position.players
    first, result = data["search_win"][rows, 0], data["win"][rows, 0]
    return {"rows": len(rows), "floor": cross_entropy(first, first), "second": cross_entropy(first, second),
            "first_results": cross_entropy(result, first), "second_results": cross_entropy(result, second)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("selfplay", nargs="+", help="cacao-selfplay folders whose shards keep their records")
    parser.add_argument("--cache", help="npz of the decisions and their cells (written once, then read)")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--weight-decay", type=float, default=1e-4)
    parser.add_argument("--hidden", type=int, nargs=2, default=(64, 32), help="the value network's two layers")
    parser.add_argument("--channels", type=int, default=16, help="channels of the cells' convolutions")
    parser.add_argument("--layers", type=int, default=2, help="3 x 3 convolutions over the cells")
    parser.add_argument("--no-turns", dest="turns", action="store_false",
                        help="train on the board as it lies (no quarter turns)")
    parser.add_argument("--held-out", type=float, default=0.1, help="share of the games held out")
    parser.add_argument("--train-share", type=float, default=1.0,
                        help="train on this share of the training games (the same held-out games)")
    parser.add_argument("--only", choices=["features", "cells"], help="train one network of the two")
    parser.add_argument("--teacher-repeat", type=int, metavar="N",
                        help="instead of training: search N held-out decisions again (another seed)")
    parser.add_argument("--lookahead", action="store_true",
                        help="add to the features the mover's best one-step gains (LOOKAHEAD)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    data = load(args.selfplay, args.cache)
    if args.lookahead:
        data["x"] = np.concatenate([data["x"], lookahead(args.selfplay)], axis=1)
    if args.teacher_repeat:
        if len(args.selfplay) > 1:
            parser.error("--teacher-repeat: give one self-play folder")
        r = teacher_repeat(args.selfplay[0], data, args.teacher_repeat, args)
        print(f"{r['rows']} held-out decisions searched again: against the recorded search {r['second']:.4f} "
              f"(its own entropy {r['floor']:.4f}); against the results {r['second_results']:.4f} "
              f"(the recorded search {r['first_results']:.4f})")
        return 0
    print(f"{len(data['x'])} decisions of {len(np.unique(data['game']))} games; training on "
          f"{args.train_share:.0%} of {1 - args.held_out:.0%} of them", flush=True)
    results = {name: train(data, name == "cells", args) for name in ("features", "cells")
               if args.only in (None, name)}
    print("| inputs | train | held out: against the search | 2 / 3 / 4 players | against the results | CPU s |")
    print("|---|---:|---:|---|---:|---:|")
    suffix = " + look-ahead" if args.lookahead else ""
    for name, r in results.items():
        print(f"| {name}{suffix} | {r['train']:.4f} | {r['search']:.4f} | {r['search_2p']:.4f} / "
              f"{r['search_3p']:.4f} / {r['search_4p']:.4f} | {r['result']:.4f} | {r['cpu_s']:.0f} |")
    first = next(iter(results.values()))
    print(f"(the search's own entropy, the least a network can reach: {first['floor']:.4f}; "
          f"the search against the results: {first['teacher']:.4f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
