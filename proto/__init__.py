"""The Cacao API ``cacao.v1`` (installed as ``cacaoai.api``): the wire and its vocabulary.

- ``cacaoai.api.cacao.v1.cacao_pb2`` / ``cacao_pb2_grpc``: the generated
  protobuf and gRPC modules; the source is ``cacao/v1/cacao.proto`` beside
  them (regenerate with ``.ci/gen_proto.sh``).
- :mod:`cacaoai.api.convert`: the one conversion between the messages and
  the engine's and the search's values, shared by server and clients.
- The vocabulary a client needs without the search machinery:
  :class:`Limit` (a search budget), :class:`SearchResult` and its parts,
  ``LEVEL_NAMES`` (the levels a server of this package has), a review's
  :class:`DecisionReview` and :class:`ReviewSummary`, an
  :class:`Explanation` and :func:`sentence`, which words it.
"""

from cacaoai.search.adaptive import ADAPTIVE
from cacaoai.search.bots import LEVELS
from cacaoai.search.explain import Explanation, Part, TempleChange, action_text, sentence
from cacaoai.search.forecast import Forecast, PartForecast, SeatForecast, TempleForecast
from cacaoai.search.limits import Limit, parse_strength
from cacaoai.search.results import Candidate, RootInfo, SearchResult, SeatOutlook
from cacaoai.search.review import CLASSES, FORCED, DecisionReview, ReviewSummary, SeatReview

#: The named strength levels of this package's server, weakest first, then
#: ``adaptive`` (a server of another version may have others: GetServerInfo says).
LEVEL_NAMES: tuple[str, ...] = (*LEVELS, ADAPTIVE)

__all__ = ["CLASSES", "FORCED", "LEVEL_NAMES", "Candidate", "DecisionReview", "Explanation", "Forecast", "Limit",
           "Part", "PartForecast", "ReviewSummary", "RootInfo", "SearchResult", "SeatForecast", "SeatOutlook",
           "SeatReview", "TempleChange", "TempleForecast",
           "action_text", "parse_strength", "sentence"]
