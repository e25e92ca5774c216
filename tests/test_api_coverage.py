"""The proto is the one source of the API's fields: docs/protocol.md documents
every field of every message. It is hand-written beside the generated code, so
these tests walk the protobuf descriptors and name what fell behind.

No server: unit tests over cacao_pb2 and docs/protocol.md.
"""

from __future__ import annotations

import re
from pathlib import Path

from google.protobuf.descriptor import Descriptor

from cacaoai.api.cacao.v1 import cacao_pb2 as pb

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


def test_the_docs_allow_list_is_of_messages():
    assert set(UNDOCUMENTED) <= set(MESSAGES)
