"""cacao-generations: the self-play generation loop, gated by SPRT matches.

    cacao-generations --work out/loop --generations 10
    cacao-generations --work out/loop --generations 12            # the same run, two generations more
    cacao-generations --work out/loop --markdown                  # the table, playing nothing
    cacao-generations --work out/loop --svg elo.svg               # the Elo curve as a picture
    cacao-generations --work out/loop --export lab/models/candidate.npz   # the current model, to go on from
    cacao-generations --work /tmp/gen-work --generations 1 --tiny --games 4 --selfplay-budget 16 \\
        --gate-iterations 8 --gate-games 8                         # seconds

Generation 0 is the model the loop starts from (``--initial``, the shipped
``cacao`` by default); it is the first *current* model. Generation k (1, 2,
...) is four steps, each recorded in ``state.json`` once it is done:

1. **self-play**: ``--games`` games (2, 3, 2, 4 players in turn) of
   ``mcts:iterations=BUDGET,model=CURRENT`` (``--selfplay-budget``, default
   1000: more than ``strong``'s 300), with cacao-selfplay's exploration: each
   seat's first ``--explore-moves`` decisions draw their action by
   visits^(1/``--temperature``), and ``--fast-share`` of the other moves are
   searched with ``--fast-iterations`` only and recorded for the value alone
   (KataGo's playout-cap randomisation). Into ``genK/selfplay/``.
2. **training**: a new value and policy network from scratch by cacao-train's
   :func:`~cacaoai.lab.train.train` on the self-play of the last ``--window``
   generations (k-W+1 .. k; generation 0's games are ``--gen0-data`` when
   given). The policy learns the search's root visit distributions; the
   value, by default, the search's root win probabilities
   (``--search-target 1.0``; 0 gives the games' results), which are the
   endgame solver's exact values where it proved a 2-player position. The
   networks are cacao-train's unless ``--hidden`` or ``--policy-hidden``
   say otherwise.
   Into ``genK/model.npz`` (and its ``.json``).
3. **gate**: an SPRT match of 2-player games at equal time per move
   (``--gate-time``; ``--gate-iterations`` for equal iterations) between the
   candidate and the current model, by cacao-ladder's
   :func:`~cacaoai.lab.ladder.run_sprt` (pentanomial game pairs, H0 ``elo0``,
   H1 ``elo1``, ``--sprt elo0,elo1,alpha,beta``, at most ``--gate-games``).
   The games go to ``genK/gate.jsonl``.
4. **promotion**: only a candidate whose SPRT accepts H1 becomes current; one
   that accepts H0, or runs out of games undecided, is kept on disk and not
   promoted, and the next generation plays with the same current model.

Elo against generation 0 is chained along the promoted models: a candidate's
is its current model's plus its gate match's Elo estimate (the mean score of
the game pairs), with the 95% intervals' half-widths added in quadrature.
Generation 0 is at 0 exactly.

**Resuming.** ``state.json`` is replaced whole (a temporary file, then
``os.replace``) after every step. Running the same command again skips the
steps it lists as done and redoes the one that was under way: cacao-selfplay
keeps only the shards its manifest lists (each written whole), training
starts again (it is deterministic), and the gate keeps the games already
whole in ``gate.jsonl`` (cacao-ladder's results file, a game a line) and
plays on. A run with other settings than the ones ``state.json`` holds is
refused, naming the flags; ``--generations`` may grow. The files a step
produced are checked on resume (the self-play manifest complete, the model's
SHA-256 as recorded). One loop runs in a work folder at a time (a lock,
released when its process ends, however it ends).

**Runs that go on from an earlier run.** A run's folder (its games) lives
only as long as its machine; ``--export FILE.npz`` writes the current model
with a ``loop`` record in its manifest: the generations of every run that led
to it, numbered from the first run's generation 0, with their gates and Elo.
A run whose ``--initial`` is such a file counts on from it: its generation 0
is the exported generation, its generation k is numbered after the last
generation of the runs before, and its Elo is chained on (the table and the
curve show every run's generations). The record is read once, into
``state.json`` at the run's start (the file may later carry this run's
generations too). A run from a shipped name counts from 0: the shipped
model's Elo is the reference.

Games run on local processes (``--processes``) or on Ray (``--ray ADDRESS``),
self-play and gate alike; training runs in this process.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from cacaoai.engine import derive_seed
from cacaoai.engine.cli import add_version_option
from cacaoai.search.model import model_path

from .ladder import run_sprt
from .ratings import SPRT
from .selfplay import SelfPlayConfig
from .selfplay import run as selfplay_run
from .train import TINY, TrainConfig, add_network_options, network_changes, train

__all__ = ["FORMAT", "LoopConfig", "data_window", "export", "history", "main", "markdown", "read_state", "run",
           "svg"]

FORMAT = "cacao-generations/1"
SELFPLAY_STREAM = 0x6E5F      # the seeds of generation k's self-play
GATE_STREAM = 0x6A7E          # the seeds of generation k's gate
STATE = "state.json"

Play = Callable[..., dict[str, Any]]       # cacao-selfplay's run(config, out, processes, ray_address, progress)
Fit = Callable[..., dict[str, Any]]        # cacao-train's train(folders, out, config, name=, version=, log=)
Gate = Callable[..., dict[str, Any]]       # cacao-ladder's run_sprt(a, b, test, seed=, max_games=, ...)


#: The loop's networks: cacao-train's, with the self-play search's root win
#: probabilities as the value target (docs/decisions/network.md: the only
#: target of those tried whose network passed its gate).
LOOP_TRAIN = replace(TrainConfig(), search_target=1.0)


@dataclass(frozen=True)
class LoopConfig:
    """What the loop does; ``state.json`` records it, and a resumed run must give the same.

    Attributes:
        games: self-play games per generation.
        window: generations whose self-play the candidate trains on.
        players: self-play player counts, taken in turn.
        selfplay_budget: iterations per self-play move.
        explore_moves: each seat's first decisions drawn by visits.
        temperature: those draws are by visits ** (1 / temperature).
        fast_share: share of the other moves searched with fast_iterations
            and recorded for the value only.
        fast_iterations: their budget.
        gate_games: most games of a gate match (pairs of games on one deal).
        gate_time: seconds per move of both sides in the gate.
        gate_iterations: iterations per move instead of a time (deterministic).
        sprt: elo0, elo1, alpha, beta of the gate's SPRT (pentanomial).
        initial: generation 0's model: a shipped name or a .npz path.
        gen0_data: generation 0's self-play folders, joined by os.pathsep, or "" (none).
        seed: the seed of every generation's self-play and gate.
        train: the networks and their training.
    """

    games: int = 4000
    window: int = 4
    players: tuple[int, ...] = (2, 3, 2, 4)
    selfplay_budget: int = 1000
    explore_moves: int = 3
    temperature: float = 1.0
    fast_share: float = 0.5
    fast_iterations: int = 200
    gate_games: int = 600
    gate_time: float | None = 0.05
    gate_iterations: int | None = None
    sprt: tuple[float, float, float, float] = (-10.0, 10.0, 0.05, 0.05)
    initial: str = "cacao"
    gen0_data: str = ""
    seed: int = 1
    train: TrainConfig = field(default_factory=lambda: LOOP_TRAIN)

    def __post_init__(self) -> None:
        for flag, value in (("--games", self.games), ("--window", self.window),
                            ("--selfplay-budget", self.selfplay_budget), ("--gate-games", self.gate_games),
                            ("--fast-iterations", self.fast_iterations)):
            if value < 1:
                raise ValueError(f"{flag}: must be positive, got {value}")
        if self.gate_games < 2:
            raise ValueError(f"--gate-games: a gate plays pairs of games, at least 2, got {self.gate_games}")
        if (self.gate_time is None) == (self.gate_iterations is None):
            raise ValueError("--gate-time, --gate-iterations: give one of them")
        if self.gate_time is not None and not self.gate_time > 0:
            raise ValueError(f"--gate-time: must be positive seconds, got {self.gate_time}")
        if self.gate_iterations is not None and self.gate_iterations < 1:
            raise ValueError(f"--gate-iterations: must be positive, got {self.gate_iterations}")
        if len(self.sprt) != 4:
            raise ValueError(f"--sprt: elo0,elo1,alpha,beta, got {self.sprt!r}")
        try:
            _ = self.test
        except ValueError as exc:
            raise ValueError(f"--sprt: {exc}") from None
        if not 0 <= self.seed < 2**64:
            raise ValueError(f"--seed: must be in 0..2**64-1, got {self.seed}")
        _spec_safe("--initial", self.initial)
        if not model_path(self.initial).exists():
            raise ValueError(f"--initial: no model {self.initial!r} (a shipped name such as cacao, or a .npz path)")
        try:                   # cacao-selfplay's own checks of the rest, with its words
            self.selfplay(1, self.initial)
        except ValueError as exc:
            raise ValueError(f"self-play settings (--players, --explore-moves, --temperature, "
                             f"--fast-share): {exc}") from None

    @property
    def test(self) -> SPRT:
        """The gate's SPRT."""
        elo0, elo1, alpha, beta = self.sprt
        return SPRT(elo0, elo1, alpha, beta)

    def selfplay(self, generation: int, model: str) -> SelfPlayConfig:
        """Generation `generation`'s self-play, with the current model `model`."""
        return SelfPlayConfig(spec=f"mcts:iterations={self.selfplay_budget},model={model}", games=self.games,
                              players=self.players, seed=derive_seed(derive_seed(self.seed, SELFPLAY_STREAM),
                                                                     generation),
                              games_per_shard=max(1, min(25, self.games // 8)), explore_moves=self.explore_moves,
                              temperature=self.temperature, unvisited=8, fast_share=self.fast_share,
                              fast_iterations=self.fast_iterations, extra={"generation": generation})

    def gate_spec(self, model: str) -> str:
        """The gate's bot of a model: equal time (or equal iterations) for both sides."""
        budget = f"time={self.gate_time}" if self.gate_time is not None else f"iterations={self.gate_iterations}"
        return f"mcts:{budget},model={model}"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["players"] = list(self.players)
        out["sprt"] = list(self.sprt)
        out["train"] = self.train.to_json()
        return out


# the flag of each setting, for the message that refuses a resumed run with other settings
FLAGS = {"games": "--games", "window": "--window", "players": "--players", "selfplay_budget": "--selfplay-budget",
         "explore_moves": "--explore-moves", "temperature": "--temperature", "fast_share": "--fast-share",
         "fast_iterations": "--fast-iterations", "gate_games": "--gate-games", "gate_time": "--gate-time",
         "gate_iterations": "--gate-iterations", "sprt": "--sprt", "initial": "--initial",
         "gen0_data": "--gen0-data", "seed": "--seed",
         "train": "--tiny, --hidden, --policy-hidden, --policy-position, --search-target"}


def _spec_safe(flag: str, path: str) -> None:
    """A model path goes into a bot spec: it may hold neither ',' nor '='."""
    if "," in path or "=" in path:
        raise ValueError(f"{flag}: {path!r} holds ',' or '=', which a bot spec cannot carry")


# --- the data window ------------------------------------------------------------------------


def data_window(generation: int, window: int, gen0_data: str = "") -> list[int]:
    """The generations whose self-play generation `generation`'s candidate
    trains on: the last `window` up to it, generation 0 only with its data."""
    first = max(generation - window + 1, 0 if gen0_data else 1)
    return list(range(first, generation + 1))


def _selfplay_folders(work: Path, generation: int, config: LoopConfig) -> list[Path]:
    """Generation `generation`'s self-play: its folder, or generation 0's folders."""
    if generation == 0:
        return [Path(folder) for folder in config.gen0_data.split(os.pathsep) if folder]
    return [work / f"gen{generation}" / "selfplay"]


# --- state ----------------------------------------------------------------------------------


def read_state(work: Path | str) -> dict[str, Any]:
    """The loop's state in `work` (ValueError when there is none)."""
    path = Path(work) / STATE
    if not path.exists():
        raise ValueError(f"--work: {work} holds no {STATE} (no generation loop ran there)")
    state: dict[str, Any] = json.loads(path.read_text())
    if state.get("format") != FORMAT:
        raise ValueError(f"--work: {path} is not a {FORMAT} state")
    return state


def _write_state(work: Path, state: dict[str, Any]) -> None:
    """Replace state.json at once: a reader (or a resumed run) never sees half of it."""
    temporary = work / (STATE + ".tmp")
    temporary.write_text(json.dumps(state, indent=1) + "\n")
    os.replace(temporary, work / STATE)


def _with_defaults(recorded: dict[str, Any]) -> dict[str, Any]:
    """A run's recorded settings, with the default of every setting added since
    it started: such a run goes on with the default it played with."""
    defaults = LoopConfig().to_json()
    return {**defaults, **recorded, "train": {**defaults["train"], **recorded.get("train", {})}}


def _start(work: Path, config: LoopConfig, command: str) -> dict[str, Any]:
    """The state to go on from: the one in `work` (with the same settings), or a new one."""
    if (work / STATE).exists():
        state = read_state(work)
        recorded = _with_defaults(state["config"])
        differ = [FLAGS.get(key, key) for key, value in config.to_json().items() if recorded.get(key) != value]
        if differ:
            raise ValueError(f"{work} was started with other settings ({', '.join(differ)}): give the same "
                             f"ones as `{state['command']}`, or a new --work")
        if command:                # the table shows the last command, which also says how far it went
            state["command"] = command
        return state
    state = {"format": FORMAT, "command": command or f"cacao-generations --work {work}", "config": config.to_json(),
             "current": {"generation": 0, "model": config.initial, "elo": 0.0, "ci95": [0.0, 0.0]},
             "generations": [], "lineage": _manifest_loop(config.initial)}
    _write_state(work, state)
    return state


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _check_done(work: Path, entry: dict[str, Any]) -> None:
    """What a finished step left must still be there as it was: a run is
    never built on files that changed under it."""
    k = entry["generation"]
    if "selfplay" in entry:
        manifest = work / entry["selfplay"]["folder"] / "selfplay.json"
        if not manifest.exists() or not json.loads(manifest.read_text()).get("complete"):
            raise ValueError(f"{manifest}: generation {k}'s self-play is recorded as done but its manifest is "
                             "gone or incomplete: restore it, or start a new --work")
    if "trained" in entry:
        model = work / entry["trained"]["model"]
        if not model.exists() or _sha256(model) != entry["trained"]["sha256"]:
            raise ValueError(f"{model}: generation {k}'s model changed since it was trained: restore it, "
                             "or start a new --work")


# --- Elo --------------------------------------------------------------------------------------


def _number(value: float) -> float | None:
    """JSON has no infinities: a perfect score's Elo is kept as None."""
    return float(value) if math.isfinite(value) else None


def chained_elo(current: dict[str, Any], gate: dict[str, Any]) -> tuple[float | None, list[float | None]]:
    """A candidate's Elo against generation 0: its current model's plus its
    gate's estimate, the 95% half-widths added in quadrature (the two matches
    are independent). None where a perfect score makes it unbounded."""
    if current["elo"] is None or gate["elo"] is None:
        return None, [None, None]
    elo = current["elo"] + gate["elo"]
    bounds: list[float | None] = []
    for side, (c_bound, g_bound) in enumerate(zip(current["ci95"], gate["ci95"])):
        if c_bound is None or g_bound is None:
            bounds.append(None)
            continue
        half = math.hypot(c_bound - current["elo"], g_bound - gate["elo"])
        bounds.append(elo - half if side == 0 else elo + half)
    return elo, bounds


# --- runs that go on from an earlier run ----------------------------------------------------------


def _manifest_loop(model: str) -> dict[str, Any] | None:
    """The ``loop`` record of a model file exported from an earlier run. None
    for a file without one, and for a shipped name: a run from the shipped
    model counts from it, whatever runs made it."""
    manifest = Path(model).with_suffix(".json")
    if not model.endswith(".npz") or not manifest.exists():
        return None
    loop: dict[str, Any] | None = json.loads(manifest.read_text()).get("loop")
    return loop


def _numbering(lineage: dict[str, Any] | None) -> Callable[[int], int]:
    """A run's generation k as counted from the first run's generation 0:
    its generation 0 is the one exported, the others come after the last
    generation of the runs before."""
    if lineage is None:
        return lambda k: k
    start = lineage["generation"]
    offset = max([start, *(e["generation"] for e in lineage["generations"])])
    return lambda k: start if k == 0 else offset + k


def history(state: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Every generation from the first run's generation 0: (the first run's
    model and the commands of the runs; the generations, this run's numbered
    on from the earlier runs' and their Elo chained on)."""
    lineage = state.get("lineage")
    if lineage is None:
        return {"initial": state["config"]["initial"], "commands": [state["command"]]}, list(state["generations"])
    number = _numbering(lineage)
    entries = list(lineage["generations"])
    for entry in state["generations"]:
        mapped: dict[str, Any] = {"generation": number(entry["generation"])}
        if "selfplay" in entry:
            mapped["selfplay"] = {"games": entry["selfplay"]["games"],
                                  "generation": number(entry["selfplay"]["generation"])}
        if "trained" in entry:
            mapped["trained"] = {"window": [number(g) for g in entry["trained"]["window"]]}
        if "gate" in entry:
            mapped["gate"] = {key: entry["gate"][key] for key in ("result", "games", "score", "elo", "ci95")}
            mapped["gate"]["against"] = number(entry["gate"]["against"])
            elo, ci95 = chained_elo(lineage, entry)
            mapped.update(elo=elo, ci95=ci95, promoted=entry["promoted"])
        entries.append(mapped)
    return {"initial": lineage["initial"], "commands": [*lineage["commands"], state["command"]]}, entries


def export(state: dict[str, Any], work: Path | str, out: Path | str) -> dict[str, Any]:
    """Write the current model to `out` (.npz, its .json beside it) with a
    ``loop`` record of every run's gated generations, for a later run's
    ``--initial``; returns the manifest."""
    out = Path(out)
    if out.suffix != ".npz":
        raise ValueError(f"--export: a .npz path, got {str(out)!r}")
    current, lineage = state["current"], state.get("lineage")
    model = Path(_model_argument(Path(work).resolve(), current)) if current["generation"] > 0 \
        else model_path(current["model"])
    elo, ci95 = chained_elo(lineage, current) if lineage is not None else (current["elo"], current["ci95"])
    start, entries = history(state)
    gated = [{"generation": e["generation"], "selfplay": {k: e["selfplay"][k] for k in ("games", "generation")},
              "trained": {"window": e["trained"]["window"]},
              "gate": {k: e["gate"][k] for k in ("result", "games", "score", "against", "elo", "ci95")},
              "elo": e["elo"], "ci95": e["ci95"], "promoted": e["promoted"]} for e in entries if "gate" in e]
    generation = _numbering(lineage)(current["generation"])
    manifest = json.loads(model.with_suffix(".json").read_text())
    manifest["version"] = f"gen{generation}"
    manifest["loop"] = {"initial": start["initial"], "generation": generation, "elo": elo, "ci95": ci95,
                        "commands": start["commands"], "generations": gated}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(model.read_bytes())
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


# --- the loop ---------------------------------------------------------------------------------


def run(work: Path | str, config: LoopConfig, generations: int, *, processes: int | None = None,
        ray_address: str | None = None, command: str = "", play: Play = selfplay_run, fit: Fit = train,
        gate: Gate = run_sprt, log: Callable[[str], None] = print, progress: bool = False) -> dict[str, Any]:
    """Run generations until `generations` are done in `work`, going on from
    its state.json, and return the state. `play`, `fit` and `gate` are
    cacao-selfplay's run, cacao-train's train and cacao-ladder's run_sprt
    (other functions with their signatures stand in for them in tests)."""
    if generations < 1:
        raise ValueError(f"--generations: must be positive, got {generations}")
    work = Path(work).resolve()
    _spec_safe("--work", str(work))
    work.mkdir(parents=True, exist_ok=True)
    with _only_run(work):
        return _generations(work, config, generations, processes, ray_address, command, play, fit, gate, log,
                            progress)


@contextlib.contextmanager
def _only_run(work: Path) -> Iterator[None]:
    """Hold the work folder's lock: two loops writing one state.json would
    undo each other's steps. The lock goes with the process that holds it,
    so a killed run leaves none behind. (No lock on Windows.)"""
    if sys.platform == "win32":
        yield
        return
    import fcntl
    with open(work / "lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ValueError(f"--work: another cacao-generations is running in {work}") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _generations(work: Path, config: LoopConfig, generations: int, processes: int | None,
                 ray_address: str | None, command: str, play: Play, fit: Fit, gate: Gate,
                 log: Callable[[str], None], progress: bool) -> dict[str, Any]:
    """The loop itself, in a work folder this process holds (:func:`run`)."""
    state = _start(work, config, command)
    started = time.monotonic()
    workers = processes or os.cpu_count() or 1

    def say(line: str) -> None:
        log(f"[{_clock(started)}] {line}")

    for k in range(1, generations + 1):
        if k <= len(state["generations"]):
            entry = state["generations"][k - 1]
        else:
            entry = {"generation": k}
            state["generations"].append(entry)
        _check_done(work, entry)
        if "gate" in entry:
            continue
        current = state["current"]
        model = _model_argument(work, current)
        folder = work / f"gen{k}"
        folder.mkdir(exist_ok=True)
        if "selfplay" not in entry:
            play_config = config.selfplay(k, model)
            say(f"generation {k}: self-play, {config.games} games of {play_config.spec}")
            manifest = play(play_config, folder / "selfplay", workers, ray_address, progress)
            entry["selfplay"] = {"folder": f"gen{k}/selfplay", "model": current["model"],
                                 "generation": current["generation"], "games": manifest["games"],
                                 "decisions": manifest["decisions"], "views": manifest["views"],
                                 "cpu_s": manifest["cpu_s"]}
            _write_state(work, state)
        if "trained" not in entry:
            window = data_window(k, config.window, config.gen0_data)
            folders = [f for g in window for f in _selfplay_folders(work, g, config)]
            say(f"generation {k}: training on the self-play of generations {_span(window)}")
            target = folder / "model.npz"
            fitted = fit(folders, target, config.train, name="cacao", version=f"gen{k}",
                         log=lambda line: say(f"  {line}"))
            entry["trained"] = {"model": f"gen{k}/model.npz", "sha256": _sha256(target), "window": window,
                                "metrics": _brief_metrics(fitted)}
            _write_state(work, state)
        candidate = str(folder / "model.npz")
        say(f"generation {k}: gate, generation {k} against generation {current['generation']} "
            f"({config.gate_spec('...')}, SPRT {config.sprt})")
        summary = gate(config.gate_spec(candidate), config.gate_spec(model), config.test,
                       seed=derive_seed(derive_seed(config.seed, GATE_STREAM), k), max_games=config.gate_games,
                       results=str(folder / "gate.jsonl"), processes=workers, ray_address=ray_address,
                       progress=progress)
        gate_record = {"result": summary["result"] or "undecided", "games": summary["games"],
                       "pairs": summary["pairs"], "score": summary["a_score"], "llr": summary["llr"],
                       "bounds": [summary["lower"], summary["upper"]], "counts": summary["counts"],
                       "elo": _number(summary["elo"]), "ci95": [_number(b) for b in summary["ci95"]],
                       "against": current["generation"]}
        elo, ci95 = chained_elo(current, gate_record)
        promoted = summary["result"] == "H1"
        entry.update(gate=gate_record, elo=elo, ci95=ci95, promoted=promoted)
        if promoted:
            state["current"] = {"generation": k, "model": f"gen{k}/model.npz", "elo": elo, "ci95": ci95}
        _write_state(work, state)       # the gate and the promotion: one write
        say(f"generation {k}: {gate_record['result']} after {summary['games']} games, score "
            f"{summary['a_score']:.3f}: {'promoted' if promoted else 'not promoted'}; current: generation "
            f"{state['current']['generation']}")
    return state


def _model_argument(work: Path, current: dict[str, Any]) -> str:
    """The current model as a bot spec takes it: a promoted one's path in the
    work folder made absolute; generation 0's as given."""
    return str(work / current["model"]) if current["generation"] > 0 else current["model"]


def _brief_metrics(manifest: dict[str, Any]) -> dict[str, Any]:
    """The held-out figures worth a line of the table."""
    value, policy = manifest.get("metrics", {}).get("value", {}), manifest.get("metrics", {}).get("policy", {})
    return {key: value.get(key) for key in ("log_loss", "log_loss_constant", "brier_skill")} | \
        {"policy_cross_entropy": policy.get("cross_entropy"), "policy_top1": policy.get("top1")}


def _span(generations: Sequence[int]) -> str:
    """Generations as runs of consecutive numbers: "0-3", or "2, 6-8"."""
    runs: list[list[int]] = []
    for g in generations:
        if runs and g == runs[-1][-1] + 1:
            runs[-1].append(g)
        else:
            runs.append([g])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def _clock(started: float) -> str:
    s = int(time.monotonic() - started)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


# --- the table ----------------------------------------------------------------------------------


def _elo_text(elo: float | None, ci95: Sequence[float | None]) -> str:
    if elo is None:
        return "unbounded (a 0% or 100% score)"
    low, high = (f"{b:+.0f}" if b is not None else "?" for b in ci95)
    return f"{elo:+.0f} [{low}, {high}]"


def markdown(state: dict[str, Any]) -> str:
    """The generations as a Markdown table (BENCHMARKS.md carries it), with
    the commands that made them: the earlier runs' too when this run goes on
    from an exported model."""
    config = state["config"]
    elo0, elo1, alpha, beta = config["sprt"]
    budget = (f"{config['gate_time']} s" if config["gate_time"] is not None
              else f"{config['gate_iterations']} iterations")
    start, entries = history(state)
    commands, number = start["commands"], _numbering(state.get("lineage"))
    lines = [f"`{commands[0]}`"] if len(commands) == 1 else \
        [f"{i}. `{command}`" for i, command in enumerate(commands, 1)] + \
        ["", f"Run {len(commands)} goes on from generation {number(0)}, which run "
         f"{len(commands) - 1} exported (`--export`); its generations are numbered on and its Elo chained on."]
    lines += ["",
              f"Self-play: {config['games']} games a generation at {config['selfplay_budget']} iterations a move; "
              f"training window: {config['window']} generations; gate: SPRT H0 {elo0:g} / H1 {elo1:g} Elo, "
              f"alpha {alpha:g}, beta {beta:g}, at most {config['gate_games']} 2-player games at {budget} a move. "
              "Elo against generation 0 is chained along the promoted models (lab/generations.py).", "",
              "| generation | self-play games (model) | data window | gate: result, games, candidate's score "
              "| Elo vs current | Elo vs gen 0 | promoted |",
              "|---|---|---|---|---|---|---|",
              f"| 0 | ({start['initial']}) | | | | 0 | current at the start |"]
    for entry in entries:
        k = entry["generation"]
        play = entry.get("selfplay")
        games = f"{play['games']} (gen {play['generation']})" if play else "not yet"
        window = _span(entry["trained"]["window"]) if "trained" in entry else ""
        gate = entry.get("gate")
        if gate is None:
            lines.append(f"| {k} | {games} | {window} | not yet | | | |")
            continue
        lines.append(f"| {k} | {games} | {window} | {gate['result']}, {gate['games']} games, "
                     f"{100 * gate['score']:.1f}% vs gen {gate['against']} | {_elo_text(gate['elo'], gate['ci95'])} "
                     f"| {_elo_text(entry['elo'], entry['ci95'])} | {'yes' if entry['promoted'] else 'no'} |")
    current = state["current"]
    lines += ["", f"Current model: generation {number(current['generation'])} "
              f"({current['model']})."]
    return "\n".join(lines)


def svg(state: dict[str, Any], width: int = 640, height: int = 320) -> str:
    """The Elo curve as an SVG picture (BENCHMARKS.md shows it): each gated
    generation's chained Elo against generation 0 with its 95% interval, a
    filled dot for a promoted model and a hollow one for a candidate that
    lost its gate, and the current model's Elo as a step line."""
    points = [(0, 0.0, 0.0, 0.0, True)]
    for entry in history(state)[1]:
        if entry.get("gate") is None or entry.get("elo") is None:
            continue
        low, high = (entry["elo"] if b is None else b for b in entry["ci95"])
        points.append((entry["generation"], float(entry["elo"]), float(low), float(high), bool(entry["promoted"])))
    last = max(max(p[0] for p in points), 1)
    top = max(50.0, *(p[3] for p in points))
    bottom = min(-50.0, *(p[2] for p in points))
    left, right, up, down = 56, 28, 32, 40

    def x(g: float) -> float:
        return left + (width - left - right) * g / last

    def y(elo: float) -> float:
        return up + (height - up - down) * (top - elo) / (top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="{height - 8}">generation</text>',
           f'<text x="{left}" y="16">Elo against generation 0 (95% intervals; hollow: not promoted)</text>']
    step = 50 if top - bottom <= 400 else 100
    for tick in range(int(bottom // step) * step, int(top) + 1, step):
        if bottom <= tick <= top:
            out.append(f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                       f'stroke="{"#888" if tick == 0 else "#ddd"}"/>')
            label = f"{tick:+d}" if tick else "0"
            out.append(f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{label}</text>')
    for g in range(last + 1):
        out.append(f'<text x="{x(g):.1f}" y="{height - down + 16}" text-anchor="middle">{g}</text>')
    current, path = 0.0, [f"M{x(0):.1f},{y(0):.1f}"]
    for g, elo, _low, _high, promoted in points[1:]:
        path.append(f"H{x(g):.1f}")
        if promoted:
            current = elo
            path.append(f"V{y(current):.1f}")
    out.append(f'<path d="{" ".join(path)}" fill="none" stroke="#0072B2" stroke-width="2"/>')
    for g, elo, low, high, promoted in points:
        out.append(f'<line x1="{x(g):.1f}" x2="{x(g):.1f}" y1="{y(low):.1f}" y2="{y(high):.1f}" stroke="#555"/>')
        out.append(f'<circle cx="{x(g):.1f}" cy="{y(elo):.1f}" r="5" stroke="#D55E00" stroke-width="2" '
                   f'fill="{"#D55E00" if promoted else "white"}"><title>generation {g}: {elo:+.0f} Elo'
                   f'{"" if promoted else ", not promoted"}</title></circle>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- command line --------------------------------------------------------------------------------


def _sprt_arg(text: str) -> tuple[float, float, float, float]:
    parts = text.split(",")
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"elo0,elo1,alpha,beta as numbers, got {text!r}") from None
    if len(values) != 4:
        raise argparse.ArgumentTypeError(f"four numbers elo0,elo1,alpha,beta, got {text!r}")
    return values


def _players_arg(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"player counts such as 2,3,2,4, got {text!r}") from None


def main(argv: Sequence[str] | None = None) -> int:
    defaults = LoopConfig()
    parser = argparse.ArgumentParser(
        prog="cacao-generations", description="The self-play generation loop: self-play with the current "
        "model, train the next on a window of generations, promote it only if it passes an SPRT gate.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Each step is recorded in DIR/state.json; the same command again goes on where it stopped.\n"
               "lab/README.md, 'The generation loop', says what each step does and why.\n\n"
               "examples:\n"
               "  cacao-generations --work out/loop --generations 10 --processes 2\n"
               "  cacao-generations --work out/loop --generations 10 --ray auto\n"
               "  cacao-generations --work out/loop --markdown\n"
               "  cacao-generations --work out/loop --export lab/models/candidate.npz")
    add_version_option(parser)
    parser.add_argument("--work", required=True, metavar="DIR", help="the loop's folder: state.json, genK/...")
    parser.add_argument("--generations", metavar="N", type=int, default=None,
                        help="run until this many generations are done (default 10; with --markdown, none)")
    parser.add_argument("--games", metavar="G", type=int, default=defaults.games,
                        help=f"self-play games a generation (default {defaults.games})")
    parser.add_argument("--window", metavar="W", type=int, default=defaults.window,
                        help=f"train on the self-play of the last W generations (default {defaults.window})")
    parser.add_argument("--players", metavar="COUNTS", type=_players_arg, default=defaults.players,
                        help="self-play player counts, taken in turn (default 2,3,2,4)")
    parser.add_argument("--selfplay-budget", metavar="ITERATIONS", type=int, default=defaults.selfplay_budget,
                        help=f"iterations per self-play move (default {defaults.selfplay_budget})")
    parser.add_argument("--explore-moves", metavar="N", type=int, default=defaults.explore_moves,
                        help=f"each seat's first decisions drawn by visits (default {defaults.explore_moves})")
    parser.add_argument("--temperature", metavar="T", type=float, default=defaults.temperature,
                        help=f"those draws are by visits^(1/T) (default {defaults.temperature})")
    parser.add_argument("--fast-share", metavar="SHARE", type=float, default=defaults.fast_share,
                        help=f"share of the other moves searched fast, for the value only "
                             f"(default {defaults.fast_share})")
    parser.add_argument("--fast-iterations", metavar="ITERATIONS", type=int, default=defaults.fast_iterations,
                        help=f"the fast moves' iterations (default {defaults.fast_iterations})")
    parser.add_argument("--gate-games", metavar="G", type=int, default=defaults.gate_games,
                        help=f"most games of a gate match (default {defaults.gate_games})")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--gate-time", metavar="SECONDS", type=float, default=None,
                        help=f"seconds per move of both sides in the gate (default {defaults.gate_time})")
    budget.add_argument("--gate-iterations", metavar="ITERATIONS", type=int, default=None,
                        help="iterations per move of both sides instead (deterministic games)")
    parser.add_argument("--sprt", type=_sprt_arg, default=defaults.sprt, metavar="ELO0,ELO1,ALPHA,BETA",
                        help="the gate's SPRT (default -10,10,0.05,0.05: better than not; "
                             "write --sprt=-10,... for a negative ELO0)")
    parser.add_argument("--initial", metavar="MODEL", default=defaults.initial,
                        help=f"generation 0's model: a shipped name or a .npz path (default {defaults.initial})")
    parser.add_argument("--gen0-data", metavar="DIR", nargs="+", default=[],
                        help="generation 0's self-play folders, for the first windows (default: none)")
    parser.add_argument("--tiny", action="store_true", help="tiny networks, trained in seconds (for trying it out)")
    add_network_options(parser, defaults.train)
    parser.add_argument("--seed", metavar="S", type=int, default=defaults.seed,
                        help=f"the run's seed (default {defaults.seed})")
    parser.add_argument("--processes", metavar="P", type=int, default=None,
                        help="local processes for the games (default: one per core)")
    parser.add_argument("--ray", metavar="ADDRESS", nargs="?", const="local", default=None,
                        help="play the games on a Ray cluster: local, auto or ray://HOST:PORT; needs cacaoai[ray]")
    parser.add_argument("--markdown", action="store_true",
                        help="print the generations as a Markdown table (without --generations: play nothing)")
    parser.add_argument("--svg", metavar="FILE",
                        help="also write the Elo curve as an SVG picture to FILE (without --generations: play nothing)")
    parser.add_argument("--export", metavar="FILE",
                        help="also write the current model to FILE (.npz, its .json beside it) with the record of "
                             "every run's generations, for a later run's --initial (without --generations: play "
                             "nothing)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)
    if args.processes is not None and args.processes < 1:
        parser.error(f"--processes: must be positive, got {args.processes}")
    try:
        if (args.markdown or args.svg or args.export) and args.generations is None:
            _outputs(read_state(args.work), args)
            return 0
        gate_time = args.gate_time if args.gate_time is not None or args.gate_iterations is not None \
            else defaults.gate_time
        for folder in args.gen0_data:
            if not (Path(folder) / "selfplay.json").exists():
                raise ValueError(f"--gen0-data: {folder} holds no selfplay.json")
            if os.pathsep in str(Path(folder).resolve()):
                raise ValueError(f"--gen0-data: {folder} holds {os.pathsep!r}, which separates the folders")
        gen0_data = os.pathsep.join(str(Path(folder).resolve()) for folder in args.gen0_data)
        initial = str(Path(args.initial).resolve()) if args.initial.endswith(".npz") else args.initial
        config = LoopConfig(games=args.games, window=args.window, players=args.players,
                            selfplay_budget=args.selfplay_budget, explore_moves=args.explore_moves,
                            temperature=args.temperature, fast_share=args.fast_share,
                            fast_iterations=args.fast_iterations, gate_games=args.gate_games, gate_time=gate_time,
                            gate_iterations=args.gate_iterations, sprt=args.sprt, initial=initial,
                            gen0_data=gen0_data, seed=args.seed,
                            train=replace(TINY if args.tiny else LOOP_TRAIN, **network_changes(args, parser)))
        command = "cacao-generations " + " ".join(sys.argv[1:] if argv is None else argv)
        log: Callable[[str], None] = (lambda line: None) if args.quiet else (lambda line: print(line, flush=True))
        state = run(args.work, config, 10 if args.generations is None else args.generations,
                    processes=args.processes, ray_address=args.ray, command=command, log=log,
                    progress=not args.quiet)
        _outputs(state, args)
    except ValueError as exc:
        parser.error(str(exc))
    return 0


def _outputs(state: dict[str, Any], args: argparse.Namespace) -> None:
    """What the command line asked for besides playing: the table, the curve, the exported model."""
    if args.export:
        export(state, args.work, args.export)
    if args.markdown:
        print(markdown(state))
    if args.svg:
        Path(args.svg).write_text(svg(state))


if __name__ == "__main__":
    sys.exit(main())
