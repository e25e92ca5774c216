#!/usr/bin/env python3
"""Re-measure everything that rests on the shipped model, as one resumable run.

A new model (search/models/cacao.npz) changes how every model level plays and
how every search values a position, so a model ships only with these measured
again on it: the calibration maps and their populations, the forecast's maps,
the levels' ladder, the review's figures, practice, the puzzles' shares, the
adaptive level's band, and the model's speed. This runs their commands (the
ones BENCHMARKS.md and docs/benchmarks/ give) in order, each step's output in
--work, and skips a step whose output is there, so a stopped run goes on where
it stopped; a calibration step (`max` self-play: 10-20 minutes on 2 cores)
keeps a journal of its games and resumes at the game it stopped at. Steps that fit
something (the calibration maps) write it into the model's manifest; steps
that measure write their tables into the pages that mark them (--markdown),
as their scripts do alone. What a step prints is kept
in --work/<step>.txt.

Not here: equal-time matches (they need an idle machine: BENCHMARKS.md,
"The generation loop") and choices made by reading a table (the adaptive
level's rungs, a level's budget).

    python benchmarks/remeasure.py --work ../remeasure --install ../gen-loop/gen3/model.npz --version 2.0
    python benchmarks/remeasure.py --list
    nice -n 10 python benchmarks/remeasure.py --work ../remeasure --processes 2
    python benchmarks/remeasure.py --work ../remeasure --only calibration-maps
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MANIFEST = ROOT / "search" / "models" / "cacao.json"
PUZZLES = ROOT / "search" / "puzzle_set" / "puzzles.jsonl"
LEVELS = ("beginner", "easy", "casual", "club", "advanced", "strong", "max")
PY = sys.executable

#: The populations of docs/benchmarks/calibration.md: (name, --player, --opponent or None).
POPULATIONS = (
    ("casual", "level:casual", None),
    ("club", "level:club", None),
    ("advanced", "level:advanced", None),
    ("strong-vs-beginner", "level:strong", "level:beginner"),
    ("strong-vs-easy", "level:strong", "level:easy"),
    ("strong-vs-casual", "level:strong", "level:casual"),
    ("strong-vs-club", "level:strong", "level:club"),
    ("strong-vs-advanced", "level:strong", "level:advanced"),
    ("max", "level:max", None),
)
#: The reliability diagrams of each settings' populations (docs/benchmarks/calibration.md shows them).
DIAGRAMS = {"analysis": ROOT / "docs" / "img" / "calibration-populations.svg",
            "play": ROOT / "docs" / "img" / "calibration-suggestions.svg"}
#: The two settings a model's calibration maps are for, and the evaluator of each.
EVALUATORS = {"analysis": "analysis:iterations=1500", "play": "mcts:iterations=300"}
PLAYER_COUNTS = (2, 3, 4)
#: Games a population and player count, to fit its map on and to measure it on: 300 games move a
#: population's ECE by about 0.01 between seeds (its floor alone is 0.018 with 2 players), so the
#: published figures come from 900 (max self-play, 20,000 iterations a move, is measured on fewer).
POPULATION_GAMES = {"fit": 300, "measure": 900}
MAX_GAMES = {2: 160, 3: 150, 4: 150}
FIT_SEED, MEASURE_SEED = 201, 101            # the settings' maps: fitted on one, measured on the other
POP_FIT_SEED, POP_MEASURE_SEED = 81, 111     # the populations' likewise
#: A population gets a map of its own where the settings' map misses it by more than this on the fitting
#: games: below the 0.03 a population is held to on fresh games, which move ECE by about 0.01
#: (docs/decisions/calibration.md).
MISSED = 0.02


@dataclass(frozen=True)
class Step:
    """A command and the file whose presence means it is done."""

    name: str
    argv: tuple[str, ...]
    done: str                    # the output file, relative to --work
    why: str


def calibration(out: str, players: int | tuple[int, ...], games: int, seed: int, player: str,
                opponent: str | None, every: int, processes: int) -> tuple[str, ...]:
    """A raw cacao-calibration run evaluated by both settings, one file each."""
    counts = (players,) if isinstance(players, int) else players
    argv = [PY, "-m", "cacaoai.lab.calibration", "--players", *map(str, counts), "--games", str(games),
            "--seed", str(seed), "--player", player, "--every", str(every), "--raw", "--quiet",
            "--processes", str(processes), "--journal", f"{out}.journal"]
    if opponent:
        argv += ["--opponent", opponent]
    for settings, spec in EVALUATORS.items():
        argv += ["--evaluator", spec, "--out", f"{out}-{settings}.json"]
    return tuple(argv)


def population_files(work: Path, seed: int, settings: str) -> dict[str, list[str]]:
    """Each population's raw files of one seed and settings, by name."""
    return {name: [str(work / f"pop{seed}-{name}-{n}-{settings}.json") for n in PLAYER_COUNTS]
            for name, _, _ in POPULATIONS}


