"""Clients of the Cacao service (API ``cacao.v1``), installed as ``cacaoai.client``.

    from cacaoai.client import CacaoClient, CacaoClientError, Limit

The client library, by concern:

- :mod:`.client`: :class:`CacaoClient`, one method per RPC.
- :mod:`.aio`: the same as coroutines on grpc.aio (:class:`AsyncCacaoClient`).
- :mod:`.analysis`: a running analysis that can be stopped with its answer.
- :mod:`.replies`: what the server answers, as frozen dataclasses.
- :mod:`.requests`: the request messages, built through :mod:`cacaoai.api.convert`.
- :mod:`.connection`: channel, retry policy, TLS, tokens and their command-line flags.
- :mod:`.errors`: :class:`CacaoClientError`, and :class:`ErrorReason`, why the service refused.
- :mod:`.text`: evaluations and strengths in words.
- :mod:`.local`: a cacao-server in its own process on a free port, for a
  session, a test, a script or a load test without a running server.

The programs:

- :mod:`.play`: ``cacao-play``, a game in the terminal against the AI.
- :mod:`.puzzles`: ``cacao-play --puzzles``, the puzzle trainer: the server's
  puzzles, two tries each, a streak and a puzzle rating.
- :mod:`.match`: ``cacao-match``, AI-vs-AI games through a server.
- :mod:`.notation` and :mod:`.board`: the action notation and the text board.
- :mod:`.console`: their terminal plumbing: the status line that follows a
  search, and a quiet end on Ctrl-C or a closed pipe.
- ``examples/embed.py`` and ``examples/analyze.py`` (in the source tree): a
  front end that keeps the true game and asks the service only for the AI
  seat's decisions; analysis with stop, MultiPV, allow/avoid and pondering.

The package imports only the API (:mod:`cacaoai.api`), the engine, grpc and
protobuf: never the server.
"""

from cacaoai.api import (
    Candidate,
    DecisionReview,
    Explanation,
    Limit,
    ReviewSummary,
    RootInfo,
    SearchResult,
    SeatOutlook,
    SeatReview,
    sentence,
)

from .aio import AsyncAnalysis, AsyncCacaoClient
from .analysis import Analysis
from .client import CacaoClient
from .connection import add_connection_flags, connection_settings
from .errors import CacaoClientError, ErrorReason
from .replies import (
    Activation,
    AnalysisReport,
    Applied,
    CoveredWorker,
    Evaluation,
    JungleTileFacts,
    LegalActions,
    NewGame,
    Placement,
    Puzzle,
    PuzzleCheck,
    PuzzleDraw,
    PuzzleTheme,
    ReviewReport,
    RulesFacts,
    SeatScore,
    ServerInfo,
    ServerLimits,
    Standing,
    Suggestion,
    TempleStanding,
    Validation,
    WorkerTileFacts,
)
from .requests import Source
from .text import evaluation_lines, strength_text

__all__ = [
    "Activation", "Analysis", "AnalysisReport", "Applied", "AsyncAnalysis", "AsyncCacaoClient",
    "CacaoClient", "CacaoClientError", "Candidate", "CoveredWorker", "DecisionReview", "ErrorReason",
    "Evaluation", "Explanation", "JungleTileFacts", "LegalActions", "Limit", "NewGame", "Placement", "Puzzle",
    "PuzzleCheck", "PuzzleDraw", "PuzzleTheme", "ReviewReport", "ReviewSummary", "RootInfo", "RulesFacts",
    "SearchResult", "SeatOutlook", "SeatReview",
    "SeatScore", "ServerInfo", "ServerLimits", "Source", "Standing", "Suggestion", "TempleStanding",
    "Validation", "WorkerTileFacts", "add_connection_flags", "connection_settings", "evaluation_lines",
    "sentence", "strength_text",
]
