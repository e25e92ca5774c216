"""One position, one answer: the pieces shared by tests/test_one_answer.py and
benchmarks/one_answer.py.

A position reaches the search (or the service) as a record, a complete
position, the observation of the seat to act, or a complete position whose
hidden parts (draw piles, the jungle deck, the other seats' hands) are drawn
again. The search sees only the seat's observation, so for a seed and an
iteration budget every one of them must give the same answer, field for
field, timings aside.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

from google.protobuf import json_format

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Position
from cacaoai.search import ANALYSIS, Limit, SearchSettings, search
from cacaoai.search.bots import levels

#: The ways a position reaches a search, the first being the reference.
SOURCES = ("record", "position", "observation", "reshuffled")
#: What a search may play with: the play defaults, the analysis settings and every level's.
SETTINGS: dict[str, SearchSettings] = {"play": SearchSettings(), "analysis": ANALYSIS,
                                       **{name: level.settings for name, level in levels().items()}}
#: Iteration budgets drawn for a search (1: a root with one leaf).
ITERATIONS = (1, 12, 40)
#: Fields that measure time, not the answer.
TIMINGS = frozenset({"elapsed_s", "iterations_per_second", "elapsed", "iterationsPerSecond",
                     "queued", "paused"})


def random_position(seed: int) -> Position:
    """A position of 2, 3 or 4 players in any phase, reached by random play
    from a deal; never a finished game."""
    rng = random.Random(seed)
    position = Position.new(rng.choice((2, 3, 4)), seed=rng.getrandbits(32))
    plies = rng.randrange(0, 120)
    for _ in range(plies):
        position.apply(rng.choice(position.legal_codes()))
        if position.is_over:
            return random_position(rng.getrandbits(32))
    return position


def sources(position: Position, seed: int) -> dict[str, Position]:
    """The same position from each of SOURCES (the observation and the
    reshuffle determinized with seeds drawn from `seed`)."""
    rng = random.Random(seed)
    seat = position.to_act
    observation = position.observation(seat)
    reshuffled = Position.from_observation(observation, rng.getrandbits(63)).snapshot()
    return {
        "record": Position.from_record(position.record()),
        "position": Position.from_snapshot(position.snapshot()),
        "observation": Position.from_observation(observation, rng.getrandbits(63)),
        "reshuffled": Position.from_snapshot(reshuffled),
    }


def messages(position: Position, seed: int) -> dict[str, dict[str, Any]]:
    """The request's ``source`` for each of SOURCES, as keyword arguments of a request message."""
    rng = random.Random(seed)
    observation = position.observation(position.to_act)
    reshuffled = Position.from_observation(observation, rng.getrandbits(63)).snapshot()
    return {
        "record": {"record": convert.record_from_json(position.record())},
        "position": {"position": convert.position_from_json(position.snapshot())},
        "observation": {"position": convert.position_from_json(observation)},
        "reshuffled": {"position": convert.position_from_json(reshuffled)},
    }


def without_timings(value: Any) -> Any:
    """A JSON-like value with every timing field left out, at any depth."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list | tuple):
        return [without_timings(v) for v in value]
    return value


def plan(seed: int) -> tuple[str, int, int]:
    """The settings name, iteration budget and search seed drawn for one position."""
    rng = random.Random(seed ^ 0x5EED)
    return rng.choice(sorted(SETTINGS)), rng.choice(ITERATIONS), rng.getrandbits(63)


def search_differences(seed: int) -> Iterator[str]:
    """For the position of `seed`: each source whose ``search()`` answer
    differs from the record's, with the fields that differ."""
    position = random_position(seed)
    name, iterations, search_seed = plan(seed)
    answers = {source: without_timings(dataclasses.asdict(
                   search(q, Limit(iterations=iterations), SETTINGS[name], seed=search_seed)))
               for source, q in sources(position, seed).items()}
    yield from _differences(answers, f"seed {seed} ({position!r}, {name}, {iterations} iterations)")


def service_differences(stub: Any, seed: int) -> Iterator[str]:
    """For the position of `seed`: each source whose SuggestAction or final
    AnalyzePosition reply (limits: the analysis settings; a level: its own)
    differs from the record's."""
    position = random_position(seed)
    name, iterations, search_seed = plan(seed)
    budget: dict[str, Any] = ({"limits": pb.SearchLimits(iterations=iterations)}
                              if name in ("play", "analysis") else {"level": _cheap_level(name)})
    suggestions, analyses = {}, {}
    for source, fields in messages(position, seed).items():
        reply = stub.SuggestAction(pb.SuggestActionRequest(seed=search_seed, **fields, **budget))
        suggestions[source] = without_timings(json_format.MessageToDict(reply))
        *_, final = stub.AnalyzePosition(pb.AnalyzePositionRequest(seed=search_seed, **fields, **budget))
        analyses[source] = without_timings(json_format.MessageToDict(final.evaluation))
    where = f"seed {seed} ({position!r}, {budget})"
    yield from _differences(suggestions, "SuggestAction " + where)
    yield from _differences(analyses, "AnalyzePosition " + where)


def _cheap_level(name: str) -> str:
    """The level itself, or `club` (16 iterations) for one too slow to run thousands of times."""
    return name if levels()[name].limit.iterations <= 100 else "club"


def _differences(answers: dict[str, Any], where: str) -> Iterator[str]:
    reference = answers[SOURCES[0]]
    for source, answer in answers.items():
        if answer != reference:
            fields = sorted(k for k in set(answer) | set(reference) if answer.get(k) != reference.get(k))
            yield f"{where}: the {source} answers differently from the record in {', '.join(fields)}"
