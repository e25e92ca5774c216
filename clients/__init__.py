"""Clients of the Cacao service (API ``cacao.v1``), installed as ``cacaoai.client``.

- :mod:`.client`: the typed client library (:class:`CacaoClient`).
- :mod:`.aio`: the same as coroutines on grpc.aio (:class:`AsyncCacaoClient`).
- :mod:`.play`: ``cacao-play``, a game in the terminal against the AI.
- :mod:`.match`: ``cacao-match``, AI-vs-AI games through a server.
- :mod:`.notation` and :mod:`.board`: the action notation and the text board.
- ``examples/embed.py`` (in the source tree): a front end that keeps the true
  game and asks the service only for the AI seat's decisions.
"""

from .aio import AsyncAnalysis, AsyncCacaoClient
from .client import (
    Activation,
    Analysis,
    AnalysisReport,
    Applied,
    CacaoClient,
    CacaoClientError,
    Candidate,
    Evaluation,
    LegalActions,
    NewGame,
    Placement,
    RootInfo,
    SearchBudget,
    SeatOutlook,
    ServerInfo,
    ServerLimits,
    Source,
    Strength,
    Suggestion,
    Validation,
    add_connection_flags,
    connection_settings,
    evaluation_lines,
)

__all__ = [
    "Activation", "Analysis", "AnalysisReport", "Applied", "AsyncAnalysis", "AsyncCacaoClient",
    "CacaoClient", "CacaoClientError", "Candidate", "Evaluation", "LegalActions", "NewGame",
    "Placement", "RootInfo", "SearchBudget", "SeatOutlook",
    "ServerInfo", "ServerLimits", "Source", "Strength", "Suggestion", "Validation",
    "add_connection_flags", "connection_settings", "evaluation_lines",
]
