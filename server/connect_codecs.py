"""Connect (connectrpc) codecs and errors: proto3 JSON and binary protobuf
that refuse what does not decode with INVALID_ARGUMENT, and an
:class:`~.errors.ApiError` as a ``ConnectError`` with the same code, message
and ``google.rpc`` details (BadRequest, PreconditionFailure, ErrorInfo, and
any other such as RetryInfo), each with its JSON as ``debug``.

Thread-safety: stateless.
"""

from __future__ import annotations

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from google.rpc import code_pb2
from protobuf.wkt import Any as AnyMessage

from cacaoai.api import error_details_pb as rpc
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason

from . import errors
from .errors import ApiError

# the google.rpc details a client may get, as the protobuf-py messages that
# connectrpc's errors hold (each is also written as JSON, "debug")
_DETAILS = {kind.desc().type_name: kind for kind in (
    rpc.BadRequest, rpc.PreconditionFailure, rpc.ErrorInfo, rpc.RetryInfo, rpc.QuotaFailure,
    rpc.ResourceInfo, rpc.RequestInfo, rpc.Help, rpc.LocalizedMessage, rpc.DebugInfo)}


# --- errors -------------------------------------------------------------------

def connect_code(code: grpc.StatusCode | int) -> Code:
    """The Connect code of a gRPC status code (an enum or its number)."""
    name = code.name if isinstance(code, grpc.StatusCode) else code_pb2.Code.Name(code)
    return Code.CANCELED if name == "CANCELLED" else Code[name]


def grpc_code_name(code: Code) -> str:
    """The gRPC name of a Connect code (what call records and metrics show)."""
    return "CANCELLED" if code is Code.CANCELED else code.name


def connect_error(error: ApiError) -> ConnectError:
    """An API error as a Connect error: the same code and message, and its
    ``google.rpc`` details (each kept whole, and readable as ``debug`` when it
    is one of the standard details)."""
    status = error.to_status()
    details = []
    for packed in status.details:
        kind = _DETAILS.get(packed.type_url.rpartition("/")[2])
        message = (kind.from_binary(packed.value) if kind is not None
                   else AnyMessage(type_url=packed.type_url, value=packed.value))
        details.append(ErrorDetail(message))
    return ConnectError(connect_code(status.code), status.message, details)


# --- codecs -------------------------------------------------------------------

class JsonCodec:
    """proto3 JSON on one line, as the gRPC side's JSON tools write it; a request
    that does not parse (an unknown field included) is INVALID_ARGUMENT naming
    the message and the reason. An empty body is an empty message."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        return json_format.MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Message:
        message = message_class()
        try:
            json_format.Parse(bytes(data).decode("utf-8") or "{}", message)
        except (json_format.ParseError, UnicodeDecodeError) as error:
            raise _undecodable(message_class, "json", error) from None
        return message


class ProtoCodec:
    """Binary protobuf; bytes that do not decode are INVALID_ARGUMENT."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: Message) -> bytes:
        return message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Message:
        try:
            return message_class.FromString(bytes(data))
        except DecodeError as error:
            raise _undecodable(message_class, "proto", error) from None


def _undecodable(message_class: type[Message], codec: str, error: Exception) -> ConnectError:
    return connect_error(errors.invalid(
        "request", f"not a valid {message_class.DESCRIPTOR.full_name} ({codec}): {error}",
        ErrorReason.UNDECODABLE_REQUEST))


__all__ = ["JsonCodec", "ProtoCodec", "connect_code", "connect_error", "grpc_code_name"]
