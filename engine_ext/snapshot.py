# cython: annotation_typing=False
"""Position snapshots (cacao-position/1) and observations: dump, check, load.

A snapshot is a complete position; an observation is what one seat knows
(docs/rules.md#information): the jungle deck order, every draw pile order and the
other seats' hands are absent, their counts stay. Loading checks everything a
position must satisfy and names the field of the first problem.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeGuard

from . import core
from .errors import SnapshotError
from .formats import PHASES, int_problem, load_json, same_json, tile_json
from .rules import (
    DIRECTIONS,
    HAND_SIZE,
    JUNGLE_KIND,
    JUNGLE_TILES,
    MAX_CACAO,
    MAX_SUN,
    MAX_WATER,
    START_TILES,
    WORKER_COUNTS,
    WORKER_TILES,
    WORKER_TYPE,
    deck_tiles,
    seat_tiles,
)

SNAPSHOT_FORMAT = "cacao-position/1"
TOP_FIELDS = ("format", "view", "players", "first_player", "turn", "mover", "phase", "to_act",
              "board", "display", "jungle_deck", "jungle_deck_count", "seats", "pending")
SEAT_FIELDS = ("gold", "cacao", "sun", "water", "hand", "hand_count", "pile", "pile_count", "discarded")
_SEAT_KEYS = frozenset(SEAT_FIELDS)
REACH = 28  # |x|, |y| of any tile in a legal game (docs/rules.md#board-geometry)


# --- dumping ---

def dump_snapshot(c: core.CorePosition, view: int | None = None) -> dict[str, Any]:
    """The snapshot of a core position, or the observation of seat `view`."""
    covered = c.covered()
    board = sorted((tile_json(x, y, b, covered) for x, y, b in c.tiles()), key=lambda t: (t["x"], t["y"]))
    out: dict[str, Any] = {"format": SNAPSHOT_FORMAT}
    if view is not None:
        out["view"] = view
    to_act = c.to_act
    out.update(players=c.players, first_player=c.first_player, turn=c.turn, mover=c.mover,
               phase=PHASES[c.phase], to_act=None if to_act < 0 else to_act, board=board,
               display=[JUNGLE_TILES[k - 1] for k in c.display()])
    deck = c.deck()
    if view is None:
        out["jungle_deck"] = [JUNGLE_TILES[k - 1] for k in deck]
    out["jungle_deck_count"] = len(deck)
    seats: list[dict[str, Any]] = []
    for s in range(c.players):
        st = c.seat(s)
        hand = [WORKER_TILES[t] for t in range(4) for _ in range(st["hand"][t])]
        seat: dict[str, Any] = {k: st[k] for k in ("gold", "cacao", "sun", "water")}
        if view is None or view == s:
            seat["hand"] = hand
        seat["hand_count"] = len(hand)
        if view is None:
            seat["pile"] = [WORKER_TILES[t] for t in st["pile"]]
        seat["pile_count"] = len(st["pile"])
        seat["discarded"] = [WORKER_TILES[t] for t in range(4) for _ in range(st["discarded"][t])]
        seats.append(seat)
    out["seats"] = seats
    out["pending"] = [{"seat": s, "results": [{"gold": g, "cacao": k} for g, k in results]}
                      for s, results in c.pending()]
    return out


def snapshot_text(c: core.CorePosition, view: int | None = None) -> str:
    """``json.dumps(dump_snapshot(c, view), sort_keys=True, separators=(",", ":"))``,
    the canonical text that position hashes are taken of, written directly:
    each board tile's text is kept once made, and no dict is built (a third
    of the time, which every request with a position spends on its hash)."""
    covered = c.covered()
    tile_text = _TILE_TEXT.get
    board = []
    for x, y, b in sorted(c.tiles()):  # (x, y) differ between tiles: the snapshot's order
        under = covered.get((x, y), 0) if covered else 0
        key = ((x + 64) << 24) | ((y + 64) << 16) | (b << 8) | under
        text = tile_text(key)
        if text is None:
            text = json.dumps(tile_json(x, y, b, covered), sort_keys=True, separators=(",", ":"))
            if len(_TILE_TEXT) >= _TILE_TEXT_MAX:
                _TILE_TEXT.clear()
            _TILE_TEXT[key] = text
        board.append(text)
    deck = c.deck()
    to_act = c.to_act
    parts = ['{"board":[', ",".join(board), '],"display":[', ",".join([_JUNGLE_TEXT[k] for k in c.display()]),
             '],"first_player":', str(c.first_player), ',"format":"', SNAPSHOT_FORMAT, '"']
    if view is None:
        parts += ',"jungle_deck":[', ",".join([_JUNGLE_TEXT[k] for k in deck]), "]"
    parts += (',"jungle_deck_count":', str(len(deck)), ',"mover":', str(c.mover), ',"pending":[',
              ",".join(['{"results":[' + ",".join([f'{{"cacao":{k},"gold":{g}}}' for g, k in results])
                        + f'],"seat":{s}}}' for s, results in c.pending()]),
              '],"phase":"', PHASES[c.phase], '","players":', str(c.players), ',"seats":[')
    for s in range(c.players):
        st = c.seat(s)
        hand = st["hand"]
        seat = [f'{{"cacao":{st["cacao"]},"discarded":[', _counted_text(st["discarded"]),
                f'],"gold":{st["gold"]}']
        if view is None or view == s:
            seat += ',"hand":[', _counted_text(hand), "]"
        seat.append(f',"hand_count":{sum(hand)}')
        if view is None:
            seat += ',"pile":[', ",".join([_WORKER_TEXT[t] for t in st["pile"]]), "]"
        seat.append(f',"pile_count":{len(st["pile"])},"sun":{st["sun"]},"water":{st["water"]}}}')
        if s:
            parts.append(",")
        parts += seat
    parts += '],"to_act":', "null" if to_act < 0 else str(to_act), ',"turn":', str(c.turn)
    if view is not None:
        parts += ',"view":', str(view)
    parts.append("}")
    return "".join(parts)


def _counted_text(counts: list[int]) -> str:
    """The JSON items of worker tiles held by type (a hand, a discard pile)."""
    return ",".join(_WORKER_TEXT[t] for t in range(4) for _ in range(counts[t]))


# The JSON text of each tile name (jungle tiles by kind 1..10, worker tiles by
# type), and of board tiles as snapshot_text makes them, by their grid bytes
# (at most _TILE_TEXT_MAX, then forgotten at once; the GIL makes each look-up
# and store atomic).
_JUNGLE_TEXT = (None, *(json.dumps(name) for name in JUNGLE_TILES))
_WORKER_TEXT = tuple(json.dumps(name) for name in WORKER_TILES)
_TILE_TEXT: dict[int, str] = {}
_TILE_TEXT_MAX = 1 << 16


# --- loading ---

def load_snapshot(data: Mapping[str, Any] | str, reachable: bool = True) -> core.CorePosition:
    """A checked complete position. Raises SnapshotError(field, reason).

    With reachable=False, a hand-made position that no game reaches (a board no
    order of placements builds, gains its worker tiles cannot have earned) is
    accepted too, for rule tests; the engine stays within its grid either way."""
    parts = _check(_parse(data), observation=False, reachable=reachable)
    return _build(parts)


def load_observation(data: Mapping[str, Any] | str, seed: int) -> core.CorePosition:
    """A complete position consistent with an observation, hidden parts drawn
    from `seed` using only what the viewing seat knows."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise SnapshotError("seed", f"must be an integer in 0..2**64-1, got {seed!r}")
    parts = _check(_parse(data), observation=True)
    c = _build(parts)
    known = sum(1 << s for s, seat in enumerate(parts["seats"]) if seat["hand_known"])
    c.determinize(parts["view"], known, seed)
    return c


