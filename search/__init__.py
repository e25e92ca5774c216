"""Information-set Monte Carlo tree search for Cacao.

    >>> from cacaoai.engine import Position
    >>> from cacaoai.search import Limit, search
    >>> pos = Position.new(players=2, seed=7)
    >>> result = search(pos, Limit(iterations=1000), seed=1)
    >>> report = pos.apply(result.best_action)

One entry point, :func:`search` (``driver.py``), over the compiled trees of
``_mcts.pyx``. :class:`Limit` says how much to search and
:class:`SearchSettings` how (``limits.py``); a :class:`SearchResult`
(``results.py``) is what it found: per-seat win probability, expected gold
and score lead, and per candidate its visits, value, win probability, score
lead, expected gold, prior, lower confidence bound, order and (for the first
``multipv``) its own line. What else a search is asked comes in three
groups (``request.py``): a :class:`Question` (for whom, ``allow``/``avoid``
on the root's actions, how many lines), a :class:`Run` (stop, pause,
reports, CPU priority) and a :class:`Reuse` (a :class:`TreeCache` that keeps
trees between searches, ``reuse.py``). Bots and
the named strength levels are in :mod:`cacaoai.search.bots`, the arena in
:mod:`cacaoai.lab.arena`. docs/search.md describes the design.

Thread-safety: ``search`` may run in several threads at once; a
:class:`StopFlag` may be set from any thread; a TreeCache may be shared.
"""

from ._mcts import PRIORITIES, StopFlag
from .driver import FinishTimes, search
from .limits import ANALYSIS, NO_MODEL, PLAY, Limit, SearchSettings, parse_strength
from .request import Question, Reuse, Run
from .results import Candidate, RootInfo, SearchResult, SeatOutlook
from .reuse import TreeCache

__all__ = ["ANALYSIS", "NO_MODEL", "PLAY", "PRIORITIES", "Candidate", "FinishTimes", "Limit", "Question", "Reuse",
           "RootInfo",
           "Run", "SearchResult", "SearchSettings", "SeatOutlook", "StopFlag", "TreeCache", "parse_strength",
           "search"]
