"""The proto is the one source of the API's fields: docs/protocol.md documents
every field of every message, and the Python client's reply types carry every
field of the messages they mirror. Both are hand-written beside the generated
code, so these tests walk the protobuf descriptors and name what fell behind.

No server: unit tests over cacao_pb2, docs/protocol.md and the client's types.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from cacaoai.api import (
    Candidate,
    DecisionReview,
    Explanation,
    Forecast,
    Limit,
    Part,
    PartForecast,
    ReviewSummary,
    RootInfo,
    SearchResult,
    SeatForecast,
    SeatOutlook,
    SeatReview,
    TempleChange,
    TempleForecast,
)
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.client import replies

PROTOCOL = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
PACKAGE = pb.DESCRIPTOR.package + "."


def _messages(descriptors) -> list[Descriptor]:
    """Every message of the file, nested ones after their parent."""
    out = []
    for message in descriptors:
        out.append(message)
        out.extend(_messages(message.nested_types))
    return out


def _name(message: Descriptor) -> str:
    """A message's name in the package: "Standing", "Action.Place"."""
    return message.full_name.removeprefix(PACKAGE)


MESSAGES = {_name(m): m for m in _messages(pb.DESCRIPTOR.message_types_by_name.values())}
ENUMS = [*pb.DESCRIPTOR.enum_types_by_name.values(),
         *(e for m in MESSAGES.values() for e in m.enum_types)]


# --- docs/protocol.md documents every field ---------------------------------------
#
# protocol.md documents a message in two forms, and the test reads both:
# - a table whose first column names fields in backticks; the table belongs to
#   the message that the paragraph just before it names first (`GetServerInfoResponse`:,
#   Each report is an `AnalyzePositionResponse`:), else to the message its section is
#   headed by (### Evaluation);
# - a definition in prose, `Name`: followed by the fields in backticks, up to the
#   end of its paragraph, its parenthesis or its table cell
#   (`Draws`: `worker_tile_drawn` ..., (repeated `Fill`: `x`, `y`, `tile`)).
# Nested messages go by their dotted name (`Action.Place`:).

# Messages deliberately not documented field by field, each with the reason:
# none today; every message has its table or its definition.
UNDOCUMENTED: dict[str, str] = {}

_TICKED = re.compile(r"`([A-Za-z_][\w.]*)`")
_DEFINITION = re.compile(r"`([A-Za-z_][\w.]*)`:")