def _parse(data: Mapping[str, Any] | str) -> Mapping[str, Any]:
    if isinstance(data, (str, bytes)):
        data = load_json(data, lambda why: SnapshotError("(document)", why))
    if not _mapping(data):
        raise SnapshotError("(document)", "a position must be a JSON object")
    return data


def _mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """``isinstance(value, Mapping)``, at once for a dict (the ABC's own test
    costs a microsecond)."""
    return type(value) is dict or isinstance(value, Mapping)


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    if type(value) is int and lo <= value <= hi:
        return value
    raise SnapshotError(field, int_problem(value, lo, hi) or "")


def _names(value: Any, field: str, allowed: Mapping[str, int]) -> list[str]:
    if not isinstance(value, list):
        raise SnapshotError(field, "must be a list")
    try:
        if all(map(allowed.__contains__, value)):  # only strings are keys: a str test is implied
            return list(value)
    except TypeError:  # an unhashable item: named below
        pass
    for i, name in enumerate(value):
        if not _known(name, allowed):
            raise SnapshotError(f"{field}[{i}]", f"unknown tile {name!r}")
    return list(value)


def _known(name: Any, allowed: Mapping[str, int]) -> bool:
    """Whether `name` (any JSON value) is a key of `allowed`."""
    return isinstance(name, str) and name in allowed


