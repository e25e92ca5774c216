"""Facts of the rules, read from the compiled core's own tables.

Tile names and faces, how many tiles of each kind a game has, the start tiles,
the water track and the limits: the numbers here come from the C tables the
rules run on (``core.rules_tables``), so that clients, the server and the web
page take them from one place and never type them again.

    >>> from cacaoai.engine import rules
    >>> rules.faces("2101", 1)
    (1, 2, 1, 0)
    >>> rules.WATER_TRACK[0], rules.MAX_CACAO
    (-10, 5)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from . import core

_TABLES: dict[str, Any] = core.rules_tables()

# (dx, dy) of the directions N, E, S, W, in the order of every 4-tuple of faces.
DIRECTIONS: tuple[tuple[int, int], ...] = tuple((dx, dy) for dx, dy in _TABLES["directions"])

# Worker tiles in the core's type order. A tile's name is its faces N, E, S, W
# at rotation 0, so the names are read from the core's faces too.
WORKER_FACES: dict[str, tuple[int, int, int, int]] = {
    "".join(map(str, by_rot[0])): (by_rot[0][0], by_rot[0][1], by_rot[0][2], by_rot[0][3])
    for by_rot in _TABLES["faces"]}
WORKER_TILES: tuple[str, ...] = tuple(WORKER_FACES)
WORKER_TYPE: dict[str, int] = {name: t for t, name in enumerate(WORKER_TILES)}
# distinct rotations of each worker tile (a 1111 tile is always written rot 0)
ROTATIONS: dict[str, int] = dict(zip(WORKER_TILES, _TABLES["rotations"]))

# Jungle tiles in the core's kind order (kind ids start at 1). The names are
# the one thing here the core has no table for.
JUNGLE_TILES: tuple[str, ...] = (
    "plantation-1", "plantation-2", "market-2", "market-3", "market-4",
    "gold-1", "gold-2", "water", "sun", "temple",
)
if len(JUNGLE_TILES) != _TABLES["kinds"]:
    raise ImportError(f"the core has {_TABLES['kinds']} jungle kinds, rules.py names {len(JUNGLE_TILES)}")
JUNGLE_KIND: dict[str, int] = {name: k + 1 for k, name in enumerate(JUNGLE_TILES)}

PLAYER_COUNTS: tuple[int, ...] = tuple(sorted(_TABLES["workers_per_seat"]))
# worker tiles each seat starts with, by player count
WORKER_COUNTS: dict[int, dict[str, int]] = {
    n: dict(zip(WORKER_TILES, counts)) for n, counts in _TABLES["workers_per_seat"].items()}
# the jungle deck at the start, by player count: every jungle tile but the start
# tiles, and with 2 players after the tiles that game leaves in the box
JUNGLE_COUNTS: dict[int, dict[str, int]] = {
    n: dict(zip(JUNGLE_TILES, counts)) for n, counts in _TABLES["jungle_deck"].items()}
# the jungle tiles on the board before the first turn, by cell (x, y)
START_TILES: dict[tuple[int, int], str] = {
    (x, y): JUNGLE_TILES[kind - 1] for x, y, kind in _TABLES["start_tiles"]}

# gold at the end for each space of the water track, space 0 first
WATER_TRACK: tuple[int, ...] = tuple(_TABLES["water_track"])
MAX_WATER: int = len(WATER_TRACK) - 1
MAX_CACAO: int = _TABLES["max_cacao"]
MAX_SUN: int = _TABLES["max_sun"]
SUN_GOLD: int = _TABLES["sun_gold"]  # gold for each sun token left at the end
HAND_SIZE: int = _TABLES["hand_size"]
#: Each seat's colour, by seat number: how the board page, the terminal and
#: the explanations' sentences name a seat (docs/rules.md, "Setup").
SEAT_COLOURS: tuple[str, ...] = ("red", "yellow", "purple", "blue")

_AWARD: list[list[int]] = _TABLES["temple_award"]
# gold of a temple's first and second place (each shared among seats tied there)
TEMPLE_AWARDS: tuple[int, int] = (_AWARD[0][1], _AWARD[1][1])

_FACES: dict[tuple[str, int], tuple[int, int, int, int]] = {
    (name, rot): (f[0], f[1], f[2], f[3])
    for name, by_rot in zip(WORKER_TILES, _TABLES["faces"]) for rot, f in enumerate(by_rot)}


def faces(tile: str, rotation: int) -> tuple[int, int, int, int]:
    """Workers on the N, E, S and W sides of worker tile `tile` turned by
    `rotation` (0..3, a quarter turn clockwise each), as the rules count them."""
    try:
        return _FACES[(tile, rotation)]
    except KeyError:
        raise ValueError(f"not a worker tile and rotation: {tile!r}, {rotation!r}") from None


def temple_award(ahead: int, tied: int) -> int:
    """Gold a temple gives a seat with workers there when `ahead` seats have
    more workers than it and `tied` seats as many (itself included)."""
    if not (0 <= ahead < len(_AWARD) and 0 < tied < len(_AWARD[0])):
        raise ValueError(f"ahead must be in 0..{len(_AWARD) - 1} and tied in 1..{len(_AWARD[0]) - 1}")
    return _AWARD[ahead][tied]


def seat_tiles(players: int) -> Counter[str]:
    """The multiset of worker tiles each seat starts with."""
    return Counter(WORKER_COUNTS[players])


def deck_tiles(players: int) -> Counter[str]:
    """The multiset of the jungle deck at the start (the display's first two included)."""
    return Counter(JUNGLE_COUNTS[players])


def facts() -> dict[str, Any]:
    """Every fact above as one JSON-ready object, for servers and web pages."""
    return {
        "directions": [list(d) for d in DIRECTIONS],
        "worker_tiles": [{"tile": name, "faces": list(WORKER_FACES[name]),
                          "rotations": ROTATIONS[name]} for name in WORKER_TILES],
        "jungle_tiles": list(JUNGLE_TILES),
        "worker_counts": {str(n): WORKER_COUNTS[n] for n in PLAYER_COUNTS},
        "jungle_counts": {str(n): JUNGLE_COUNTS[n] for n in PLAYER_COUNTS},
        "start_tiles": [{"x": x, "y": y, "tile": name} for (x, y), name in START_TILES.items()],
        "water_track": list(WATER_TRACK),
        "temple_awards": list(TEMPLE_AWARDS),
        "hand_size": HAND_SIZE,
        "max_cacao": MAX_CACAO,
        "max_sun": MAX_SUN,
        "sun_gold": SUN_GOLD,
    }