def population_step(work: Path, seed: int, name: str, player: str, opponent: str | None, players: int,
                    processes: int) -> Step:
    """The raw samples of one population and player count, for fitting or measuring."""
    games = MAX_GAMES[players] if name == "max" else POPULATION_GAMES["fit" if seed == POP_FIT_SEED else "measure"]
    return Step(f"pop{seed}-{name}-{players}",
                calibration(f"{work}/pop{seed}-{name}-{players}", players, games, seed, player, opponent, 8,
                            processes),
                f"pop{seed}-{name}-{players}-play.json",
                f"{name}, {players} players, seed {seed}: "
                + ("to fit on" if seed == POP_FIT_SEED else "to measure on"))


def steps(work: Path, processes: int) -> list[Step]:
    """Every step, in the order they run: the settings' maps first (what the
    review and the rest report goes through them), `max` self-play (the longest steps)
    and the populations' maps and tables, which need it, last."""
    w, procs = str(work), str(processes)
    out = [
        Step("calibration-fit-games",
             calibration(f"{w}/fit", PLAYER_COUNTS, 1000, FIT_SEED, "level:strong", None, 4, processes),
             "fit-play.json", "strong self-play to fit the settings' maps on"),
        Step("calibration-maps",
             (PY, str(HERE / "fit_populations.py"), "--manifest", str(MANIFEST), "--settings",
              *(f"{settings}={w}/fit-{settings}.json" for settings in EVALUATORS)),
             "calibration-maps.txt", "both settings' maps fitted into the manifest (populations dropped)"),
        Step("calibration-strong",
             calibration(f"{w}/strong", PLAYER_COUNTS, 1000, MEASURE_SEED, "level:strong", None, 4, processes),
             "strong-play.json", "strong self-play, fresh games: the settings' maps measured"),
        Step("ladder",
             (PY, "-m", "cacaoai.lab.ladder", "greedy", *(f"level:{name}" for name in LEVELS),
              "--players", "2", "--deals", "100", "--seed", "1", "--pairing", "adjacent", "--width", "1",
              "--anchor", "greedy", "--processes", procs, "--results", f"{w}/ladder.jsonl"),
             "ladder.txt", "the levels' ladder (BENCHMARKS.md, Strength levels)"),
        Step("puzzles-rate",
             (PY, "-m", "cacaoai.lab.puzzles", "rate", "--in", str(PUZZLES), "--out", str(PUZZLES),
              "--processes", procs, "--quiet"),
             "puzzles-rate.txt", "the shipped puzzles rated again by the levels"),
        Step("puzzles",
             (PY, str(HERE / "puzzles.py"), "--seeds", "1", "--sample", "100", "--processes", procs, "--markdown"),
             "puzzles.txt", "the share of the puzzles each level solves"),
        Step("review-levels",
             (PY, str(HERE / "review_thresholds.py"), "--games", "60",
              *(a for pair in ("beginner,easy", "easy,casual", "casual,club", "club,advanced", "advanced,strong")
                for a in ("--pair", pair)),
              "--processes", procs, "--markdown"),
             "review-levels.txt", "the review's losses by level"),
        Step("review-planted",
             (PY, str(HERE / "review_thresholds.py"), "--games", "0", "--planted", "300", "--judge", "20000",
              "--untouched", "300", "--plants", f"{w}/plants.jsonl", "--processes", procs),
             "review-planted.txt", "planted blunders and strong's untouched moves"),
        Step("practice",
             (PY, str(HERE / "practice.py"), "--planted", "300", "--plants", f"{w}/plants.jsonl",
              "--processes", procs, "--markdown"),
             "practice.txt", "practice on the planted games"),
        Step("adaptive-ladder",
             (PY, str(HERE / "adaptive.py"), "--games", "200", "--seed", "1", "--processes", procs),
             "adaptive-ladder.txt",
             "the adaptive level's ladder fitted to 200 games a level (search/adaptive.py RUNGS)"),
        Step("forecast-maps",
             (PY, str(HERE / "forecast_calibration.py"), "--players", "2", "3", "4", "--games", "1000",
              "--seed", "77", "--fit", "--write"),
             "forecast-maps.txt", "the forecast's temple maps (written into search/forecast.py MAPS)"),
        Step("forecast-table",
             (PY, str(HERE / "forecast_calibration.py"), "--players", "2", "3", "4", "--games", "300",
              "--markdown"),
             "forecast-table.txt", "the forecast measured with them (BENCHMARKS.md's table, pasted)"),
        Step("model-speed", (PY, str(HERE / "model_speed.py"), f"{w}/previous.npz", "cacao"), "model-speed.txt",
             "the model's size, load time and speed, against the model it replaces"),
    ]
    cheap = [pop for pop in POPULATIONS if pop[0] != "max"]
    for seed in (POP_FIT_SEED, POP_MEASURE_SEED):
        out += [population_step(work, seed, *pop, n, processes) for pop in cheap for n in PLAYER_COUNTS]
    # max self-play (10-20 minutes a player count) is only measured: it keeps the settings' map
    # (or its old entry, by hand)
    out += [population_step(work, POP_MEASURE_SEED, *pop, n, processes)
            for pop in POPULATIONS if pop[0] == "max" for n in PLAYER_COUNTS]
    for settings in EVALUATORS:
        fit = {name: files for name, files in population_files(work, POP_FIT_SEED, settings).items()
               if name != "max"}
        measure = population_files(work, POP_MEASURE_SEED, settings)
        out += [
            Step(f"populations-{settings}",
                 (PY, str(HERE / "fit_populations.py"), "--manifest", str(MANIFEST), "--map", settings,
                  "--missed", str(MISSED), *(f"{name}={','.join(files)}" for name, files in fit.items())),
                 f"populations-{settings}.txt",
                 f"a map of its own where the {settings} map misses a population by more than {MISSED}"),
            Step(f"calibration-table-{settings}",
                 (PY, str(HERE / "calibration_table.py"), "--map", settings, f"{w}/strong-{settings}.json",
                  *(f for files in measure.values() for f in files), "--markdown", "--svg", str(DIAGRAMS[settings])),
                 f"calibration-table-{settings}.txt", f"the {settings} populations' table, on fresh games"),
        ]
    return out


