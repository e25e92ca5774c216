"""How many replicas a load of games needs (``cacao-size``).

    cacao-size --games 200 --moves-per-minute 4 --budget-ms 500
    cacao-size --games 200 --budget-ms 50:3,500:1        # 3 in 4 at 50 ms, 1 in 4 at 500 ms
    cacao-size --suggestions-per-s 30 --budget-ms 50 --p99-wait-ms 20 --cores-per-replica 4

A suggestion holds one search slot, one core, for its time budget (its trees
stop a little early so that the answer is ready when the budget ends); a
replica has a slot a usable core, the server's default. A suggestion that
finds its replica's slots taken waits in that replica's queue. The plan
simulates the fleet (calls at random times, sent to the replica with the
fewest calls in progress as nginx's least_conn does, or to each in turn;
every search as long as its budget, drawn from the mix of budgets given)
and takes the fewest replicas whose p99 wait for a slot is within the
target.

The quick calls (ListLegalActions, ApplyAction, health, refusals) are answered
on one event loop a replica, whatever its cores, at about 0.9 ms of the
server's CPU each; the plan keeps that loop at most half busy, as the tail
latency grows with the calls queued behind each other. The figures are
measured in BENCHMARKS.md, "Sizing inputs".

Analyses and reviews run in the background class, on the slots the moves
leave (paused while a move waits): size for the moves, and the analyses get
what is left.
"""

from __future__ import annotations

import argparse
import bisect
import heapq
import itertools
import math
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from cacaoai.engine.cli import add_version_option

from .replicas import BALANCES

#: The server's CPU a quick call takes (ListLegalActions and ApplyAction,
#: half each, in a closed loop): BENCHMARKS.md, "Sizing inputs".
QUICK_CALL_CPU_S = 0.0009
#: The share of its event loop a replica's quick calls may take in a plan.
LOOP_SHARE = 0.5
#: What a suggestion's p99 latency adds to its budget and its wait for a
#: slot while a replica's slots are all busy (the transport, the answer, the
#: cores shared): a 50 ms budget at two users on two cores answers within
#: about 61 ms at p99 (BENCHMARKS.md, "Sizing inputs").
ANSWER_P99_S = 0.011
#: The largest fleet the tool plans: 10,000 replicas of two cores.
MAX_SLOTS = 20_000
#: The most a plan keeps the slots busy on average: a queue that is busier
#: waits long whenever the calls come in a burst.
MAX_BUSY = 0.9
#: Calls simulated: at least CALLS, and enough for 300 budgets of time, up
#: to MOST_CALLS; the first WARMUP of them (an empty fleet) are not counted.
CALLS, MOST_CALLS, WARMUP = 40_000, 200_000, 0.1



#: Search budgets of a load: (seconds, share of the calls), the shares summing to 1.
Budgets = tuple[tuple[float, float], ...]


def budget_mix(budgets: float | Sequence[tuple[float, float]]) -> Budgets:
    """One budget in seconds, or (seconds, weight) pairs, as :data:`Budgets`.

    Raises:
        ValueError: a budget that is not positive, a weight that is negative,
            or no weight at all.
    """
    pairs = [(float(budgets), 1.0)] if isinstance(budgets, (int, float)) else list(budgets)
    if not pairs:
        raise ValueError("budgets: give at least one")
    for seconds, weight in pairs:
        if not 0 < seconds < math.inf:
            raise ValueError(f"budgets: a budget must be positive and finite, got {seconds}")
        if not 0 <= weight < math.inf:
            raise ValueError(f"budgets: a weight must be finite and not negative, got {weight}")
    total = sum(weight for _, weight in pairs)
    if not total > 0:
        raise ValueError("budgets: the weights sum to 0")
    return tuple((float(seconds), weight / total) for seconds, weight in pairs if weight > 0)


def mean_budget(budgets: Budgets) -> float:
    """The seconds a call holds its slot on average."""
    return sum(seconds * share for seconds, share in budgets)