# The tables the checks count against, by player count: each seat's worker
# tiles by type, the jungle deck at the start by kind - 1, the most tiles a board holds.
_SEAT_COUNTS = {n: [WORKER_COUNTS[n][name] for name in WORKER_TILES] for n in WORKER_COUNTS}
_DECK_COUNTS = {n: [deck_tiles(n)[name] for name in JUNGLE_TILES] for n in WORKER_COUNTS}
_JUNGLE_INDEX = {name: k - 1 for name, k in JUNGLE_KIND.items()}  # a jungle tile's kind - 1
_MOST_TILES = {n: sum(deck_tiles(n).values()) + len(START_TILES) + n * sum(seat_tiles(n).values())
               for n in WORKER_COUNTS}
_START_KIND = [0] * len(JUNGLE_TILES)
for _name in START_TILES.values():
    _START_KIND[JUNGLE_KIND[_name] - 1] += 1
# The board checks lay the tiles out on a grid of bytes: cell (x, y) is
# _SPAN * (x + _ORIGIN) + y + _ORIGIN, holding the tile's grid byte (0: empty).
# Tiles lie within REACH, so every neighbour and every neighbour's neighbour
# looked at stays inside it; _NEAR are the neighbours' offsets.
_SPAN = 64
_ORIGIN = 32
_NEAR = tuple(dx * _SPAN + dy for dx, dy in DIRECTIONS)
_START_CELLS = tuple(_SPAN * (x + _ORIGIN) + y + _ORIGIN for x, y in START_TILES)
_START_BYTES = tuple(JUNGLE_KIND[name] for name in START_TILES.values())
_JUNGLE_KEYS = frozenset(("x", "y", "tile"))
_WORKER_KEYS = frozenset(("x", "y", "tile", "seat", "rot", "covers"))


def _xy(cell: int) -> tuple[int, int]:
    return cell // _SPAN - _ORIGIN, cell % _SPAN - _ORIGIN


def _tally(names: list[str], table: Mapping[str, int], size: int) -> list[int]:
    """How many of each id in 0..size-1 `names` (checked names) are, by `table`."""
    out = [0] * size
    for name in names:
        out[table[name]] += 1
    return out


