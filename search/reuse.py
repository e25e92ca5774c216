"""Tree reuse: keep search trees after a search and continue them later.

A :class:`TreeCache` keeps the trees of finished searches under a key made of
the searching seat's *observation* of the searched position (what that seat
can see, ``Position.observation(seat)``, plus the hands of the seats in
``known_hands``) and of the settings that shape a tree (playout, samples,
algorithm, exploration, margin weight and scale, expand_samples, widen,
max_nodes). Hidden facts (other seats' hands, pile and deck orders) are never
part of a key, so two complete positions the observer cannot tell apart find
the same trees, and a kept tree tells a search nothing its seat could not
know: the trees themselves are built from determinizations of that same
observation.

A later search of a position reached from a kept one (the caller gives the
positions before it with the action played from each) takes the kept trees
out of the cache, descends along the action codes played since and re-roots
them there (``Tree.reroot``, in C): blind draws in between are chance, which
the tree never branches on. Memory is bounded: entries are evicted least
recently used first so that the trees' ``memory_bytes()`` stay within
``max_bytes``.

Thread-safety: a TreeCache may be shared by any number of threads; a search
takes its trees out (exclusive use) and puts them back when it ends.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, cast

from cacaoai.engine import Action, Position

from ._mcts import Tree
from .limits import SearchSettings

__all__ = ["TreeCache", "observation_key"]


def observation_key(position: Position, observer: int, known_hands: int,
                    settings: SearchSettings) -> bytes:
    """The cache key of a search: `observer`'s observation of `position`, the
    hands of the seats in the `known_hands` mask, and the tree settings."""
    view = position.observation(observer)
    for s in range(position.players):
        if (known_hands >> s) & 1 and s != observer:
            view["seats"][s]["known_hand"] = position.core.seat(s)["hand"]
    view["tree"] = [*settings.tree_key(), known_hands]
    text = json.dumps(view, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).digest()


class TreeCache:
    """Search trees kept between searches, within `max_bytes` (LRU)."""

    def __init__(self, max_bytes: int) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise ValueError(f"max_bytes: must be a non-negative integer, got {max_bytes!r}")
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self._entries: OrderedDict[bytes, tuple[list[Tree], int]] = OrderedDict()
        self._bytes = 0
        self._hits = 0
        self._misses = 0

    def stats(self) -> dict[str, int]:
        """trees kept, their bytes, max_bytes, and searches that found (hits)
        or did not find (misses) a tree to continue."""
        with self._lock:
            return {"trees": sum(len(t) for t, _ in self._entries.values()), "bytes": self._bytes,
                    "max_bytes": self._max_bytes, "hits": self._hits, "misses": self._misses}

    def resize(self, max_bytes: int) -> None:
        """A new limit: the least recently used entries are evicted until
        the kept trees fit in it (a server shrinks its cache while the
        running searches need the memory, and lets it grow after)."""
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise ValueError(f"max_bytes: must be a non-negative integer, got {max_bytes!r}")
        with self._lock:
            self._max_bytes = max_bytes
            while self._entries and self._bytes > max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped

    def clear(self) -> None:
        """Drop every kept tree (the hit and miss counts stay)."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def take(self, key: bytes) -> list[Tree] | None:
        """Remove and return the trees kept under `key`, or None."""
        with self._lock:
            entry = self._entries.pop(key, None)
            if entry is None:
                return None
            self._bytes -= entry[1]
            return entry[0]

    def count(self, hit: bool) -> None:
        """Count one search as a hit or a miss."""
        with self._lock:
            if hit:
                self._hits += 1
            else:
                self._misses += 1

    def put(self, key: bytes, trees: list[Tree]) -> None:
        """Keep `trees` under `key` (replacing what is there), evicting the
        least recently used entries to stay within max_bytes; trees bigger
        than max_bytes together are not kept."""
        for tree in trees:
            tree.compact()
        size = sum(tree.memory_bytes() for tree in trees)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            if size > self._max_bytes:
                return
            while self._entries and self._bytes + size > self._max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped
            self._entries[key] = (trees, size)
            self._bytes += size

    def __repr__(self) -> str:
        return f"TreeCache({self.stats()})"


def find_trees(cache: TreeCache, position: Position, history: Sequence[tuple[Position, Any]],
               observer: int, known_hands: int,
               settings: SearchSettings) -> tuple[bytes, list[Tree], list[int]]:
    """(key of `position`, kept trees, action codes from their root to
    `position`): the trees of `position` itself, else of the newest history
    entry that has some; no trees when none. The caller counts the hit or
    miss (TreeCache.count) and puts the trees back."""
    key = observation_key(position, observer, known_hands, settings)
    trees = cache.take(key)
    path: list[int] = []
    if trees is None:
        for i in range(len(history) - 1, -1, -1):
            before, action = history[i]
            path.insert(0, _code(before, action, i))
            trees = cache.take(observation_key(before, observer, known_hands, settings))
            if trees is not None:
                break
    return key, trees or [], path


def check_history(history: Sequence[tuple[Position, Any]], players: int) -> None:
    """Raise ValueError naming the first malformed entry of `history`."""
    for i, entry in enumerate(history):
        if not isinstance(entry, tuple) or len(entry) != 2 or not isinstance(entry[0], Position):
            raise ValueError(f"history[{i}]: must be a (Position, Action) pair, got {entry!r}")
        if entry[0].players != players:
            raise ValueError(f"history[{i}]: a position of {entry[0].players} players, "
                             f"not {players}")
        if entry[0].is_over:
            raise ValueError(f"history[{i}]: the game is over in this position")


def _code(position: Position, action: Action | int, index: int) -> int:
    if isinstance(action, int) and not isinstance(action, bool):
        if action not in position.legal_codes():
            raise ValueError(f"history[{index}]: code {action} is not legal in its position")
        return action
    try:
        return position.encode(cast(Action, action))
    except Exception as exc:
        raise ValueError(f"history[{index}]: {action} is not legal in its position ({exc})") from None