def wait_quantile(replicas: int, slots: int, rate: float, service_s: float | Sequence[tuple[float, float]],
                  quantile: float = 0.99, *, balance: str = "least_conn", calls: int | None = None,
                  seed: int = 1, exponential: bool = False) -> float:
    """Seconds within which `quantile` of the calls get a search slot, over
    `replicas` replicas of `slots` slots each, when calls arrive at random
    (`rate` a second over them all) and each holds its slot `service_s`
    seconds, or a budget of a mix (see :func:`budget_mix`) drawn at random
    (``exponential``: that long on average), first come first served at its
    replica; simulated over `calls` calls from `seed` (None: see ``CALLS``),
    the first ``WARMUP`` of them left out.

    ``balance``: "least_conn" sends a call to the replica with the fewest
    calls in progress (nginx's least_conn, the default of cacao-replicas),
    "round_robin" to each replica in turn. inf when the slots cannot keep up
    (``rate × mean budget ≥ replicas × slots``).
    """
    if replicas < 1 or slots < 1:
        raise ValueError(f"replicas and slots: must be at least 1, got {replicas} and {slots}")
    if not 0.0 < quantile < 1.0:
        raise ValueError(f"quantile: must be between 0 and 1, got {quantile}")
    if not 0.0 <= rate < math.inf:
        raise ValueError(f"rate: must be finite and not negative, got {rate}")
    if balance not in BALANCES:
        raise ValueError(f"balance: must be one of {', '.join(BALANCES)}, got {balance!r}")
    mix = budget_mix(service_s)
    mean = mean_budget(mix)
    if rate * mean >= replicas * slots:
        return math.inf
    if rate == 0.0:
        return 0.0
    if calls is None:
        calls = int(min(max(CALLS, 300 * rate * mean), MOST_CALLS))
    seconds = [b for b, _ in mix]
    bounds = list(itertools.accumulate(share for _, share in mix))
    rng = random.Random(seed)
    free = [[0.0] * slots for _ in range(replicas)]  # when each slot is next free (heaps)
    busy = [0] * replicas                             # calls in progress at each replica
    fewest = [(0, r) for r in range(replicas)]        # (busy, replica), stale entries skipped
    ends: list[tuple[float, int]] = []                # (end, replica) of the calls in progress
    waits = []
    now = 0.0
    for i in range(calls):
        now += rng.expovariate(rate)
        while ends and ends[0][0] <= now:
            r = heapq.heappop(ends)[1]
            busy[r] -= 1
            heapq.heappush(fewest, (busy[r], r))
        if balance == "round_robin":
            r = i % replicas
        else:
            while fewest[0][0] != busy[fewest[0][1]]:
                heapq.heappop(fewest)
            r = fewest[0][1]
        start = max(now, free[r][0])
        held = seconds[min(bisect.bisect(bounds, rng.random()), len(seconds) - 1)] if len(seconds) > 1 \
            else seconds[0]
        end = start + (rng.expovariate(1.0 / held) if exponential else held)
        heapq.heapreplace(free[r], end)
        heapq.heappush(ends, (end, r))
        busy[r] += 1
        heapq.heappush(fewest, (busy[r], r))
        waits.append(start - now)
    del waits[:int(WARMUP * calls)]
    return quantile_of(waits, quantile)