def _check(d: Mapping[str, Any], observation: bool, reachable: bool = True) -> dict[str, Any]:
    """Check a snapshot/observation; return its parts as engine ids."""
    for key in d:
        if key not in TOP_FIELDS:
            raise SnapshotError(key, "unknown field")
    if d.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotError("format", f"must be {SNAPSHOT_FORMAT!r}, got {d.get('format')!r}")
    if observation and "view" not in d:
        raise SnapshotError("view", "missing: an observation names the seat that sees it")
    if not observation and "view" in d:
        raise SnapshotError("view", "this is an observation, not a complete position")
    for key in TOP_FIELDS[2:]:
        if key not in d and not (key == "jungle_deck" and observation):
            raise SnapshotError(key, "missing")
    players = d["players"]
    if type(players) is not int or players not in (2, 3, 4):
        raise SnapshotError("players", f"must be 2, 3 or 4, got {players!r}")
    n = players
    view = _int(d["view"], "view", 0, n - 1) if observation else None
    first = _int(d["first_player"], "first_player", 0, n - 1)
    turn = _int(d["turn"], "turn", 0, 11 * n)
    mover = _int(d["mover"], "mover", 0, n - 1)
    if d["phase"] not in PHASES:
        raise SnapshotError("phase", f"must be one of {', '.join(PHASES)}, got {d['phase']!r}")
    phase = PHASES.index(d["phase"])

    grid = bytearray(_SPAN * _SPAN)
    order: list[int] = []
    tiles, covered = _check_board(d["board"], n, reachable, grid, order)
    display = _names(d["display"], "display", JUNGLE_KIND)
    if len(display) > 2:
        raise SnapshotError("display", f"holds at most 2 tiles, got {len(display)}")
    deck_count = _int(d["jungle_deck_count"], "jungle_deck_count", 0, 26)
    kinds = len(JUNGLE_TILES)
    used = [-k for k in _START_KIND]  # the board's jungle tiles but the start tiles, then the display's too
    g = grid
    for cell in order:
        b = g[cell]
        if b < 0x80:
            used[b - 1] += 1
    for name in display:
        used[JUNGLE_KIND[name] - 1] += 1
    game = _DECK_COUNTS[n]
    overused = [JUNGLE_TILES[k] for k in range(kinds) if used[k] > game[k]]
    if overused:
        raise SnapshotError("board", f"more {min(overused)} tiles on the board and display than the game has")
    remaining = [game[k] - used[k] for k in range(kinds)]
    if "jungle_deck" in d:
        names = _names(d["jungle_deck"], "jungle_deck", JUNGLE_KIND)
        deck = [JUNGLE_KIND[name] for name in names]
        if _tally(names, _JUNGLE_INDEX, kinds) != remaining:
            raise SnapshotError("jungle_deck", "must hold exactly the jungle tiles not on the board or display")
    else:
        deck = [k + 1 for k in range(kinds) for _ in range(remaining[k])]
    if len(deck) != deck_count:
        raise SnapshotError("jungle_deck_count", f"is {deck_count} but {len(deck)} jungle tiles are left")
    if deck and len(display) != 2 and phase != 1:
        raise SnapshotError("display", "must hold 2 tiles while the jungle deck has tiles")
    if covered and (deck or display):
        raise SnapshotError("board", "an overbuild is only possible once the jungle deck and display are empty")
    if reachable and (deck or display):
        _check_filled(grid, order, tiles)

    seats = _check_seats(d["seats"], n, tiles, covered, view, first, turn, mover, phase, reachable)
    pending = _check_pending(d["pending"], n, phase, mover)
    to_act = d["to_act"]
    want = None if phase == 2 else (pending[0][0] if pending else mover)
    if not (type(to_act) is type(want) and to_act == want) and not same_json(to_act, want):
        raise SnapshotError("to_act", f"must be {json.dumps(want)} in this position, got {to_act!r}")
    return {"players": n, "view": view, "first_player": first, "turn": turn, "mover": mover,
            "phase": phase, "tiles": tiles, "covered": covered,
            "display": [JUNGLE_KIND[t] for t in display], "deck": deck,
            "seats": seats, "pending": pending}


