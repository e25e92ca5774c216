"""A short, forgiving action notation for people at a keyboard.

    2101 3,4 r1            place a 2101 at x=3, y=4, turned once clockwise
    2101 3,4 1210          the same, giving the workers facing N, E, S, W
    2101 3,4 r1 m3@-1,1    ... and put the display's market-3 on (-1,1)
    1111 (3, 4)            a 1111 looks the same every way round
    ob 3001 2,1 r2         overbuild your tile at (2,1) (deck and display empty)
    discard 2101           only when nothing can be placed
    r 2                    choose resolution option 2 of the listed ones
    7                      action 7 of the numbered list of legal actions

Parsing filters the legal actions by what was typed: what is left, if it is
one action, is the answer; if several are left (no rotation given, or a
choice of fills), they are offered as a numbered list; if none, the message
says which part is wrong and why. Nothing here decides legality: the legal
actions always come from the engine.

Jungle tiles in fills: p1 p2 (plantations), m2 m3 m4 (markets), g1 g2 (gold
mines), w (water), s (sun), t (temple), or their docs/record-format.md names.

Thread-safety: pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cacaoai.engine import Action, Fill
from cacaoai.engine.rules import WORKER_TILES, faces

from .board import NEIGHBOURS, count_tiles

ABBREV = {
    "plantation-1": "p1", "plantation-2": "p2", "market-2": "m2", "market-3": "m3",
    "market-4": "m4", "gold-1": "g1", "gold-2": "g2", "water": "w", "sun": "s", "temple": "t",
}
_ALIASES: dict[str, str] = {}
for _name, _short in ABBREV.items():
    _stem, _, _num = _name.partition("-")
    for _alias in {_name, _name.replace("-", ""), _short, _stem[:2] + _num, _stem[:5] + _num}:
        _ALIASES[_alias] = _name
_ALIASES.update({"mine1": "gold-1", "mine2": "gold-2", "mk2": "market-2", "mk3": "market-3",
                 "mk4": "market-4", "wat": "water", "tem": "temple", "tmp": "temple"})
_DIRS = "NESW"

_CELL = r"(-?\d+),(-?\d+)"
_KIND_WORDS = {"ob": "overbuild", "over": "overbuild", "overbuild": "overbuild",
               "place": "place", "pl": "place", "d": "discard", "discard": "discard",
               "drop": "discard"}
_FILLER = {"at", "on", "to", "in", "with", "tile"}
MAX_CHOICES = 30


@dataclass
class Parsed:
    """What a line of notation means.

    Exactly one of: ``action`` (one legal action), ``choices`` (several legal
    actions fit; ask which), ``error`` (none fits, and why).
    """

    action: Action | None = None
    choices: list[Action] = field(default_factory=list)
    error: str | None = None
    prompt: str = ""


def place_cells(legal: Sequence[Action]) -> set[tuple[int, int]]:
    """The empty cells where some legal action places a tile (to mark on the board)."""
    return {(a.x, a.y) for a in legal if a.type == "place" and a.x is not None and a.y is not None}


def jungle_name(text: str) -> str | None:
    """The docs/record-format.md name of a jungle tile written short or long, or None."""
    return _ALIASES.get(text.lower().replace("_", "-"))


# --- writing -------------------------------------------------------------------

def write(action: Action, legal: Sequence[Action] = ()) -> str:
    """The notation of an action; :func:`parse` reads it back to the same action.

    A resolve is written ``r N``, N counting the resolve options in ``legal``.
    """
    if action.type == "resolve":
        options = [a for a in legal if a.type == "resolve"]
        number = options.index(action) + 1 if action in options else 0
        return f"r {number}" if number else f"resolve {action.gold}g {action.cacao}c"
    if action.type == "discard":
        return f"discard {action.tile}"
    text = f"{action.tile} {action.x},{action.y}"
    if action.tile != "1111":
        text += f" r{action.rot}"
    if action.type == "overbuild":
        text = "ob " + text
    for f in action.fills:
        text += f" {ABBREV[f.tile]}@{f.x},{f.y}"
    return text


def resolve_text(action: Action) -> str:
    """``+3 gold, keep 2 cacao``."""
    return f"+{action.gold} gold, keep {action.cacao} cacao"


def offer_lines(legal: Sequence[Action]) -> list[str]:
    """What the seat to act is offered beyond placing a tile, for the prompt: the
    results to choose (``r N``) in a resolve, else the cells it may overbuild and
    whether it must discard; empty when it just places."""
    if legal and all(a.type == "resolve" for a in legal):
        return ["Choose the result of your activations (r N):",
                *(f"  {i}) {resolve_text(a)}" for i, a in enumerate(legal, 1))]
    lines = []
    overbuilds = sorted({(a.x, a.y) for a in legal if a.type == "overbuild"})
    if overbuilds:
        cells = ", ".join(f"{x},{y}" for x, y in overbuilds)
        lines.append(f"You may overbuild (1 sun): ob TILE X,Y rR on one of {cells}")
    if legal and all(a.type == "discard" for a in legal):
        lines.append("No tile can be placed: discard one (discard TILE).")
    return lines


def describe(action: Action, position: Mapping[str, Any], legal: Sequence[Action] = ()) -> str:
    """The notation with a gloss: what each worker side will face, or the resolution."""
    text = write(action, legal)
    if action.type == "resolve":
        return f"{text:<6} {resolve_text(action)}"
    if action.type == "discard":
        return f"{text:<24} (no effect)"
    return f"{text:<24} {facing(action, position)}"


def facing(action: Action, position: Mapping[str, Any]) -> str:
    """What the workers of a placed or overbuilt tile face: ``N2 plant-1, E1 market-3 (new)``.

    A cell the placement closes that gets no display tile is marked ``deck?``
    (the top of the jungle deck, unknown to the player).
    """
    board = {(e["x"], e["y"]): e for e in position["board"]}
    fills = {(f.x, f.y): f.tile for f in action.fills}
    assert action.tile is not None and action.x is not None and action.y is not None
    parts = []
    for d, workers in enumerate(faces(action.tile, action.rot or 0)):
        if not workers:
            continue
        dx, dy = NEIGHBOURS[d]
        cell = (action.x + dx, action.y + dy)
        entry = board.get(cell)
        if entry is not None and "seat" not in entry:
            what = entry["tile"]
        elif cell in fills:
            what = f"{fills[cell]} (new)"
        elif entry is None and action.type == "place" and _closes(cell, action, board):
            what = "deck?" if position["jungle_deck_count"] else "-"
        else:
            what = "-"
        parts.append(f"{_DIRS[d]}{workers} {what}")
    return ", ".join(parts) or "no workers facing jungle"


def _closes(cell: tuple[int, int], action: Action, board: Mapping[tuple[int, int], Any]) -> bool:
    """True when ``cell`` gets 2 worker neighbours once the action's tile is placed."""
    workers = 0
    for dx, dy in NEIGHBOURS:
        n = (cell[0] + dx, cell[1] + dy)
        entry = board.get(n)
        if n == (action.x, action.y) or (entry is not None and "seat" in entry):
            workers += 1
    return workers >= 2


