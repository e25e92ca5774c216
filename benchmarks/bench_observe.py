"""What observing a call costs: the metrics hook and the JSON call log, per call.

    python benchmarks/bench_observe.py --calls 20000 [--markdown]

Times each hook on one finished-call record (the JSON log written to
/dev/null), in microseconds per call; the interceptor's own timing and
status reading come on top (a few microseconds).
"""

from __future__ import annotations

import argparse
import logging
import sys
import timeit

from markdown import add_markdown_option, require_parts, script_name, table, write_sections

from cacaoai.server.logs import CallLog, configure
from cacaoai.server.metrics import Metrics
from cacaoai.server.observe import call_record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=20000)
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["hooks"])
    rows = []
    record = call_record("/cacao.v1.CacaoService/SuggestAction", "OK", 0.05)
    configure("json")
    with open("/dev/null", "w") as sink:
        logging.getLogger().handlers[0].setStream(sink)
        for name, hook in (("metrics hook", Metrics()), ("JSON call log", CallLog())):
            seconds = timeit.timeit(lambda hook=hook: hook(record), number=args.calls)
            print(f"{name:<14}{seconds / args.calls * 1e6:8.1f} µs/call")
            rows.append([{"metrics hook": "Prometheus metrics"}.get(name, name), f"{seconds / args.calls * 1e6:.1f}"])
    if args.markdown:
        write_sections(args.markdown, script_name(__file__),
                       {"hooks": table(["hook", "µs a call"], rows, right=[False, True])})
    return 0


if __name__ == "__main__":
    sys.exit(main())
