"""The ErrorReason enum of cacao.proto is the one home of the service's error
reasons: docs/protocol.md has a row for each, with the status code the proto
comment gives, and the server sends no reason outside it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grpc
import pytest

from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.client import CacaoClientError
from cacaoai.server import errors

ROOT = Path(__file__).resolve().parents[1]
REASONS = [name for name in ErrorReason.keys() if name != "ERROR_REASON_UNSPECIFIED"]


def _docs_rows() -> dict[str, str]:
    """reason -> status code, from the table under docs/protocol.md's "### Reasons"."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    section = text.split("\n### Reasons\n", 1)[1].split("\n### ", 1)[0]
    return dict(re.findall(r"^\| `([A-Z_]+)` \| `([A-Z_]+)` \|", section, re.M))


def _proto_codes() -> dict[str, str]:
    """reason -> status code, from the comment above each ErrorReason value in cacao.proto."""
    text = (ROOT / "proto" / "cacao" / "v1" / "cacao.proto").read_text()
    body = text.split("enum ErrorReason {", 1)[1].split("\n}", 1)[0]
    return dict((name, code) for code, name in
                re.findall(r"^  // ([A-Z_]+): (?:[^\n]*\n  // )*[^\n]*\n  ([A-Z_]+) = \d+;", body, re.M))


def test_every_reason_has_its_row_in_the_docs_with_the_code_the_proto_gives():
    codes = _proto_codes()
    assert sorted(codes) == sorted(REASONS)
    assert all(code in grpc.StatusCode.__members__ for code in codes.values())
    assert _docs_rows() == codes


def _server_sources() -> list[Path]:
    return sorted((ROOT / "server").glob("*.py")) + [ROOT / "proto" / "convert.py"]


def test_the_server_defines_no_reason_of_its_own():
    """Reason names appear in the server's code only as ErrorReason attributes:
    no string literal re-types one (status code names, which some reasons
    share, aside), and only server/errors.py builds an ErrorInfo."""
    shared = set(REASONS) & set(grpc.StatusCode.__members__)
    for path in _server_sources():
        tree = ast.parse(path.read_text())
        literals = {node.value for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        assert not (literals & set(REASONS)) - shared, path
        built = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Attribute) and node.func.attr == "ErrorInfo"]
        assert not built or path.name == "errors.py", path


def test_an_error_sends_the_name_of_its_reason_and_refuses_one_outside_the_enum():
    status = errors.invalid("action.seat", "not this seat's turn", ErrorReason.ILLEGAL_ACTION).to_status()
    assert b"ILLEGAL_ACTION" in status.details[-1].value
    with pytest.raises(ValueError):
        errors.ApiError(grpc.StatusCode.INTERNAL, "x", 999).to_status()  # type: ignore[arg-type]


def test_the_client_reads_a_reason_as_the_enum_and_one_it_does_not_know_as_unspecified():
    def error(reason: str) -> CacaoClientError:
        return CacaoClientError(grpc.StatusCode.INVALID_ARGUMENT, "x", reason=reason)
    assert error("GAME_OVER").error_reason == ErrorReason.GAME_OVER
    assert error("A_REASON_OF_A_NEWER_SERVER").error_reason == ErrorReason.ERROR_REASON_UNSPECIFIED
    assert error("").error_reason == ErrorReason.ERROR_REASON_UNSPECIFIED
