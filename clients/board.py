"""Drawing a Cacao position as text for a terminal.

The board is a grid of 7x3-character cells, one per board cell, with the x
coordinate over each column and the y coordinate beside each row (y grows
downwards, as in docs/rules.md). A worker tile shows its workers on each side and
its owner in the middle (``[0]``; ``{0}`` for an overbuild, which cannot be
covered again), in the owner's colour; a jungle tile shows its kind on green;
an empty cell where the player to move may place a tile shows its coordinates.

Everything here reads a ``cacao-position/1`` dict, usually the observation of
the person at the keyboard, so nothing hidden is ever drawn.

Thread-safety: pure functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cacaoai.engine.rules import DIRECTIONS, MAX_CACAO, MAX_SUN, SEAT_COLOURS, WATER_TRACK, faces

CELL_W = 7

# seat colours: background, foreground (ANSI SGR), in the order of the seats' names (the
# engine's SEAT_COLOURS, as docs/rules.md and the board page, web/src/names.ts, name them)
SEAT_SGR = (("41", "97"), ("43", "30"), ("45", "97"), ("44", "97"))
SEAT_COLOUR_NAMES = SEAT_COLOURS
JUNGLE_COLOUR = ("42", "30")
OPEN_COLOUR = "2"  # dim

# two short lines per jungle kind
JUNGLE_TEXT = {
    "plantation-1": ("plant", "1 cacao"),
    "plantation-2": ("plant", "2 cacao"),
    "market-2": ("market", "sell 2"),
    "market-3": ("market", "sell 3"),
    "market-4": ("market", "sell 4"),
    "gold-1": ("mine", "1 gold"),
    "gold-2": ("mine", "2 gold"),
    "water": ("water", ""),
    "sun": ("sun", ""),
    "temple": ("temple", ""),
}
NEIGHBOURS = DIRECTIONS  # (dx, dy) of N, E, S, W


def seat_name(seat: int) -> str:
    """A seat's name, its colour ("red"), as the board page names it; "seat 4" past the four."""
    return SEAT_COLOUR_NAMES[seat] if 0 <= seat < len(SEAT_COLOUR_NAMES) else f"seat {seat}"


def paint(text: str, sgr: str, colour: bool) -> str:
    """``text`` in ANSI colours ``sgr`` (such as "41;97") when ``colour`` is on."""
    return f"\x1b[{sgr}m{text}\x1b[0m" if colour and sgr else text


def _cell_lines(entry: Mapping[str, Any] | None, xy: tuple[int, int], open_cell: bool,
                colour: bool) -> list[str]:
    """The three lines of one cell, each CELL_W characters wide (before colours)."""
    if entry is None:
        if not open_cell:
            return [" " * CELL_W] * 3
        label = f"{xy[0]},{xy[1]}"
        label = f"<{label}>" if len(label) <= CELL_W - 2 else label
        mid = paint(label.center(CELL_W), OPEN_COLOUR, colour)
        return [" " * CELL_W, mid, " " * CELL_W]
    tile = entry["tile"]
    if tile in JUNGLE_TEXT:
        top, bottom = JUNGLE_TEXT[tile]
        sgr = ";".join(JUNGLE_COLOUR)
        return [paint(s.center(CELL_W), sgr, colour) for s in ("", top, bottom)]
    seat = entry["seat"]
    n, e, s, w = (str(k) if k else "·" for k in faces(tile, entry.get("rot", 0)))
    owner = f"{{{seat}}}" if entry.get("covers") else f"[{seat}]"
    rows = [f"   {n}   ", f"{w} {owner} {e}", f"   {s}   "]
    sgr = ";".join(SEAT_SGR[seat % 4])
    return [paint(r, sgr, colour) for r in rows]


def draw_board(position: Mapping[str, Any], open_cells: Iterable[tuple[int, int]] = (),
               *, colour: bool = False) -> str:
    """The board as text.

    Args:
        position: a ``cacao-position/1`` dict (complete or an observation).
        open_cells: empty cells to mark with their coordinates (where the
            player to move may place a tile).
        colour: use ANSI colours.
    """
    cells = {(e["x"], e["y"]): e for e in position["board"]}
    marked = set(open_cells)
    spots = set(cells) | marked
    xs = [x for x, _ in spots]
    ys = [y for _, y in spots]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    lines = ["    " + " ".join(f"x={x}".center(CELL_W) for x in range(x0, x1 + 1))]
    for y in range(y0, y1 + 1):
        row = [_cell_lines(cells.get((x, y)), (x, y), (x, y) in marked, colour)
               for x in range(x0, x1 + 1)]
        for k in range(3):
            label = f"y={y}".rjust(4) if k == 1 else "    "
            lines.append((label + " " + " ".join(cell[k] for cell in row)).rstrip())
    return "\n".join(lines)


