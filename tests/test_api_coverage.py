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
# TilePlacement's BoardTile and its PlacedWorker). The client reads each
# attribute from the field of its name (replies.attribute_name: a Duration
# becomes float seconds named `<field>_s`, replies.RENAMED lists the other
# names), so a field is carried once its type has the attribute. SearchResult
# and its parts are the search's types, which the client re-exports as its
# Evaluation; cacaoai.api.convert reads them.

MIRRORS: dict[type, tuple[Descriptor, ...]] = {
    **replies.MESSAGES,
    SearchResult: (pb.Evaluation.DESCRIPTOR,),
    SeatOutlook: (pb.SeatOutlook.DESCRIPTOR,),
    Candidate: (pb.Candidate.DESCRIPTOR,),
    RootInfo: (pb.RootInfo.DESCRIPTOR,),
    Limit: (pb.SearchLimits.DESCRIPTOR,),
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

# the client's names (replies.RENAMED), and those of the search's types
RENAMED = {
    **replies.RENAMED,
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
    return RENAMED.get(f"{_name(message)}.{field.name}") or replies.attribute_name(message, field)


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


# --- the client reads every field into its attribute -------------------------------

DURATION = "google.protobuf.Duration"
READ_AS_PLAIN = {messages[0] for messages in replies.MESSAGES.values()}


def _plain(message: Descriptor) -> bool:
    """True when every field of `message` is a number, a text, an enum, a Duration
    or a message of the same kind: a message that can be filled without rules."""
    return all(f.message_type is None or f.message_type.full_name == DURATION
               or (f.message_type in READ_AS_PLAIN and _plain(f.message_type)) for f in message.fields)


def _fill(message) -> None:
    """Sets every field of `message` to a value other than its default."""
    for field in message.DESCRIPTOR.fields:
        if field.message_type is not None and field.message_type.full_name == DURATION:
            getattr(message, field.name).FromNanoseconds(1_500_000_000)
        elif field.message_type is not None:
            _fill(getattr(message, field.name).add() if field.is_repeated else getattr(message, field.name))
        else:
            value = (field.enum_type.values[-1].number if field.enum_type is not None
                     else "x" if field.type == field.TYPE_STRING else True if field.type == field.TYPE_BOOL
                     else 3)
            if field.is_repeated:
                getattr(message, field.name).append(value)
            else:
                setattr(message, field.name, value)


def test_every_field_of_a_reply_reaches_its_attribute():
    # each reply type of plain fields, read from a message with every field set and
    # from an empty one: every attribute differs, so no field is dropped on the way
    checked = []
    for cls, messages in replies.MESSAGES.items():
        if cls is replies.Placement or not _plain(messages[0]):
            continue
        full = getattr(pb, messages[0].name)()
        _fill(full)
        read_full, read_empty = replies._read(cls, full), replies._read(cls, type(full)())
        same = [f.name for f in dataclasses.fields(cls)
                if getattr(read_full, f.name) == getattr(read_empty, f.name)]
        assert not same, f"{cls.__name__}: {same} read the same from a full and an empty message"
        checked.append(cls.__name__)
    assert {"ServerLimits", "RulesFacts", "Standing", "Activation", "CoveredWorker"} <= set(checked)