def quantile_of(values: Sequence[float], quantile: float) -> float:
    """The value below which `quantile` of `values` lie (the one at that
    rank), as the simulation reads its waits."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(quantile * len(ordered)))]


@dataclass(frozen=True)
class Plan:
    """The replicas for a load, and what they give.

    Attributes:
        suggestions_per_s, quick_per_s: the load, over the whole fleet.
        budgets: the suggestions' time budgets and their shares.
        cores_per_replica: a replica's usable cores, its search slots.
        balance: how the balancer spreads the calls (:data:`BALANCES`).
        busy_slots: slots busy on average (suggestions_per_s × the mean budget).
        replicas: how many, each with its share of the calls.
        wait_p99_s: the p99 wait for a slot at a replica.
        latency_p99_s: a suggestion's p99 latency at each budget, estimated:
            the wait, the budget and what the answer adds (``ANSWER_P99_S``).
        loop_share: the share of a replica's event loop its quick calls take.
    """

    suggestions_per_s: float
    quick_per_s: float
    budgets: Budgets
    cores_per_replica: int
    balance: str
    busy_slots: float
    replicas: int
    wait_p99_s: float
    latency_p99_s: tuple[float, ...]
    loop_share: float

    @property
    def slots(self) -> int:
        """Search slots over the fleet (one a core)."""
        return self.replicas * self.cores_per_replica


def plan(suggestions_per_s: float, budgets: float | Sequence[tuple[float, float]], p99_wait_s: float,
         quick_per_s: float = 0.0, cores_per_replica: int = 2, balance: str = "least_conn") -> Plan:
    """The fewest replicas of `cores_per_replica` slots each whose p99 wait
    for a slot is within `p99_wait_s`, and whose event loops are each within
    ``LOOP_SHARE`` for the quick calls, behind a balancer of `balance`
    (see :func:`wait_quantile`); `budgets`: one in seconds or a mix (see
    :func:`budget_mix`). The same arguments give the same plan.

    Raises:
        ValueError: naming the argument that is out of range, or a load that
            needs more than ``MAX_SLOTS`` slots.
    """
    if not 0 <= suggestions_per_s < math.inf:
        raise ValueError(f"suggestions_per_s: must be finite and not negative, got {suggestions_per_s}")
    if not p99_wait_s >= 0:
        raise ValueError(f"p99_wait_s: must not be negative, got {p99_wait_s}")
    if not 0 <= quick_per_s < math.inf:
        raise ValueError(f"quick_per_s: must be finite and not negative, got {quick_per_s}")
    if cores_per_replica < 1:
        raise ValueError(f"cores_per_replica: must be at least 1, got {cores_per_replica}")
    if balance not in BALANCES:
        raise ValueError(f"balance: must be one of {', '.join(BALANCES)}, got {balance!r}")
    mix = budget_mix(budgets)
    busy = suggestions_per_s * mean_budget(mix)
    most = max(MAX_SLOTS // cores_per_replica, 1)

    def wait(replicas: int) -> float:
        return wait_quantile(replicas, cores_per_replica, suggestions_per_s, mix, balance=balance)

    def enough(replicas: int) -> bool:
        return wait(replicas) <= p99_wait_s and quick_per_s / replicas * QUICK_CALL_CPU_S <= LOOP_SHARE

    low = math.ceil(busy / (MAX_BUSY * cores_per_replica)) - 1  # busier than MAX_BUSY
    if low >= most:
        raise ValueError(f"{busy:,.0f} slots busy on average: beyond this tool's {MAX_SLOTS:,}")
    high = low + 1
    while not enough(high):  # the wait shrinks as replicas are added: double, then halve
        if high == most:
            raise ValueError(f"more than {MAX_SLOTS:,} slots for a p99 wait of "
                             f"{p99_wait_s * 1000:g} ms: beyond this tool's range")
        low, high = high, min(2 * high, most)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    waited = wait(high)
    return Plan(suggestions_per_s, quick_per_s, mix, cores_per_replica, balance, busy, high, waited,
                tuple(waited + seconds + ANSWER_P99_S for seconds, _ in mix),
                quick_per_s / high * QUICK_CALL_CPU_S)


def report(p: Plan) -> str:
    """The plan as the lines ``cacao-size`` prints."""
    ms = 1000.0
    at = " and ".join(f"{seconds * ms:g} ms" + (f" ({share:.0%})" if len(p.budgets) > 1 else "")
                      for seconds, share in p.budgets)
    latencies = ", ".join(f"{latency * ms:,.0f} ms" + (f" at {seconds * ms:g} ms" if len(p.budgets) > 1 else "")
                          for latency, (seconds, _) in zip(p.latency_p99_s, p.budgets))
    return "\n".join([
        f"load: {p.suggestions_per_s:,.1f} suggestions/s at {at} "
        f"({p.busy_slots:,.1f} slots busy on average), {p.quick_per_s:,.1f} quick calls/s",
        f"replicas: {p.replicas:,} of {p.cores_per_replica} cores "
        f"(cacao-server --max-searches {p.cores_per_replica}) behind {p.balance}, "
        f"{p.slots:,} search slots in all",
        f"the slots {p.busy_slots / p.slots:.0%} busy on average, p99 wait for one "
        f"{p.wait_p99_s * ms:.1f} ms; quick calls take {p.loop_share:.0%} of each event loop",
        f"a suggestion's p99 latency: about {latencies} "
        f"(the wait, the budget, {ANSWER_P99_S * ms:g} ms for the answer)",
    ])


def budget_option(text: str) -> list[tuple[float, float]]:
    """``--budget-ms``: "500" or "50:3,500:1" as [(ms, weight)]."""
    pairs = []
    for item in text.split(","):
        ms, _, weight = item.partition(":")
        try:
            pairs.append((float(ms), float(weight) if weight else 1.0))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{item!r}: not MS or MS:WEIGHT") from None
    try:
        budget_mix(pairs)  # the same checks as the library's
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("budgets: ")) from None
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cacao-size",
        description="How many replicas a load of games needs, from the service's measured costs "
                    "(docs/operations.md, \"Sizing a fleet\").",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="""\
