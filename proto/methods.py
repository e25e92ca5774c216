"""The calls of ``cacao.v1.CacaoService`` and what every part must know of each: one table.

:data:`RPCS` holds one :class:`Rpc` per method of the service. The server
serves it (its method table, :mod:`cacaoai.server.methods`, binds each row to
the handler it names), its roles, limits, metrics and scheduler read it, the
Python client's retry policy is built from it, and the TypeScript client's
``src/gen/methods.ts`` and the docs' tables are generated from it
(``.ci/gen_methods.py``). What the proto says already (a method's streaming)
is read from the descriptor, not written again.

A call that *searches* (:attr:`Rpc.searches`) takes one of the server's
search slots, counts against the per-client search limit, is refused with
RESOURCE_EXHAUSTED when the slots are full (so clients retry it on that code
too), appears in the search metrics, and is denied to a ``rules`` token.

Thread-safety: immutable values.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from cacaoai.api.cacao.v1 import cacao_pb2 as pb

SERVICE = pb.DESCRIPTOR.services_by_name["CacaoService"]
SERVICE_NAME = SERVICE.full_name  # "cacao.v1.CacaoService"

#: Token roles (``--auth-tokens``): ``all`` may call everything; ``rules``
#: every call that does not search; ``background`` everything, its searches
#: always at background priority.
ROLES = ("all", "rules", "background")
#: The role whose searches always run at background priority.
BACKGROUND_ROLE = "background"
#: Codes a client may retry on any call: the server answered before doing anything.
RETRY_ALWAYS = ("UNAVAILABLE",)
#: Codes a client may also retry on a search: every search slot was busy.
RETRY_SEARCH = ("UNAVAILABLE", "RESOURCE_EXHAUSTED")


class Kind(enum.Enum):
    """How a call's handler gets to run on the server."""

    #: on the event loop when the request is small, else in the worker pool
    QUICK = "quick"
    #: a search answered once: its handler waits in the worker pool for a slot
    SEARCH = "search"
    #: a search that reports as it goes: started quick, run on a thread of its
    #: own once the scheduler admits it
    STREAM = "stream"


class Priority(enum.Enum):
    """The scheduler's queue class a search runs in when the request does not say."""

    INTERACTIVE = "interactive"
    BACKGROUND = "background"


@dataclass(frozen=True)
class Rpc:
    """One method of the service.

    Attributes:
        name: its name in the proto (``SuggestAction``).
        kind: how the server runs it; a SEARCH or STREAM call searches.
        handler: the server's handler (a ``CacaoApi`` function's name).
        admit: the server's admission check of a search (a ``CacaoApi``
            function's name), run on the event loop before any thread hop.
        priority: a search's queue class when the request asks none (None:
            not a search).
        fixed_priority: the request cannot ask another class (a review).
        errors_under: the field its request sits in (``start`` for Analyze);
            "" for the message itself.
    """

    name: str
    kind: Kind
    handler: str
    admit: str | None = None
    priority: Priority | None = None
    fixed_priority: bool = False
    errors_under: str = ""

    @property
    def full_name(self) -> str:
        """``/cacao.v1.CacaoService/SuggestAction``: the path gRPC and Connect use."""
        return f"/{SERVICE_NAME}/{self.name}"

    @property
    def searches(self) -> bool:
        return self.kind is not Kind.QUICK

    @property
    def server_streaming(self) -> bool:
        return bool(SERVICE.methods_by_name[self.name].server_streaming)

    @property
    def client_streaming(self) -> bool:
        return bool(SERVICE.methods_by_name[self.name].client_streaming)

    @property
    def retry_codes(self) -> tuple[str, ...]:
        """The status codes a client may send this call again on."""
        return RETRY_SEARCH if self.searches else RETRY_ALWAYS

    def allows(self, role: str) -> bool:
        """Whether a token of `role` may call it."""
        return role in ROLES and not (role == "rules" and self.searches)

    def priority_for(self, role: str) -> Priority | None:
        """The queue class a `role`'s search is held to (None: as asked)."""
        if not self.searches:
            return None
        return Priority.BACKGROUND if role == BACKGROUND_ROLE or self.fixed_priority else None


RPCS: tuple[Rpc, ...] = (
    Rpc("GetServerInfo", Kind.QUICK, "get_server_info"),
    Rpc("NewGame", Kind.QUICK, "new_game"),
    Rpc("ListLegalActions", Kind.QUICK, "list_legal_actions"),
    Rpc("ApplyAction", Kind.QUICK, "apply_action"),
    Rpc("ValidateRecord", Kind.QUICK, "validate_record"),
    Rpc("SuggestAction", Kind.SEARCH, "suggest_action", admit="admit_suggestion",
        priority=Priority.INTERACTIVE),
    Rpc("AnalyzePosition", Kind.STREAM, "start_analysis", admit="admit_analysis",
        priority=Priority.BACKGROUND),
    Rpc("Analyze", Kind.STREAM, "start_analysis", admit="admit_analysis",
        priority=Priority.BACKGROUND, errors_under="start"),
    Rpc("ReviewGame", Kind.STREAM, "review_game", admit="admit_review",
        priority=Priority.BACKGROUND, fixed_priority=True),
    Rpc("GetPuzzle", Kind.QUICK, "get_puzzle"),
    Rpc("CheckPuzzle", Kind.QUICK, "check_puzzle"),
)
BY_NAME: dict[str, Rpc] = {rpc.name: rpc for rpc in RPCS}
BY_PATH: dict[str, Rpc] = {rpc.full_name: rpc for rpc in RPCS}
#: The names of the calls that search.
SEARCHES: frozenset[str] = frozenset(rpc.name for rpc in RPCS if rpc.searches)


def missing_from_table() -> list[str]:
    """The service's methods that :data:`RPCS` lacks, and its rows the service
    lacks (a test keeps this empty)."""
    served = {method.name for method in SERVICE.methods}
    return sorted(served ^ set(BY_NAME))


__all__ = ["BACKGROUND_ROLE", "BY_NAME", "BY_PATH", "RETRY_ALWAYS", "RETRY_SEARCH", "ROLES", "RPCS", "SEARCHES",
           "SERVICE", "SERVICE_NAME", "Kind", "Priority", "Rpc", "missing_from_table"]