def install(model: Path, version: str, shipped: Path = MANIFEST) -> None:
    """Make `model` (a .npz and its .json) the shipped model `cacao` of this
    version (its manifest `shipped`), carrying today's calibration maps until
    the steps replace them."""
    manifest = json.loads(model.with_suffix(".json").read_text())
    manifest.update(name="cacao", version=version, calibration=json.loads(shipped.read_text()).get("calibration", {}),
                    source=f"{model.parent.name}/{model.name}")
    shutil.copyfile(model, shipped.with_suffix(".npz"))
    shipped.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def run(step: Step, work: Path) -> float:
    """Run one step, its output into work/<name>.txt; the seconds it took."""
    started = time.monotonic()
    log = work / f"{step.name}.txt"
    partial = log.with_suffix(".partial")
    with open(partial, "w") as f:
        f.write("$ " + " ".join(step.argv) + "\n")
        f.flush()
        result = subprocess.run(step.argv, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT)
    if result.returncode:
        raise SystemExit(f"step {step.name} failed (exit {result.returncode}): see {partial}")
    partial.replace(log)
    if not (work / step.done).exists():
        raise SystemExit(f"step {step.name} ended without {step.done}")
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("../remeasure"), help="outputs and progress "
                        "(default ../remeasure)")
    parser.add_argument("--processes", type=int, default=2, help="worker processes a step (default 2)")
    parser.add_argument("--only", nargs="+", metavar="STEP", help="run these steps (done or not) and no others")
    parser.add_argument("--list", action="store_true", help="list the steps, and which are done, and exit")
    parser.add_argument("--install", type=Path, metavar="MODEL", help="first make this model (.npz, its .json "
                        "beside it) the shipped one, keep the one it replaces in --work, and exit")
    parser.add_argument("--version", help="with --install: the shipped model's version")
    args = parser.parse_args(argv)
    if args.install:
        if not args.version:
            parser.error("--install: give the model's --version")
        if not args.install.exists() or not args.install.with_suffix(".json").exists():
            parser.error(f"--install: no {args.install} and its .json")
        args.work.mkdir(parents=True, exist_ok=True)
        for suffix in (".npz", ".json"):      # the model it replaces, for the model-speed step
            if not (args.work / f"previous{suffix}").exists():
                shutil.copyfile(MANIFEST.with_suffix(suffix), args.work / f"previous{suffix}")
        install(args.install, args.version)
        return 0
    if args.processes < 1:
        parser.error("--processes: must be at least 1")
    plan = steps(args.work.resolve(), args.processes)
    names = {step.name for step in plan}
    unknown = sorted(set(args.only or ()) - names)
    if unknown:
        parser.error(f"--only: no step {', '.join(unknown)} (--list shows them)")
    if args.list:
        for step in plan:
            mark = "done" if (args.work / step.done).exists() else "    "
            print(f"{mark}  {step.name:32s} {step.why}")
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    model = args.work / "model.sha256"
    shipped_model = MANIFEST.with_suffix(".npz").read_bytes()
    digest = hashlib.sha256(shipped_model).hexdigest()
    if model.exists() and model.read_text().strip() != digest:
        parser.error(f"{args.work} holds the run of another model ({model}): use another --work")
    model.write_text(digest + "\n")
    for suffix in (".npz", ".json"):      # without --install first: the model the checkout's HEAD holds
        previous = args.work / f"previous{suffix}"
        if not previous.exists():
            shipped = MANIFEST.with_suffix(suffix).relative_to(ROOT)
            previous.write_bytes(subprocess.run(["git", "show", f"HEAD:{shipped}"], cwd=ROOT, check=True,
                                                capture_output=True).stdout)
    if (args.work / "previous.npz").read_bytes() == shipped_model:
        plan = [step for step in plan if step.name != "model-speed"]
        print("model-speed: skipped, the shipped model is the one it would be timed against", file=sys.stderr)
    for step in plan:
        if args.only is not None and step.name not in args.only:
            continue
        if args.only is None and (args.work / step.done).exists():
            continue
        print(f"{time.strftime('%H:%M:%S')} {step.name}: {step.why}", file=sys.stderr, flush=True)
        seconds = run(step, args.work.resolve())
        print(f"{time.strftime('%H:%M:%S')} {step.name}: done in {seconds:.0f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
