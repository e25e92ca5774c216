"""What observing a call costs: the metrics hook and the JSON call log, per call.

    python benchmarks/bench_observe.py --calls 20000

Times each hook on one finished-call record (the JSON log written to
/dev/null), in microseconds per call; the interceptor's own timing and
status reading come on top (a few microseconds).
"""

from __future__ import annotations

import argparse
import logging
import sys
import timeit

from cacaoai.server.logs import CallLog, configure
from cacaoai.server.metrics import Metrics
from cacaoai.server.observe import call_record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args(argv)
    record = call_record("/cacao.v1.CacaoService/SuggestAction", "OK", 0.05)
    configure("json")
    with open("/dev/null", "w") as sink:
        logging.getLogger().handlers[0].setStream(sink)
        for name, hook in (("metrics hook", Metrics()), ("JSON call log", CallLog())):
            seconds = timeit.timeit(lambda hook=hook: hook(record), number=args.calls)
            print(f"{name:<14}{seconds / args.calls * 1e6:8.1f} µs/call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