# --- reading -------------------------------------------------------------------

def parse(text: str, legal: Sequence[Action], position: Mapping[str, Any], seat: int) -> Parsed:
    """Reads one line of notation against the legal actions of ``seat``.

    Args:
        text: what the person typed.
        legal: the legal actions now (numbers count from 1 in this order).
        position: the position as the person sees it (their observation).
        seat: the seat of the person typing.
    """
    words = _tokens(text)
    if not words:
        return Parsed(error="Type an action, or help.")
    number = _number(words, legal)
    if number is not None:
        return number
    if legal and legal[0].type == "resolve":
        return _parse_resolve(words, legal)
    return _parse_turn(words, legal, position, seat)


def _tokens(text: str) -> list[str]:
    text = text.strip().lower()
    text = re.sub(r"[()\[\]]", " ", text)
    text = re.sub(r"\s*,\s*", ",", text)
    text = re.sub(r"\s*([@=])\s*", r"\1", text)
    return text.split()


def _number(words: list[str], legal: Sequence[Action]) -> Parsed | None:
    if len(words) != 1 or not re.fullmatch(r"#?\d+", words[0]):
        return None
    n = int(words[0].lstrip("#"))
    if re.fullmatch(r"\d{4}", words[0]) and words[0] in WORKER_TILES:
        return None  # a tile name, not a number
    if 1 <= n <= len(legal):
        return Parsed(action=legal[n - 1])
    return Parsed(error=f"There is no action number {n}: the list has 1..{len(legal)} "
                        "(type list to see it).")


