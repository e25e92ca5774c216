"""Fuzzing the cacao.v1 service: mutated requests of all seven RPCs, raw bytes and
oversized messages, sent to a real server; used by tests/test_fuzz_server.py (a
bounded run) and benchmarks/fuzz_server.py (a long run).

A case is (method, request bytes). Its outcome is the status code name, "OK",
or "HANG" when the client's deadline passed; INTERNAL, UNKNOWN, HANG and
UNAVAILABLE (a dead server) are failures.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Position
from cacaoai.search import puzzles

SERVICE = "/cacao.v1.CacaoService/"
METHODS = ("GetServerInfo", "NewGame", "ListLegalActions", "ApplyAction", "SuggestAction",
           "AnalyzePosition", "Analyze", "ValidateRecord", "ReviewGame", "GetPuzzle", "CheckPuzzle")
STREAMING = {"AnalyzePosition"}
FIRST_ONLY = {"ReviewGame"}  # a review of a long game is long: its first message is read, then it is cancelled
BIDI = {"Analyze"}  # the case's bytes are the first message; every other case also sends stop
STOP = pb.AnalyzeRequest(stop=pb.StopAnalysis()).SerializeToString()
FAILURES = ("INTERNAL", "UNKNOWN", "HANG", "UNAVAILABLE")
# flags that keep fuzzed searches short, so a run spends its time on requests
SERVER_FLAGS = ("--max-time", "0.05", "--max-iterations", "300", "--max-searches", "2")

INTS = (0, 1, -1, 2, 3, 4, 5, 28, 29, 31, 32, 33, 64, 255, 256, 4095, 4096, 2**15, 2**31 - 1,
        -2**31, 2**31, 2**32 - 1, 2**63 - 1, -2**63, 2**64 - 1)
TEXTS = ("", "casual", "x" * 20000, "f" * 16, "\u00e9\u4e2d\U0001F600" * 50, "\x00\n%", "[" * 5000,
         "{\"format\": \"cacao-record/1\"}", "1" * 5000, "null", "casual\x00")


def corpus(seed: int = 0) -> list[tuple[str, Message]]:
    """Valid requests of every RPC, from games of 2, 3 and 4 players at several stages."""
    rng = random.Random(seed)
    cases: list[tuple[str, Message]] = [("GetServerInfo", pb.GetServerInfoRequest()),
                                        ("NewGame", pb.NewGameRequest(players=3, seed=5))]
    for players in (2, 3, 4):
        position = Position.new(players, rng.randrange(2**32))
        for plies in (0, 5, 25, 200):
            while len(position.history) < plies and not position.is_over:
                position.apply(rng.choice(position.legal_actions()))
            snap = convert.position_from_json(position.snapshot())
            record = convert.record_from_json(position.record())
            sources = [{"position": snap}, {"record": record}]
            if not position.is_over:
                view = position.to_act
                sources.append({"position": convert.position_from_json(position.observation(view))})
                action = convert.action_from_json(position.legal_actions()[0].to_json())
                cases.append(("ApplyAction", pb.ApplyActionRequest(
                    position=snap, action=action, expected_position_hash=position.hash())))
                cases.append(("ApplyAction", pb.ApplyActionRequest(record=record, action=action)))
            legal = ([convert.action_from_json(a.to_json()) for a in position.legal_actions()[:3]]
                     if not position.is_over else [])
            for source in sources:
                cases.append(("ListLegalActions", pb.ListLegalActionsRequest(**source)))
                cases.append(("SuggestAction", pb.SuggestActionRequest(
                    **source, limits=pb.SearchLimits(iterations=50), seed=1, max_candidates=3)))
                cases.append(("SuggestAction", pb.SuggestActionRequest(
                    **source, limits=pb.SearchLimits(iterations=50), allow=legal[:2],
                    avoid=legal[1:2], reuse_tree=True)))
                cases.append(("AnalyzePosition", pb.AnalyzePositionRequest(
                    **source, level="casual", seed=2)))
                start = pb.AnalyzePositionRequest(**source, limits=pb.SearchLimits(iterations=50),
                                                  avoid=legal[:1], max_candidates=2)
                if not position.is_over:
                    start.seat = position.view if "view" in source else 0
                cases.append(("Analyze", pb.AnalyzeRequest(start=start)))
            cases.append(("ValidateRecord", pb.ValidateRecordRequest(record=record)))
            cases.append(("ValidateRecord", pb.ValidateRecordRequest(
                record_json=json.dumps(position.record()))))
            cases.append(("ReviewGame", pb.ReviewGameRequest(
                record=record, limits=pb.SearchLimits(iterations=20), seed=3, seats=[0])))
            cases.append(("ReviewGame", pb.ReviewGameRequest(record_json=json.dumps(position.record()))))
    shipped = puzzles.load()  # what the fuzzed server serves
    for puzzle in shipped[:3]:
        cases.append(("GetPuzzle", pb.GetPuzzleRequest(
            theme=puzzle.themes[0], min_rating=puzzle.rating, max_rating=puzzle.rating, players=puzzle.players,
            exclude=[shipped[-1].id], seed=1)))
        other = Position.from_observation(dict(puzzle.view), 0).legal_actions()[0]
        for action in (puzzle.solutions[0], other):
            cases.append(("CheckPuzzle", pb.CheckPuzzleRequest(
                puzzle_id=puzzle.id, action=convert.action_from_json(action.to_json()))))
    return cases


def _value(f: FieldDescriptor, rng: random.Random) -> Any:
    """A hostile value for a scalar field (a valid one for its type)."""
    t = f.type
    if t == FieldDescriptor.TYPE_ENUM:
        return rng.choice([0, 1, 2, 5, 10, 11, 99, -1, 2**31 - 1, -2**31])
    if t == FieldDescriptor.TYPE_STRING:
        return rng.choice(TEXTS)
    if t == FieldDescriptor.TYPE_BOOL:
        return rng.random() < 0.5
    if t == FieldDescriptor.TYPE_BYTES:
        return rng.randbytes(rng.randrange(64))
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return rng.choice([0.0, -1.0, 1e300, float("nan"), float("inf")])
    bits = 64 if t in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64,
                       FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_FIXED64,
                       FieldDescriptor.TYPE_SFIXED64) else 32
    unsigned = t in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64,
                     FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64)
    lo, hi = (0, 2**bits - 1) if unsigned else (-2**(bits - 1), 2**(bits - 1) - 1)
    fits = [v for v in INTS if lo <= v <= hi]
    return rng.choice(fits) if rng.random() < 0.8 else rng.randint(lo, hi)


def _messages(message: Message) -> list[Message]:
    """`message` and every message inside it."""
    out = [message]
    for f, value in message.ListFields():
        if f.type != FieldDescriptor.TYPE_MESSAGE:
            continue
        if f.is_repeated:
            if f.message_type.GetOptions().map_entry:
                continue
            for item in value:
                out += _messages(item)
        else:
            out += _messages(value)
    return out


def mutate(message: Message, rng: random.Random) -> None:
    """One structured change somewhere in `message`: a field set to a hostile value,
    cleared, a repeated field grown, shrunk or shuffled, a sub-message emptied."""
    target = rng.choice(_messages(message))
    if not target.DESCRIPTOR.fields:
        return
    f = rng.choice(target.DESCRIPTOR.fields)
    repeated = f.is_repeated
    is_message = f.type == FieldDescriptor.TYPE_MESSAGE
    roll = rng.random()
    if roll < 0.15:
        target.ClearField(f.name)
    elif repeated:
        items = getattr(target, f.name)
        if is_message:
            if items and roll < 0.5:
                for _ in range(rng.choice([1, 2, 10, 500])):
                    items.add().CopyFrom(rng.choice(items))
            elif items and roll < 0.7:
                del items[rng.randrange(len(items))]
            else:
                items.add()
        elif roll < 0.5 and len(items) > 1:
            values = list(items)
            rng.shuffle(values)
            del items[:]
            items.extend(values)
        else:
            items.extend(_value(f, rng) for _ in range(rng.choice([1, 3, 30, 500])))
    elif is_message:
        getattr(target, f.name).SetInParent()
        if roll < 0.4:
            getattr(target, f.name).Clear()
            getattr(target, f.name).SetInParent()
    else:
        setattr(target, f.name, _value(f, rng))


def raw_bytes(data: bytes, rng: random.Random) -> bytes:
    """Bytes near a valid request: flipped, cut, spliced, or plain random."""
    roll = rng.random()
    if roll < 0.25 or not data:
        return rng.randbytes(rng.randrange(1, 300))
    if roll < 0.5:
        return data[:rng.randrange(len(data))]
    out = bytearray(data)
    for _ in range(rng.randrange(1, 8)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    if roll > 0.85:
        out[rng.randrange(len(out)):rng.randrange(len(out))] = rng.randbytes(rng.randrange(20))
    return bytes(out)


def oversized(rng: random.Random, limit: int = 4 * 1024 * 1024) -> tuple[str, bytes]:
    """A request just under or over the server's message limit."""
    size = rng.choice([limit - 1024, limit + 1, 2 * limit])
    kind = rng.random()
    if kind < 0.4:
        request = pb.ValidateRecordRequest(record_json="[" * size)
        return "ValidateRecord", request.SerializeToString()
    if kind < 0.7:
        request = pb.SuggestActionRequest(level="y" * size)
        return "SuggestAction", request.SerializeToString()
    position = pb.Position(players=2)
    position.board.extend(pb.BoardTile(x=i % 100, y=i // 100, jungle=1) for i in range(size // 8))
    return rng.choice(["ListLegalActions", "ApplyAction", "AnalyzePosition"]), \
        pb.ListLegalActionsRequest(position=position).SerializeToString()


def cases(seed: int, count: int, max_message_bytes: int = 4 * 1024 * 1024,
          oversized_every: int = 200) -> Iterator[tuple[str, bytes]]:
    """`count` fuzz cases (method, request bytes), the same for the same seed."""
    rng = random.Random(seed)
    base = corpus(seed)
    for i in range(count):
        if oversized_every and i % oversized_every == oversized_every - 1:
            yield oversized(rng, max_message_bytes)
            continue
        method, request = rng.choice(base)
        if rng.random() < 0.2:  # the right bytes sent to another method
            method = rng.choice(METHODS)
        message = type(request)()
        message.CopyFrom(request)
        for _ in range(rng.choice([0, 1, 1, 2, 3, 6])):
            mutate(message, rng)
        data = message.SerializeToString()
        if rng.random() < 0.15:
            data = raw_bytes(data, rng)
        yield method, data


@dataclass
class Outcomes:
    """What a fuzz run saw: status counts and the failing cases."""

    counts: Counter = field(default_factory=Counter)
    failures: list[tuple[str, str, bytes]] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return sum(self.counts.values())

    def failed(self) -> int:
        return sum(self.counts[name] for name in FAILURES)


def send(channel: grpc.Channel, method: str, data: bytes, timeout: float,
         wait_for_ready: bool = False) -> str:
    """One case: the status code name ("OK" on success, "HANG" past the deadline).
    With ``wait_for_ready`` the call waits for the channel to (re)connect."""
    def identity(data: bytes) -> bytes:
        return data

    try:
        if method in BIDI:
            call = channel.stream_stream(SERVICE + method, request_serializer=identity,
                                         response_deserializer=identity)
            messages = [data, STOP] if len(data) % 2 else [data]
            for _ in call(iter(messages), timeout=timeout, wait_for_ready=wait_for_ready):
                pass
        elif method in STREAMING or method in FIRST_ONLY:
            call = channel.unary_stream(SERVICE + method, request_serializer=identity,
                                        response_deserializer=identity)
            stream = call(data, timeout=timeout, wait_for_ready=wait_for_ready)
            for _ in stream:
                if method in FIRST_ONLY:
                    stream.cancel()
                    break
        else:
            call = channel.unary_unary(SERVICE + method, request_serializer=identity,
                                       response_deserializer=identity)
            call(data, timeout=timeout, wait_for_ready=wait_for_ready)
        return "OK"
    except grpc.RpcError as error:
        code = error.code()
        return "HANG" if code == grpc.StatusCode.DEADLINE_EXCEEDED else code.name


def run(address: str, seed: int, count: int, timeout: float = 20.0,
        progress: Callable[[int, Outcomes], None] | None = None,
        alive: Callable[[], bool] = lambda: True) -> Outcomes:
    """Sends `count` fuzz cases to the server at `address`, one at a time."""
    outcomes = Outcomes()
    options = [("grpc.max_send_message_length", 64 * 1024 * 1024),
               ("grpc.max_receive_message_length", 64 * 1024 * 1024)]
    with grpc.insecure_channel(address, options=options) as channel:
        for i, (method, data) in enumerate(cases(seed, count)):
            outcome = send(channel, method, data, timeout)
            if outcome == "UNAVAILABLE" and alive():
                # a dropped connection: once more, when the channel has connected again
                outcome = send(channel, method, data, timeout, wait_for_ready=True)
            outcomes.counts[outcome] += 1
            if outcome in FAILURES:
                outcomes.failures.append((outcome, method, data))
            if progress:
                progress(i + 1, outcomes)
    return outcomes
