"""One naming of seats and tiles across the rules, the board page, the terminal and the
examples: the seats' colours as docs/rules.md names them, and the tiles by their names
in records (the engine's), never spelt from the protobuf enums."""

from __future__ import annotations

import re
from pathlib import Path

from cacaoai.client import board, notation
from cacaoai.engine.rules import JUNGLE_TILES, SEAT_COLOURS

ROOT = Path(__file__).resolve().parent.parent


def rules_seat_colours() -> list[str]:
    """The colour row of the seats' table in docs/rules.md."""
    row = re.search(r"^\s*\| colour \|(.*)\|\s*$", (ROOT / "docs" / "rules.md").read_text(), re.M)
    assert row, "docs/rules.md names no seat colours"
    return [c.strip() for c in row[1].split("|")]


def page_constant(name: str, path: str) -> list[str]:
    """A string array constant of the TypeScript sources."""
    found = re.search(rf"export const {name} = \[([^\]]*)\]", (ROOT / path).read_text())
    assert found, f"{path} has no {name}"
    return re.findall(r'"([^"]*)"', found[1])


def test_the_seats_have_the_same_names_in_the_rules_the_page_and_the_terminal():
    colours = rules_seat_colours()
    assert colours == ["red", "yellow", "purple", "blue"]
    # the TypeScript client's names, which the page takes
    assert page_constant("SEAT_NAMES", "clients/typescript/src/names.ts") == colours
    assert 'export { SEAT_NAMES, seatName } from "@cacaoai/client";' in (ROOT / "web/src/names.ts").read_text()
    assert list(board.SEAT_COLOUR_NAMES) == colours == list(SEAT_COLOURS)  # the engine's, which sentences take
    # the terminal paints each seat in its colour: red, yellow, magenta (purple), blue backgrounds
    assert [bg for bg, _ in board.SEAT_SGR] == ["41", "43", "45", "44"]


def test_the_tiles_are_named_as_records_name_them_everywhere():
    names = set(JUNGLE_TILES)
    assert set(board.JUNGLE_TEXT) == names  # the terminal's board
    assert set(notation.ABBREV) == names  # what cacao-play reads
    styles = re.search(r"JUNGLE_STYLE[^=]*= \{(.*?)\n\};", (ROOT / "web/src/board.ts").read_text(), re.S)
    assert styles
    assert set(re.findall(r'^\s*"?([a-z0-9-]+)"?:', styles[1], re.M)) == names  # the page's drawing
    # no front end spells a tile's name from the protobuf enum ("plantation_2"): they take the
    # names the service gives (GetServerInfo's rules facts)
    fronts = [*ROOT.glob("web/src/*.ts"), *ROOT.glob("clients/examples/**/*.ts"), *ROOT.glob("clients/examples/*.py")]
    for path in fronts:
        text = path.read_text()
        assert not re.search(r"(JungleTile|WorkerTile)\[[^\]]+\]", text), path
        assert "JUNGLE_TILE_" not in text and "WORKER_TILE_" not in text, path