def _check_board(board: Any, n: int, reachable: bool, grid: bytearray,
                 order: list[int]) -> tuple[list[tuple[int, int, int]], dict[tuple[int, int], int]]:
    """The board's tiles (x, y, grid byte) and covered workers; lays them on
    `grid` (empty) and lists their cells in `order`, in the board's order."""
    if not isinstance(board, list):
        raise SnapshotError("board", "must be a list")
    most = _MOST_TILES[n]
    if len(board) > most:
        raise SnapshotError("board", f"holds {len(board)} tiles; a {n}-player game has at most {most}")
    g = grid
    tiles: list[tuple[int, int, int]] = []
    covered: dict[tuple[int, int], int] = {}
    i = 0
    for t in board:
        if not _mapping(t):
            raise SnapshotError(f"board[{i}]", "must be an object")
        xo, yo = t.get("x"), t.get("y")
        if not (type(xo) is int and -REACH <= xo <= REACH and type(yo) is int and -REACH <= yo <= REACH):
            xo, yo = _int(xo, f"board[{i}].x", -REACH, REACH), _int(yo, f"board[{i}].y", -REACH, REACH)
        x, y = xo, yo
        cell = _SPAN * (x + _ORIGIN) + y + _ORIGIN
        if g[cell]:
            raise SnapshotError(f"board[{i}]", f"a second tile at ({x},{y})")
        name: Any = t.get("tile")
        kind = JUNGLE_KIND.get(name) if isinstance(name, str) else None
        if kind is not None:
            if len(t) != 3:  # x, y and tile are there
                raise SnapshotError(f"board[{i}]", "a jungle tile has exactly x, y and tile")
            if (x + y) % 2:
                raise SnapshotError(f"board[{i}]", f"jungle tiles lie on cells with x+y even, not ({x},{y})")
            byte = kind
        elif _known(name, WORKER_TYPE):
            if not t.keys() <= _WORKER_KEYS or "seat" not in t or "rot" not in t:
                raise SnapshotError(f"board[{i}]", "a worker tile has x, y, tile, seat, rot and optionally covers")
            if (x + y) % 2 == 0:
                raise SnapshotError(f"board[{i}]", f"worker tiles lie on cells with x+y odd, not ({x},{y})")
            most_rot = 0 if name == "1111" else 3
            so, ro = t["seat"], t["rot"]
            if not (type(so) is int and 0 <= so < n and type(ro) is int and 0 <= ro <= most_rot):
                so = _int(so, f"board[{i}].seat", 0, n - 1)
                ro = _int(ro, f"board[{i}].rot", 0, most_rot)
            seat = so
            byte = 0x80 | seat << 4 | WORKER_TYPE[name] << 2 | ro
            if "covers" in t:
                f = f"board[{i}]"
                under = t["covers"]
                if (not _mapping(under) or set(under) != {"tile", "rot"}
                        or not _known(under["tile"], WORKER_TYPE)):
                    raise SnapshotError(f + ".covers", "must be {tile, rot} of a worker tile")
                urot = _int(under["rot"], f + ".covers.rot", 0, 0 if under["tile"] == "1111" else 3)
                covered[(x, y)] = 0x80 | seat << 4 | WORKER_TYPE[under["tile"]] << 2 | urot
                byte |= 0x40
        else:
            raise SnapshotError(f"board[{i}].tile", f"unknown tile {name!r}")
        g[cell] = byte
        order.append(cell)
        tiles.append((x, y, byte))
        i += 1
    for k, ((x, y), name) in enumerate(START_TILES.items()):
        if g[_START_CELLS[k]] != _START_BYTES[k]:
            raise SnapshotError("board", f"the start tile {name} must lie at {(x, y)}")
    n0, n1, n2, n3 = _NEAR
    for cell in order:
        b = g[cell]
        a, b1, b2, b3 = g[cell + n0], g[cell + n1], g[cell + n2], g[cell + n3]
        if b >= 0x80:
            if not (0 < a < 0x80 or 0 < b1 < 0x80 or 0 < b2 < 0x80 or 0 < b3 < 0x80):
                raise SnapshotError("board", "the worker tile at ({},{}) touches no jungle tile".format(*_xy(cell)))
        elif (a >= 0x80) + (b1 >= 0x80) + (b2 >= 0x80) + (b3 >= 0x80) < 2 and cell not in _START_CELLS:
            raise SnapshotError("board", "the jungle tile at ({},{}) has fewer than 2 worker tiles "
                                "around it".format(*_xy(cell)))
    if reachable:
        _check_reachable(grid, order)
    return tiles, covered