examples:
  cacao-size --games 200 --moves-per-minute 4 --budget-ms 500
  cacao-size --games 200 --budget-ms 50:3,500:1      3 in 4 suggestions at 50 ms, 1 at 500 ms
  cacao-size --suggestions-per-s 30 --budget-ms 50 --p99-wait-ms 20 --cores-per-replica 4
""")
    add_version_option(parser)
    load = parser.add_mutually_exclusive_group(required=True)
    load.add_argument("--games", type=float, help="games in play at once")
    load.add_argument("--suggestions-per-s", type=float,
                      help="suggestions a second (SuggestAction: the AI's moves and hints)")
    parser.add_argument("--moves-per-minute", type=float, default=4.0,
                        help="with --games: suggestions a game asks for a minute (default 4)")
    parser.add_argument("--quick-per-suggestion", type=float, default=4.0,
                        help="quick calls (ListLegalActions, ApplyAction) for each suggestion: "
                             "every move of a game, the players' too, is listed and applied "
                             "(default 4: a player against the AI)")
    parser.add_argument("--budget-ms", type=budget_option, required=True, metavar="MS[:WEIGHT],...",
                        help="a suggestion's time budget, ms, or a mix such as 50:3,500:1 (for a "
                             "level: the time its search takes, evaluation.elapsed)")
    parser.add_argument("--p99-wait-ms", type=float, default=None,
                        help="the p99 wait for a slot to plan for (default: the shortest budget)")
    parser.add_argument("--cores-per-replica", type=int, default=2,
                        help="usable cores of one replica, its --max-searches (default 2)")
    parser.add_argument("--balance", choices=BALANCES, default="least_conn",
                        help="how the balancer spreads calls, as cacao-replicas --balance "
                             "(default least_conn)")
    args = parser.parse_args(argv)
    for flag, value, least in (("--games", args.games, 0.0),
                               ("--suggestions-per-s", args.suggestions_per_s, 0.0),
                               ("--moves-per-minute", args.moves_per_minute, 0.0),
                               ("--quick-per-suggestion", args.quick_per_suggestion, 0.0),
                               ("--p99-wait-ms", args.p99_wait_ms, 0.0),
                               ("--cores-per-replica", args.cores_per_replica, 1)):
        if value is not None and not least <= value < math.inf:  # NaN fails too
            parser.error(f"{flag}: must be at least {least:g} and finite, got {value:g}")
    rate = (args.games * args.moves_per_minute / 60.0 if args.games is not None
            else args.suggestions_per_s)
    wait_ms = min(ms for ms, _ in args.budget_ms) if args.p99_wait_ms is None else args.p99_wait_ms
    try:
        result = plan(rate, [(ms / 1000.0, weight) for ms, weight in args.budget_ms], wait_ms / 1000.0,
                      quick_per_s=rate * args.quick_per_suggestion,
                      cores_per_replica=args.cores_per_replica, balance=args.balance)
    except ValueError as error:  # a load beyond MAX_SLOTS
        parser.error(str(error))
    print(report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