def count_tiles(tiles: Iterable[str]) -> str:
    """``["2101", "1111", "2101"]`` -> ``"1111, 2101 x2"`` (empty: "none")."""
    counts: dict[str, int] = {}
    for t in tiles:
        counts[t] = counts.get(t, 0) + 1
    return ", ".join(t if k == 1 else f"{t} x{k}" for t, k in sorted(counts.items())) or "none"


def seat_lines(position: Mapping[str, Any], names: Sequence[str], *, colour: bool = False) -> list[str]:
    """One line per seat: gold, cacao, sun, water and tiles left."""
    lines = []
    width = max(len(n) for n in names)
    for s, seat in enumerate(position["seats"]):
        water = seat["water"]
        marker = ">" if position.get("to_act") == s else " "
        name = paint(f"{names[s]:<{width}}", ";".join(SEAT_SGR[s % 4]), colour)
        lines.append(
            f"{marker} {name}  gold {seat['gold']:>3}  cacao {seat['cacao']}/{MAX_CACAO}  "
            f"sun {seat['sun']}/{MAX_SUN}  water {water} ({WATER_TRACK[water]:+d} gold)  "
            f"hand {seat['hand_count']}  pile {seat['pile_count']}")
    return lines


def hand_lines(tiles: Sequence[str]) -> list[str]:
    """The hand with every distinct way to turn each tile (workers N,E,S,W)."""
    lines = [f"Your hand: {count_tiles(tiles)}"]
    for tile in sorted(set(tiles)):
        turns = []
        seen = set()
        for rot in range(4):
            f = faces(tile, rot)
            if f in seen:
                continue
            seen.add(f)
            turns.append(f"r{rot} " + "".join(map(str, f)))
        lines.append(f"  {tile}  turns (workers N E S W): " + "   ".join(turns))
    return lines


def draw_position(position: Mapping[str, Any], names: Sequence[str],
                  open_cells: Iterable[tuple[int, int]] = (), *, viewer: int | None = None,
                  colour: bool = False) -> str:
    """Board, display, deck, every seat's stores and the viewer's hand."""
    display = ", ".join(position["display"]) or "empty"
    parts = [
        draw_board(position, open_cells, colour=colour),
        "",
        f"Display: {display}    Jungle deck: {position['jungle_deck_count']} tiles",
        *seat_lines(position, names, colour=colour),
    ]
    if viewer is not None:
        hand = position["seats"][viewer].get("hand")
        if hand is not None:
            parts.extend(hand_lines(hand))
    return "\n".join(parts)


def score_lines(scores: Sequence[Any], names: Sequence[str], cacao: Sequence[int],
                temples: Sequence[Any] = (), winners: Sequence[int] | None = None) -> list[str]:
    """A table of each seat's gold by part, as the final scoring counts it:
    gold so far, the temple majorities' awards, the sun tokens' gold and the
    water track's value, their total, and the cacao left (the tie-break).

    Args:
        scores: a :class:`cacaoai.engine.Score` per seat (``Position.scores()``).
        names: a name per seat.
        cacao: each seat's cacao.
        temples: the :class:`cacaoai.engine.Temple` list (``Position.temples()``):
            a line per temple whose majority gives somebody gold.
        winners: the winning seats (marked), once the game is over.
    """
    width = max(6, *(len(n) for n in names))
    lines = [f"  {'':<{width}}  {'gold':>5} {'temples':>8} {'sun':>5} {'water':>6} {'total':>6} "
             f"{'cacao':>6}"]
    for s, score in enumerate(scores):
        mark = "  winner" if winners is not None and s in winners else ""
        lines.append(f"  {names[s]:<{width}}  {score.gold:>5} {score.temples:>+8d} {score.sun:>+5d} "
                     f"{score.water:>+6d} {score.total:>6} {cacao[s]:>6}{mark}")
    for t in temples:
        if not any(t.awards):
            continue
        workers = ", ".join(f"{names[s]} {w}" for s, w in enumerate(t.workers) if w)
        awards = ", ".join(f"{names[s]} {a:+d}" for s, a in enumerate(t.awards) if a)
        lines.append(f"  temple at {t.x},{t.y}: workers {workers} -> gold {awards}")
    return lines


def legend(roles: Sequence[str], *, colour: bool = False) -> str:
    """How to read the board; ``roles`` says who plays each seat ("you", "AI")."""
    seats = ", ".join(f"[{s}] {paint(seat_name(s), ';'.join(SEAT_SGR[s % 4]), colour)} ({role})"
                      for s, role in enumerate(roles))
    return ("Worker tiles show their workers on each side (· = none) and the owner's seat number in "
            "the middle; {n} marks an overbuilt tile.\n"
            f"Owners: {seats}. <x,y> marks an empty cell you may play.")