def _check_reachable(grid: bytearray, order: list[int]) -> None:
    """Every tile must be placeable in some order from the start tiles: a worker
    tile next to a jungle tile already there, a jungle tile next to two worker
    tiles already there (docs/rules.md). This keeps boards connected and within the
    reach of a real game. `grid` and `order` are as _check_board lays them out."""
    # A worklist: laying a tile can only make its neighbours placeable, so
    # only they are looked at again (each tile counts its laid neighbours of
    # the kind it needs: one jungle tile for a worker tile, two worker tiles
    # for a jungle tile). The tiles laid do not depend on the order.
    g = grid
    state = bytearray(_SPAN * _SPAN)  # 2: laid, 1: a jungle tile with one worker tile laid beside it
    s = state
    todo = list(_START_CELLS)
    for cell in todo:
        s[cell] = 2
    laid = len(todo)
    while todo:
        here = todo.pop()
        worker = g[here] >= 0x80
        for d in _NEAR:
            cell = here + d
            b = g[cell]
            if b == 0 or (b >= 0x80) == worker or s[cell] == 2:
                continue
            if b >= 0x80 or s[cell]:  # a worker tile needs one jungle tile, a jungle tile two workers
                s[cell] = 2
                todo.append(cell)
                laid += 1
            else:
                s[cell] = 1
    if laid < len(order):
        far = -1
        for cell in order:  # the first unreached tile nearest the origin
            if s[cell] != 2:
                x, y = _xy(cell)
                if far < 0 or abs(x) + abs(y) < far:
                    far = abs(x) + abs(y)
                    at = (x, y)
        raise SnapshotError("board", "the tile at ({},{}) cannot be reached from the start "
                            "tiles: no order of placements builds this board".format(*at))


def _check_filled(grid: bytearray, order: list[int], tiles: list[tuple[int, int, int]]) -> None:
    """While jungle tiles remain, an empty cell next to two worker tiles has been
    filled (docs/rules.md: the placement that closes it fills it)."""
    g = grid
    for cell in order:
        if g[cell] >= 0x80:
            for d in _NEAR:
                if _unfilled(grid, cell + d):
                    # the cell named: the first in the set of the worker tiles' neighbours
                    board = {(x, y): b for x, y, b in tiles}
                    for x, y in {(x + dx, y + dy) for (x, y), b in board.items() if b >= 0x80
                                 for dx, dy in DIRECTIONS}:
                        if _unfilled(grid, _SPAN * (x + _ORIGIN) + y + _ORIGIN):
                            raise SnapshotError("board", f"the empty cell ({x},{y}) touches 2 or more worker "
                                                "tiles but was not filled while jungle tiles remain")


def _unfilled(grid: bytearray, cell: int) -> bool:
    """Whether `cell` is empty and touches two or more worker tiles."""
    g = grid
    if g[cell]:
        return False
    n0, n1, n2, n3 = _NEAR
    return (g[cell + n0] >= 0x80) + (g[cell + n1] >= 0x80) + (g[cell + n2] >= 0x80) + (g[cell + n3] >= 0x80) >= 2


