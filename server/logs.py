"""Logging of a server: plain text, or one JSON object a line.

``--log-format json`` turns every log record into a JSON line and adds one line
per finished call (logger ``cacaoai.server.calls``)::

    {"time": "2026-12-01T02:40:00.123Z", "level": "INFO", "logger": "cacaoai.server.calls",
     "message": "call", "method": "cacao.v1.CacaoService/SuggestAction", "code": "OK",
     "duration_ms": 105.2, "position_hash": "9f0c...", "iterations": 2210,
     "search_ms": 100.1, "stopped_by": "time", "peer": "ipv4:127.0.0.1:51234"}

Thread-safety: :class:`CallLog` only calls the (thread-safe) logging module.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from .observe import CallRecord

LOG_FORMATS = ("text", "json")
CALL_LOGGER = "cacaoai.server.calls"

_TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# attributes every LogRecord has; anything else was passed as ``extra``
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC), level, logger, message, extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
                    + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure(log_format: str = "text", level: int = logging.INFO) -> None:
    """Sets up the root logger on stderr in the given format ("text" or "json")."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"log format must be one of {', '.join(LOG_FORMATS)}, got {log_format!r}")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(_TEXT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


class CallLog:
    """The call hook that writes one log line per finished call."""

    def __init__(self, logger: logging.Logger | None = None):
        self.logger = logger or logging.getLogger(CALL_LOGGER)

    def __call__(self, call: CallRecord) -> None:
        fields: dict[str, Any] = {
            "method": f"{call.service}/{call.method}",
            "code": call.code,
            "duration_ms": round(call.seconds * 1000, 3),
            "position_hash": call.position_hash,
            "peer": call.peer,
        }
        if call.iterations:
            fields.update(iterations=call.iterations,
                          search_ms=round(call.search_seconds * 1000, 3),
                          stopped_by=call.stopped_by)
        self.logger.info("call", extra=fields)