def _prose(text: str) -> str:
    """The page without its code blocks (their lines are neither headings nor tables)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _tables(text: str) -> dict[str, set[str]]:
    """Message name -> the names in the first column of its tables."""
    out: dict[str, set[str]] = {}
    heading = ""
    before = ""
    for block in re.split(r"\n\s*\n", _prose(text)):
        block = block.strip("\n")
        if block.startswith("#"):
            heading, _, block = block.partition("\n")
            heading, before = heading.lstrip("#").strip(), ""
        if block.startswith("|"):
            first = _TICKED.search(before)
            owner = first.group(1) if first and first.group(1) in MESSAGES else heading
            if owner in MESSAGES:
                for row in block.splitlines()[2:]:  # past the header and its rule
                    cell = row.strip("|").split("|")[0]
                    out.setdefault(owner, set()).update(_TICKED.findall(cell))
        before = block
    return out


def _definitions(text: str) -> dict[str, set[str]]:
    """Message or enum name -> the names its prose definitions tick."""
    out: dict[str, set[str]] = {}
    text = _prose(text)
    for match in _DEFINITION.finditer(text):
        depth, end = 0, match.end()
        while end < len(text) and text[end] != "|" and not text.startswith("\n\n", end):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth < 0:
                break
            end += 1
        out.setdefault(match.group(1), set()).update(_TICKED.findall(text[match.end():end]))
    return out


def test_docs_document_every_field_of_every_message():
    text = PROTOCOL.read_text()
    tables, definitions = _tables(text), _definitions(text)
    missing = []
    for name, message in MESSAGES.items():
        if name in UNDOCUMENTED:
            continue
        documented = tables.get(name, set()) | definitions.get(name, set())
        missing += [f"{name}.{f.name}" for f in message.fields if f.name not in documented]
        if not message.fields and f"`{name}`" not in text:
            missing.append(f"{name} (a message without fields, never named)")
    assert not missing, f"docs/protocol.md does not document {len(missing)} fields: {missing}"


def test_the_docs_tables_name_only_fields_of_their_message():
    stale = [f"{name}: {sorted(names - {f.name for f in MESSAGES[name].fields})}"
             for name, names in _tables(PROTOCOL.read_text()).items()
             if names - {f.name for f in MESSAGES[name].fields}]
    assert not stale, f"rows of docs/protocol.md name no field of their message: {stale}"


def test_docs_name_every_enum_and_value():
    text = PROTOCOL.read_text()
    ticked = set(_TICKED.findall(text))
    missing = [enum.name for enum in ENUMS if enum.name not in ticked]
    missing += [value.name for enum in ENUMS for value in enum.values
                if not value.name.endswith("_UNSPECIFIED") and value.name not in ticked]
    assert "Each enum has an `_UNSPECIFIED` value 0" in text  # said once for all of them
    assert not missing, f"docs/protocol.md does not name {missing}"


# --- the client's reply types carry every field ------------------------------------
#
# Each reply type mirrors one message, or several when it flattens a message
# into the type: the fields of a flattened message are the type's own, and the
# field that holds it needs no attribute (Applied flattens Draws; Placement,
# TilePlacement's BoardTile and its PlacedWorker). The client's naming convention:
# a field keeps its name, a Duration becomes float seconds named `<field>_s`, and
# RENAMED lists the other names. SearchResult and its parts are the search's
# types, which the client re-exports as its Evaluation.

MIRRORS: dict[type, tuple[Descriptor, ...]] = {
    replies.ServerInfo: (pb.GetServerInfoResponse.DESCRIPTOR,),
    replies.ServerLimits: (pb.ServerLimits.DESCRIPTOR,),
    replies.RulesFacts: (pb.RulesFacts.DESCRIPTOR,),
    replies.WorkerTileFacts: (pb.WorkerTileFacts.DESCRIPTOR,),
    replies.JungleTileFacts: (pb.JungleTileFacts.DESCRIPTOR,),
    replies.NewGame: (pb.NewGameResponse.DESCRIPTOR,),
    replies.LegalActions: (pb.ListLegalActionsResponse.DESCRIPTOR,),
    replies.Standing: (pb.Standing.DESCRIPTOR,),
    replies.SeatScore: (pb.SeatScore.DESCRIPTOR,),
    replies.TempleStanding: (pb.TempleStanding.DESCRIPTOR,),
    replies.Applied: (pb.ApplyActionResponse.DESCRIPTOR, pb.Draws.DESCRIPTOR),
    replies.Placement: (pb.TilePlacement.DESCRIPTOR, pb.BoardTile.DESCRIPTOR,
                        pb.PlacedWorker.DESCRIPTOR),
    replies.CoveredWorker: (pb.CoveredWorker.DESCRIPTOR,),
    replies.Activation: (pb.Activation.DESCRIPTOR,),
    replies.Suggestion: (pb.SuggestActionResponse.DESCRIPTOR,),
    replies.AnalysisReport: (pb.AnalyzePositionResponse.DESCRIPTOR,),
    replies.Validation: (pb.ValidateRecordResponse.DESCRIPTOR,),
    SearchResult: (pb.Evaluation.DESCRIPTOR,),
    SeatOutlook: (pb.SeatOutlook.DESCRIPTOR,),
    Candidate: (pb.Candidate.DESCRIPTOR,),
    RootInfo: (pb.RootInfo.DESCRIPTOR,),
    Limit: (pb.SearchLimits.DESCRIPTOR,),
    replies.ReviewReport: (pb.ReviewGameResponse.DESCRIPTOR,),
    DecisionReview: (pb.DecisionReview.DESCRIPTOR,),
    ReviewSummary: (pb.ReviewSummary.DESCRIPTOR,),
    SeatReview: (pb.SeatReview.DESCRIPTOR,),
    Explanation: (pb.Explanation.DESCRIPTOR,),
    Part: (pb.ScorePart.DESCRIPTOR,),
    TempleChange: (pb.TempleChange.DESCRIPTOR,),
    Forecast: (pb.Forecast.DESCRIPTOR,),
    TempleForecast: (pb.TempleForecast.DESCRIPTOR,),
    SeatForecast: (pb.SeatForecast.DESCRIPTOR,),
    PartForecast: (pb.PartForecast.DESCRIPTOR,),
}

RENAMED = {
    "Draws.worker_tile": "worker_tile_drawn",  # the tile drawn, None when none was
    "BoardTile.jungle": "tile",  # a jungle tile's or a worker tile's name
    "PlacedWorker.rotation": "rot",  # as in the record's JSON form
    "CoveredWorker.rotation": "rot",
    "Evaluation.limits": "limit",
    # a review's counts per class are one dict, class -> count
    "SeatReview.best": "counts",
    "SeatReview.good": "counts",
    "SeatReview.inaccuracies": "counts",
    "SeatReview.mistakes": "counts",
    "SeatReview.blunders": "counts",
}

# Messages a reply carries that the client reads into a form of its own, not a
# dataclass of their fields: each form has its conversion and its tests.
CONVERTED = {
    "Position": "a cacao-position/1 dict (convert.position_to_json)",
    "GameRecord": "a cacao-record/1 dict (convert.record_to_json)",
    "GameResult": "the record's result dict (convert.result_to_json)",
    "Action": "an engine Action",
    "StrengthLevel": "ServerInfo.levels: name -> Limit",
    "SeatGains": "Applied.gains: seat -> {gold, cacao, sun, water}",
}

# Fields a reply type does not carry yet, each with the reason. Evaluation's
# scheduling facts are the server's, and SearchResult (cacaoai.search, the
# search's own result type) has no place for them.
NOT_CARRIED = {
    "Evaluation.priority": "the server's scheduling, not in SearchResult",
    "Evaluation.queued": "the server's scheduling, not in SearchResult",
    "Evaluation.paused": "the server's scheduling, not in SearchResult",
}


def _attributes(cls: type) -> set[str]:
    names = {f.name for f in dataclasses.fields(cls)}
    return names | {n for k in cls.__mro__ for n, v in vars(k).items() if isinstance(v, property)}


def _attribute(message: Descriptor, field: FieldDescriptor) -> str:
    key = f"{_name(message)}.{field.name}"
    if key in RENAMED:
        return RENAMED[key]
    if field.message_type is not None and field.message_type.full_name == "google.protobuf.Duration":
        return f"{field.name}_s"
    return field.name


def test_every_reply_type_carries_every_field_of_its_messages():
    missing = []
    for cls, messages in MIRRORS.items():
        have = _attributes(cls)
        for message in messages:
            for field in message.fields:
                key = f"{_name(message)}.{field.name}"
                if field.message_type in messages or key in NOT_CARRIED:
                    continue
                if _attribute(message, field) not in have:
                    missing.append(f"{cls.__name__}.{_attribute(message, field)} ({key})")
    assert not missing, f"the client's reply types miss {len(missing)} fields: {missing}"


def test_every_message_a_reply_carries_is_mirrored_or_converted():
    mirrored = {m.full_name for messages in MIRRORS.values() for m in messages}
    converted = {PACKAGE + name for name in CONVERTED}
    service = pb.DESCRIPTOR.services_by_name["CacaoService"]
    todo = [method.output_type for method in service.methods]
    seen, unread = set(), []
    while todo:
        message = todo.pop()
        if message.full_name in seen or message.full_name in converted:
            continue
        seen.add(message.full_name)
        if not message.full_name.startswith(PACKAGE):
            continue  # google.protobuf.Duration: float seconds
        if message.full_name not in mirrored:
            unread.append(_name(message))
        todo += [f.message_type for f in message.fields if f.message_type is not None]
    assert not unread, f"no client type mirrors {sorted(unread)}"


def test_the_allow_lists_are_still_needed():
    # a field carried at last leaves NOT_CARRIED; every name in the lists exists
    assert set(UNDOCUMENTED) <= set(MESSAGES)
    fields = {f"{_name(m)}.{f.name}": (cls, m, f) for cls, ms in MIRRORS.items()
              for m in ms for f in m.fields}
    assert set(NOT_CARRIED) | set(RENAMED) <= set(fields)
    carried = [key for key in NOT_CARRIED
               if _attribute(fields[key][1], fields[key][2]) in _attributes(fields[key][0])]
    assert not carried, f"remove from NOT_CARRIED: {carried}"
    assert set(CONVERTED) <= set(MESSAGES)
