#!/usr/bin/env python3
"""Fit the maps of the calibration's populations for one settings' map
(``--map analysis``, the default, or ``play``) and write them into the shipped
model's manifest (that map's ``populations``, e.g.
``calibration.analysis.populations``).

Each population gets one kind of map, chosen beforehand: a temperature per
stage for self-play of one level (``staged``), the same with an offset for
the one seat for "A vs B" (``staged-one``). Only the player counts whose
games the analysis map does not fit (ECE over 0.03 in the population table)
get an entry; the others keep the settings' map. The maps are fitted on the
raw samples given (evaluated by a search with those settings: the analysis
settings, or a suggestion's play settings), and measured by
benchmarks/calibration_table.py on games of other seeds.

    python benchmarks/fit_populations.py --manifest search/models/cacao.json \\
        casual=out/pop-casual-2.json strong-vs-easy=out/pop-strong-vs-easy-2.json,out/pop-strong-vs-easy-3.json
    python benchmarks/fit_populations.py --manifest search/models/cacao.json --map play casual=out/play-casual-2.json
    python benchmarks/fit_populations.py --manifest search/models/cacao.json --map play --keep max=out/play-max-2.json

With ``--keep`` the map's other populations stay as they are (a population
named here is replaced); without it, the populations named are all the map
keeps.
"""

from __future__ import annotations

import argparse
import json
import sys

from cacaoai.lab import calibration
from cacaoai.search import calibration_map as cm


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", required=True, help="the model manifest to write the maps into")
    parser.add_argument("--map", default="analysis", choices=["analysis", "play"],
                        help="the settings' map whose populations these are (default analysis)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the map's populations not named here (default: replace them all)")
    parser.add_argument("populations", nargs="+", help="NAME=FILE[,FILE...]: a population (casual, "
                        "strong-vs-easy) and its raw sample files (cacao-calibration --raw --out)")
    args = parser.parse_args(argv)
    maps = {}
    for item in args.populations:
        name, _, files = item.partition("=")
        key = name.replace("-vs-", cm.VERSUS)
        games = calibration.read_samples(files.split(","))
        kind = "staged-one" if cm.VERSUS in key else "staged"
        maps[key] = calibration.fit_kind(games, kind)
        print(f"{key}: {kind} for {', '.join(sorted(maps[key]['players']))} players, "
              f"{len(games)} games", file=sys.stderr)
    with open(args.manifest) as f:
        manifest = json.load(f)
    kept = manifest["calibration"][args.map].get("populations", {}) if args.keep else {}
    manifest["calibration"][args.map]["populations"] = {**kept, **maps}
    with open(args.manifest, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
