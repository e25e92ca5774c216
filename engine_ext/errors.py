"""Errors of the engine. All are ValueErrors, split by cause."""

from __future__ import annotations

MAX_REASON_CHARS = 300  # a reason may echo a client's value: keep it short


def clip(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """`text` cut to at most `limit` characters, marked when cut."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


class CacaoError(ValueError):
    """Base of every error the engine raises for bad input (its text clipped)."""

    def __init__(self, message: str = ""):
        super().__init__(clip(str(message)))


class IllegalActionError(CacaoError):
    """A well-formed action that the position does not allow."""


class RecordError(CacaoError):
    """A record that does not replay: ``index`` is the first bad action, -1 for
    a bad header, ``len(actions)`` for a result that disagrees with the replay."""

    def __init__(self, index: int, message: str):
        message = clip(message)
        super().__init__(f"action {index}: {message}" if index >= 0 else message)
        self.index = index
        self.reason = message


class SnapshotError(CacaoError):
    """A position snapshot or observation that is malformed or impossible;
    ``field`` names where (for example ``seats[1].cacao``)."""

    def __init__(self, field: str, message: str):
        field, message = clip(field, 100), clip(message)
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message