def _check_seats(raw: Any, n: int, tiles, covered, view, first: int, turn: int, mover: int,
                 phase: int, reachable: bool) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or len(raw) != n:
        raise SnapshotError("seats", f"must be a list of {n} seats")
    have = _SEAT_COUNTS[n]
    total = sum(have)
    if phase != 2 and mover != (first + turn) % n:
        raise SnapshotError("mover", f"after {turn} turns from first player {first} seat "
                                     f"{(first + turn) % n} moves, not {mover}")
    placed_by_seat = [[0] * 4 for _ in range(n)]  # worker tiles laid, covered ones included, by type
    for _, _, b in tiles:
        if b >= 0x80:
            placed_by_seat[(b >> 4) & 3][(b >> 2) & 3] += 1
    for b in covered.values():
        placed_by_seat[(b >> 4) & 3][(b >> 2) & 3] += 1
    seats: list[dict[str, Any]] = []
    for s, st in enumerate(raw):
        f = f"seats[{s}]"
        if not _mapping(st):
            raise SnapshotError(f, "must be an object")
        keys = st.keys()
        if not keys <= _SEAT_KEYS:
            for key in st:
                if key not in SEAT_FIELDS:
                    raise SnapshotError(f"{f}.{key}", "unknown field")
        hidden_hand = view is not None and s != view and "hand" not in st
        if not keys >= _SEAT_KEYS:
            for key in SEAT_FIELDS:
                if key not in st and not (key == "pile" and view is not None) and not (key == "hand" and hidden_hand):
                    raise SnapshotError(f"{f}.{key}", "missing")
        gold, cacao, sun, water = st["gold"], st["cacao"], st["sun"], st["water"]
        hand_count, pile_count = st["hand_count"], st["pile_count"]
        if not (type(gold) is int and 0 <= gold <= 9999 and type(cacao) is int and 0 <= cacao <= MAX_CACAO
                and type(sun) is int and 0 <= sun <= MAX_SUN and type(water) is int and 0 <= water <= MAX_WATER
                and type(hand_count) is int and 0 <= hand_count <= HAND_SIZE
                and type(pile_count) is int and 0 <= pile_count <= total):  # else the first at fault, named
            gold = _int(gold, f + ".gold", 0, 9999)
            cacao = _int(cacao, f + ".cacao", 0, MAX_CACAO)
            sun = _int(sun, f + ".sun", 0, MAX_SUN)
            water = _int(water, f + ".water", 0, MAX_WATER)
            hand_count = _int(hand_count, f + ".hand_count", 0, HAND_SIZE)
            pile_count = _int(pile_count, f + ".pile_count", 0, total)
        thrown = _tally(_names(st["discarded"], f + ".discarded", WORKER_TYPE), WORKER_TYPE, 4)
        placed = placed_by_seat[s]
        if (placed[0] + thrown[0] > have[0] or placed[1] + thrown[1] > have[1]
                or placed[2] + thrown[2] > have[2] or placed[3] + thrown[3] > have[3]):
            raise SnapshotError(f, "more worker tiles placed and discarded than the seat has")
        unplaced = [have[t] - placed[t] - thrown[t] for t in range(4)]
        laid = sum(placed)
        if reachable:
            _check_gains(f, laid, gold, cacao, sun, water)
        # turns this seat completed (turns i < turn with (first + i) % n == s), and
        # whether it has used a tile in the current turn
        done = max(0, turn - (s - first + n) % n + n - 1) // n
        used = done + (1 if phase == 1 and s == mover else 0)
        if laid + sum(thrown) != used:
            raise SnapshotError(f, f"has placed or discarded {laid + sum(thrown)} "
                                   f"tiles but after {turn} turns it must be {used}")
        drawn = min(total, HAND_SIZE + done)
        if hand_count != drawn - used:
            raise SnapshotError(f + ".hand_count",
                                f"must be {drawn - used} at this point of the game, got {hand_count}")
        if pile_count != total - drawn:
            raise SnapshotError(f + ".pile_count",
                                f"must be {total - drawn} at this point of the game, got {pile_count}")
        hand_known = "hand" in st
        if hand_known:
            names = _names(st["hand"], f + ".hand", WORKER_TYPE)
            if len(names) != hand_count:
                raise SnapshotError(f + ".hand", f"has {len(names)} tiles but hand_count is {hand_count}")
            in_hand = _tally(names, WORKER_TYPE, 4)
        else:
            in_hand, left = [0] * 4, hand_count
            for t in range(4):
                in_hand[t] = min(unplaced[t], left)
                left -= in_hand[t]
        if any(in_hand[t] > unplaced[t] for t in range(4)):
            raise SnapshotError(f + ".hand", "holds tiles the seat no longer has")
        if "pile" in st:
            names = _names(st["pile"], f + ".pile", WORKER_TYPE)
            pile = [WORKER_TYPE[t] for t in names]
            if any(c + h != u for c, h, u in zip(_tally(names, WORKER_TYPE, 4), in_hand, unplaced)):
                raise SnapshotError(f + ".pile", "hand and pile must hold exactly the seat's unplaced tiles")
        else:
            pile = [t for t in range(4) for _ in range(unplaced[t] - in_hand[t])]
        seats.append({"gold": gold, "cacao": cacao, "sun": sun, "water": water,
                      "hand": in_hand, "pile": pile, "discarded": thrown, "hand_known": hand_known})
    if phase == 2 and any(sum(st["hand"]) or st["pile"] for st in seats):
        raise SnapshotError("phase", "the game is over only when no seat has worker tiles left")
    if phase == 0 and not any(sum(st["hand"]) for st in seats):
        raise SnapshotError("phase", "no seat has worker tiles left: the phase must be over")
    return seats