def _parse_resolve(words: list[str], legal: Sequence[Action]) -> Parsed:
    options = list(legal)
    if words[0] in ("r", "resolve", "res"):
        words = words[1:]
    elif re.fullmatch(r"r\d+", words[0]):
        words = [words[0][1:]] + words[1:]
    if len(words) == 1 and words[0].isdigit():
        n = int(words[0])
        if 1 <= n <= len(options):
            return Parsed(action=options[n - 1])
        return Parsed(error=f"Choose a resolution from 1 to {len(options)}, e.g. 'r 1'.")
    if not words:
        return Parsed(choices=options, prompt="Which result?")
    return Parsed(error="Now choose the result of your activations: type 'r N' (or just N) "
                        f"with N from 1 to {len(options)}.")


@dataclass
class _Query:
    kind: str | None = None
    tile: str | None = None
    cell: tuple[int, int] | None = None
    rot: int | None = None
    orientation: tuple[int, ...] | None = None
    fills: list[Fill] = field(default_factory=list)


def _read_words(words: list[str]) -> _Query | str:
    """The parts of a turn action, or an error message."""
    q = _Query()
    i = 0
    while i < len(words):
        w = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in _FILLER:
            pass
        elif w in _KIND_WORDS:
            q.kind = _KIND_WORDS[w]
        elif (m := re.fullmatch(r"(\d{4})@" + _CELL, w)) and m.group(1) in WORKER_TILES:
            q.tile, q.cell = m.group(1), (int(m.group(2)), int(m.group(3)))
        elif w in WORKER_TILES and q.tile is None:
            q.tile = w
        elif re.fullmatch(r"[0-3]{4}", w) and q.tile is not None:
            q.orientation = tuple(int(c) for c in w)
        elif re.fullmatch(r"\d{4}", w):
            return f"'{w}' is not a worker tile: the tiles are {', '.join(WORKER_TILES)}."
        elif w in ("r", "rot", "rotation") and re.fullmatch(r"\d+", nxt):
            i += 1
            if int(nxt) > 3:
                return f"Rotation {nxt}: a tile turns 0 to 3 quarter turns (r0..r3)."
            q.rot = int(nxt)
        elif m := re.fullmatch(r"r(?:ot)?=?(\d+)", w):
            if int(m.group(1)) > 3:
                return f"Rotation {m.group(1)}: a tile turns 0 to 3 quarter turns (r0..r3)."
            q.rot = int(m.group(1))
        elif m := re.fullmatch(_CELL, w):
            if q.cell is not None:
                return (f"Two cells given ({q.cell[0]},{q.cell[1]} and {w}): give one cell, and "
                        "write fills as TILE@X,Y (e.g. m3@-1,1).")
            q.cell = (int(m.group(1)), int(m.group(2)))
        elif m := (re.fullmatch(r"([a-z0-9-]+)@" + _CELL, w)
                   or re.fullmatch(_CELL + r"=([a-z0-9-]+)", w)):
            groups = m.groups()
            kind_text, x, y = (groups[0], groups[1], groups[2]) if "@" in w else \
                (groups[2], groups[0], groups[1])
            kind = jungle_name(kind_text)
            if kind is None:
                return (f"'{kind_text}' is not a jungle tile: use p1 p2 m2 m3 m4 g1 g2 w s t "
                        "(e.g. m3@-1,1).")
            q.fills.append(Fill(int(x), int(y), kind))
        elif re.fullmatch(r"-?\d+", w) and re.fullmatch(r"-?\d+", nxt) and q.cell is None:
            q.cell = (int(w), int(nxt))
            i += 1
        else:
            return (f"I don't understand '{w}'. Write e.g. '2101 3,4 r1' (tile, cell x,y, "
                    "rotation), or a number from the list; type help for more.")
        i += 1
    return q


