#!/usr/bin/env python3
"""Fit calibration maps into the shipped model's manifest: the settings' maps
(``--settings``) and the maps of the calibration's populations for one
settings' map (``--map analysis``, the default, or ``play``; written to that
map's ``populations``, e.g. ``calibration.analysis.populations``).

``--settings analysis=FILE`` fits the settings' map on raw samples of
``strong`` self-play evaluated with those settings (cacao-calibration's
``fit``: the kind with the best cross-validated Brier score per player count,
70% of the games fit and 30% held out) and replaces that map, its
populations dropped: they were fitted beside the map they replace.

Each population gets one kind of map, chosen beforehand: a temperature per
stage for self-play of one level (``staged``), the same with an offset for
the one seat for "A vs B" (``staged-one``). Only the player counts whose
games the settings' map does not fit get an entry; the others keep the
settings' map. With ``--missed ECE`` that choice is made here: a player count
gets an entry when the settings' map misses its games by more than ECE
(otherwise the caller chooses by the files it names). The maps are fitted on
the raw samples given (evaluated by a search with those settings: the
analysis settings, or a suggestion's play settings), and measured by
benchmarks/calibration_table.py on games of other seeds.

    python benchmarks/fit_populations.py --manifest search/models/cacao.json \\
        --settings analysis=fit-analysis.json play=fit-play.json
    python benchmarks/fit_populations.py --manifest search/models/cacao.json \\
        casual=out/pop-casual-2.json strong-vs-easy=out/pop-strong-vs-easy-2.json,out/pop-strong-vs-easy-3.json
    python benchmarks/fit_populations.py --manifest search/models/cacao.json --map play --missed 0.03 \\
        casual=out/play-casual-2.json,out/play-casual-3.json
    python benchmarks/fit_populations.py --manifest search/models/cacao.json --map play --keep max=out/play-max-2.json

With ``--keep`` the map's other populations stay as they are (a population
named here is replaced); without it, the populations named are all the map
keeps.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cacaoai.lab import calibration
from cacaoai.search import calibration_map as cm


def settings_map(path: str) -> dict[str, Any]:
    """A settings' map fitted on the raw samples in `path`, with what it was fitted on and its held-out measures."""
    games = calibration.read_samples([path])
    player, (evaluator, every, _, _) = calibration.made_by(games)
    fitted, details = calibration.fit(games)
    held_out = {}
    for players, d in details.items():
        before, after = d["held_out"]["none"], d["held_out"][d["chosen"]]
        held_out[players] = {"games": d["held_out_games"], **{key: [round(before[key], 3), round(after[key], 3)]
                                                              for key in ("ece", "brier", "skill")}}
    seeds = sorted({g["seed"] for g in games})
    return {**fitted, "fitted_on": f"{len(games)} games of {player} at every seat (seed {', '.join(map(str, seeds))}), "
            f"every {every}th decision evaluated by {evaluator}, the tree's own probabilities; per player count the "
            "kind with the best cross-validated Brier score, 70% of the games fit, 30% held out "
            "(benchmarks/fit_populations.py --settings)", "held_out": held_out}


def missed(games: list[dict[str, Any]], entry_map: dict[str, Any], players: str, threshold: float) -> bool:
    """Whether the settings' map misses these games of `players` by an ECE above `threshold`."""
    found = calibration.report([g for g in games if str(g["players"]) == players], entry_map, 0)
    return bool(found[players]["all"]["ece"] > threshold)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", required=True, help="the model manifest to write the maps into")
    parser.add_argument("--map", default="analysis", choices=["analysis", "play"],
                        help="the settings' map whose populations these are (default analysis)")
    parser.add_argument("--settings", nargs="+", metavar="NAME=FILE", default=[],
                        help="fit these settings' maps (analysis, play) on raw samples of strong self-play")
    parser.add_argument("--keep", action="store_true",
                        help="keep the map's populations not named here (default: replace them all)")
    parser.add_argument("--missed", type=float, metavar="ECE",
                        help="give a player count of a population a map only where the settings' map's ECE "
                        "on its games is above this")
    parser.add_argument("populations", nargs="*", help="NAME=FILE[,FILE...]: a population (casual, "
                        "strong-vs-easy) and its raw sample files (cacao-calibration --raw --out)")
    args = parser.parse_args(argv)
    if not args.settings and not args.populations:
        parser.error("nothing to fit: give --settings or populations")
    with open(args.manifest) as f:
        manifest = json.load(f)
    for item in args.settings:
        name, _, path = item.partition("=")
        if name not in ("analysis", "play") or not path:
            parser.error(f"--settings {item!r}: NAME=FILE with NAME analysis or play")
        try:
            fitted = settings_map(path)
        except (OSError, ValueError, KeyError) as exc:
            parser.error(f"--settings {name}: {exc}")
        manifest["calibration"][name] = {**{k: v for k, v in manifest["calibration"].get(name, {}).items()
                                            if k == "population"}, **fitted}
        chosen = {n: e["kind"] for n, e in fitted["players"].items()}
        print(f"{name}: {chosen or 'no map'}; held out ECE before/after "
              f"{ {n: h['ece'] for n, h in fitted['held_out'].items()} }", file=sys.stderr)
    maps = {}
    settings = {"version": cm.MAP_VERSION, "players": manifest["calibration"][args.map].get("players", {})}
    for item in args.populations:
        name, _, files = item.partition("=")
        key = name.replace("-vs-", cm.VERSUS)
        kind = "staged-one" if cm.VERSUS in key else "staged"
        try:
            games = calibration.read_samples(files.split(","))
            fitted = calibration.fit_kind(games, kind)
        except (OSError, ValueError, KeyError) as exc:
            parser.error(f"population {name}: {exc}")
        if args.missed is not None:
            fitted["players"] = {n: e for n, e in fitted["players"].items()
                                 if missed(games, settings, n, args.missed)}
            if not fitted["players"]:
                print(f"{key}: the {args.map} map holds ({len(games)} games)", file=sys.stderr)
                continue
        maps[key] = fitted
        print(f"{key}: {kind} for {', '.join(sorted(maps[key]['players']))} players, "
              f"{len(games)} games", file=sys.stderr)
    if args.populations:
        kept = manifest["calibration"][args.map].get("populations", {}) if args.keep else {}
        manifest["calibration"][args.map]["populations"] = {**kept, **maps}
    with open(args.manifest, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