# Most a worker tile can bring (docs/rules.md): 4 workers, each side activating at most
# once; per worker at most 4 gold (market-4), 1 water step.
GOLD_PER_TILE = 16
WATER_PER_TILE = 4


def _check_gains(f: str, laid: int, gold: int, cacao: int, sun: int, water: int) -> None:
    """A seat gains only through its own worker tiles: its tokens must fit them."""
    if laid == 0 and (gold, cacao, sun, water) != (0, 0, 0, 0):
        raise SnapshotError(f, "has gained gold, cacao, sun or water but has no worker tile "
                            "on the board (every seat starts with none)")
    if gold > GOLD_PER_TILE * laid:
        raise SnapshotError(f + ".gold", f"{gold} gold is more than {laid} worker tiles can "
                            f"have earned (at most {GOLD_PER_TILE} each)")
    if water > WATER_PER_TILE * laid:
        raise SnapshotError(f + ".water", f"water space {water} is more than {laid} worker "
                            f"tiles can have moved (at most {WATER_PER_TILE} each)")


def _check_pending(raw: Any, n: int, phase: int, mover: int) -> list[tuple[int, list[tuple[int, int]]]]:
    if not isinstance(raw, list):
        raise SnapshotError("pending", "must be a list")
    if (phase == 1) != bool(raw):
        raise SnapshotError("pending", "must list the open resolutions exactly when the phase is resolve")
    out = []
    order = [(mover + i) % n for i in range(n)]
    last = -1
    for i, p in enumerate(raw):
        f = f"pending[{i}]"
        if not _mapping(p) or set(p) != {"seat", "results"}:
            raise SnapshotError(f, "must be an object with exactly seat and results")
        seat = _int(p["seat"], f + ".seat", 0, n - 1)
        if order.index(seat) <= last:
            raise SnapshotError(f + ".seat", "pending resolutions follow seat order from the mover, once each")
        last = order.index(seat)
        results = p["results"]
        if not isinstance(results, list) or not 2 <= len(results) <= 6:
            raise SnapshotError(f + ".results", "must list 2 to 6 results")
        pairs = []
        for j, r in enumerate(results):
            if not _mapping(r) or set(r) != {"gold", "cacao"}:
                raise SnapshotError(f"{f}.results[{j}]", "must be an object with exactly gold and cacao")
            pairs.append((_int(r["gold"], f"{f}.results[{j}].gold", 0, 255),
                          _int(r["cacao"], f"{f}.results[{j}].cacao", 0, MAX_CACAO)))
        pairs.sort(key=lambda gc: gc[1])
        if any(a[1] == b[1] or a[0] <= b[0] for a, b in zip(pairs, pairs[1:])):
            raise SnapshotError(f + ".results", "must be non-dominated: more cacao kept means less gold")
        out.append((seat, pairs))
    return out


def _build(parts: dict[str, Any]) -> core.CorePosition:
    c = core.CorePosition()
    c.load(parts["players"], parts["first_player"], parts["turn"], parts["mover"], parts["phase"],
           parts["tiles"], parts["covered"], parts["display"], parts["deck"], parts["seats"], parts["pending"])
    return c