def _parse_turn(words: list[str], legal: Sequence[Action], position: Mapping[str, Any],
                seat: int) -> Parsed:
    q = _read_words(words)
    if isinstance(q, str):
        return Parsed(error=q)
    if words[0] in ("r", "resolve") and q.cell is None and q.tile is None:
        return Parsed(error="No resolution to choose now: it is your turn to place a worker tile.")
    hand = position["seats"][seat].get("hand") or []
    cands = list(legal)
    if q.kind is not None:
        cands = [a for a in cands if a.type == q.kind]
        if not cands:
            return Parsed(error=_why_no_kind(q.kind))
    if q.tile is not None:
        if q.tile not in hand:
            return Parsed(error=f"You have no {q.tile} in hand (your hand: {count_tiles(hand)}).")
        cands = [a for a in cands if a.tile == q.tile]
    if q.cell is not None:
        here = [a for a in cands if (a.x, a.y) == q.cell]
        if not here:
            return Parsed(error=explain_cell(q.cell, position, seat, legal))
        cands = here
    elif q.kind != "discard" and q.tile is not None and not q.fills and len(cands) > 1:
        return Parsed(error=f"Where? Add the cell, e.g. '{q.tile} x,y r1'; the cells you may play "
                            "are marked <x,y> on the board.")
    if q.rot is not None:
        cands = [a for a in cands if a.rot == q.rot or a.tile == "1111"]
    if q.orientation is not None:
        assert q.tile is not None
        rots = {r for r in range(4) if faces(q.tile, r) == q.orientation}
        if not rots:
            return Parsed(error=_bad_orientation(q.tile, q.orientation))
        cands = [a for a in cands if (a.rot or 0) in rots or a.tile == "1111"]
    before_fills = cands
    for f in q.fills:
        cands = [a for a in cands if f in a.fills]
    if not cands:
        if q.fills and before_fills:
            ways = "; ".join(" ".join(f"{ABBREV[f.tile]}@{f.x},{f.y}" for f in a.fills) or "(none)"
                             for a in before_fills)
            return Parsed(error=f"Those fills don't fit this placement. The ways to fill it: {ways}.")
        return Parsed(error="No legal action matches that. Type list for the legal actions.")
    if len(cands) == 1:
        return Parsed(action=cands[0])
    if len(cands) > MAX_CHOICES:
        return Parsed(error=f"That fits {len(cands)} actions: say more, e.g. the tile, the cell "
                            "and the rotation ('2101 3,4 r1').")
    distinct_tiles = {a.tile for a in cands}
    distinct_rots = {(a.tile, a.rot) for a in cands}
    if len(distinct_tiles) > 1:
        prompt = "Which tile and rotation?"
    elif len(distinct_rots) > 1:
        prompt = "Which way round? (the side counts are the workers facing N, E, S, W)"
    else:
        prompt = "Which jungle tiles go where?"
    return Parsed(choices=cands, prompt=prompt)


def _why_no_kind(kind: str) -> str:
    if kind == "overbuild":
        return ("You cannot overbuild now: it needs an empty jungle deck and display, a sun "
                "token, and one of your own tiles that is not an overbuild already.")
    if kind == "discard":
        return "You may discard only when no tile can be placed or overbuilt."
    return "You cannot place a tile now."


def _bad_orientation(tile: str, orientation: tuple[int, ...]) -> str:
    turns = sorted({"".join(map(str, faces(tile, r))) for r in range(4)})
    return (f"A {tile} cannot face N,E,S,W = {','.join(map(str, orientation))}: its turns are "
            f"{', '.join(turns)}.")


def explain_cell(cell: tuple[int, int], position: Mapping[str, Any], seat: int,
                 legal: Sequence[Action] = ()) -> str:
    """Why nothing can be played on ``cell`` (it is taken, touches a worker tile, ...)."""
    board = {(e["x"], e["y"]): e for e in position["board"]}
    x, y = cell
    where = f"({x},{y})"
    entry = board.get(cell)
    if entry is not None:
        if "seat" not in entry:
            return f"{where} already holds a {entry['tile']} jungle tile."
        if entry["seat"] != seat:
            return f"{where} holds seat {entry['seat']}'s worker tile."
        if entry.get("covers"):
            return f"{where} is already an overbuild; it cannot be covered again."
        return (f"{where} holds your worker tile; you may overbuild it only once the jungle deck "
                "and the display are empty, for a sun token.")
    neighbours = [board.get((x + dx, y + dy)) for dx, dy in NEIGHBOURS]
    if any(n is not None and "seat" in n for n in neighbours):
        return f"{where} touches a worker tile, and worker tiles may not touch each other."
    if not any(n is not None for n in neighbours):
        return f"{where} is not next to any jungle tile; play on a cell marked <x,y>."
    if legal and all(a.type == "overbuild" for a in legal if a.type != "discard"):
        return f"{where}: no cell is free to play; overbuild one of your tiles instead."
    return f"{where} cannot take that tile now; play on a cell marked <x,y>."
