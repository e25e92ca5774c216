"""The board page in a real browser: headless Chromium (Debian's package, driven by
Playwright) against a real cacao-server process, clicking and tapping as a person
would, at a phone's (375×812), a tablet's (768×1024) and a desktop's (1366×768) size."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import TEST_SERVER_FLAGS

from cacaoai.client.puzzles import new_rating
from cacaoai.engine import Position

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / ".ci"))
from screenshots import (  # noqa: E402
    CHOICE,
    CHROMIUM,
    PUZZLE_JUDGED,
    PUZZLE_READY,
    SIZES,
    TARGET,
    BoardPage,
    cacao_server,
    chromium,
)

pytestmark = [pytest.mark.e2e, pytest.mark.requires_tool(CHROMIUM), pytest.mark.timeout(180)]

TOUCH = {"phone": True, "tablet": True, "desktop": False}


PUZZLES = Path(__file__).resolve().parent / "data" / "puzzles.jsonl"


@pytest.fixture(scope="module")
def url():
    """A cacao-server for the page, serving the test puzzles (tests/data/puzzles.jsonl)."""
    with cacao_server(*TEST_SERVER_FLAGS, "--max-searches", "2", "--puzzles", str(PUZZLES)) as address:
        yield address


@contextlib.contextmanager
def open_board(url: str, size: str = "desktop") -> Iterator[BoardPage]:
    """The page at one of SIZES (a touch screen for the phone and the tablet)."""
    width, height = SIZES[size]
    with chromium(width, height, touch=TOUCH[size]) as page:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield BoardPage(page, url, touch=TOUCH[size])
        assert errors == []  # no uncaught script error on the page


@pytest.fixture
def board(url):
    with open_board(url) as b:
        yield b


def actions(board: BoardPage) -> int:
    return board.actions()


def box(board: BoardPage, selector: str) -> dict:
    return board.page.locator(selector).first.bounding_box()


#: Every tap target of the page: its buttons, the tiles to choose (the tray's and the seat's hand's),
#: its menus, links, inputs (a checkbox by its label, which takes its taps) and the panels' headings
TAP_TARGETS = "button, [role=button], svg.mini.choosable, select, a[href], input, summary"


def assert_finger_sized(page, *selectors: str) -> None:
    """Each selector matches something visible, and everything visible it matches is a finger's
    size: 44×44 CSS px or more."""
    found = page.evaluate("""selectors => selectors.map(selector => {
        const shown = [...document.querySelectorAll(selector)]
            .map(e => e.type === 'checkbox' && e.labels?.length ? e.labels[0] : e)
            .filter(e => { const r = e.getBoundingClientRect();
                           return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; });
        const small = shown.map(e => [e.id || e.outerHTML.slice(0, 80), e.getBoundingClientRect()])
            .filter(([, r]) => r.width < 44 || r.height < 44)
            .map(([what, r]) => [what, Math.round(r.width * 10) / 10, Math.round(r.height * 10) / 10]);
        return [selector, shown.length, small]; })""", list(selectors))
    assert [selector for selector, shown, _ in found if not shown] == [], "nothing visible"
    assert [(selector, small) for selector, _, small in found if small] == []


def in_view(page, selector: str) -> bool:
    """The element lies within the window, whole (to a pixel)."""
    return page.evaluate("""selector => { const r = document.querySelector(selector).getBoundingClientRect();
        return r.top >= -1 && r.left >= -1 && r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1; }""", selector)


# ---------------------------------------------------------------- whole games


def test_a_complete_game_against_the_ai_through_the_page(board):
    board.new_game(["human", "beginner"], seed=7)
    page = board.page
    assert page.locator("#board g.cells g.worker").count() == 1  # the AI, first player, has placed
    moves = board.play_to_end()
    assert board.over() and moves >= 11  # a 2-player seat lays 11 tiles
    result = board.state("s.game.record.result")
    winners = " and ".join(["red", "yellow"][s] for s in result["winners"])
    assert page.inner_text("#status").startswith(f"Game over: {winners} win")
    # a cell per worker tile placed (an overbuild covers one of the seat's own instead)
    placed = board.state("s.game.record.actions.filter(a => a.kind.case === 'place').length")
    assert placed >= 11 and page.locator("#board g.cells g.worker").count() == placed
    # the final score, seat by seat: gold held + temples + sun + water = total = the result's gold
    for seat in (0, 1):
        row = page.locator(f"#result tr[data-seat='{seat}']")
        parts = {k: int(row.locator(f"td.{k}").inner_text().replace("−", "-").lstrip("+"))
                 for k in ("gold", "temples", "sun", "water", "total")}
        assert parts["gold"] + parts["temples"] + parts["sun"] + parts["water"] == parts["total"]
        assert parts["total"] == result["seats"][seat]["gold"]
        assert parts["gold"] == board.state(f"s.game.position.seats[{seat}].gold")  # what the seat panel showed
    shown = page.inner_text("#result")
    assert page.evaluate("(() => { const r = document.querySelector('#result');"
                         " return r.scrollWidth <= r.clientWidth; })()")  # the whole table, nothing cut off
    # the game's graph: a line per seat over every action, the result at its end
    board.wait_for_graph()
    n = actions(board)
    assert page.locator("#graph svg.graph g.seat-line").count() == 2
    assert page.locator("#graph rect.hit").count() == n + 1
    assert int(page.get_attribute("#graph", "data-points")) == n + 1  # every position evaluated, and the end
    # the finished game saved, loaded and replayed to its end shows the same result
    with page.expect_download() as download:
        page.click("#save")
    record = json.loads(Path(download.value.path()).read_text())
    assert set(record["result"]) == {"gold", "cacao", "winners"}  # docs/record-format.md
    page.set_input_files("#load-file", download.value.path())  # the service accepts it
    page.wait_for_function("window.cacao.mode === 'replay'")
    page.click("#r-last")
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result") == shown


BOARD_TOP = "document.querySelector('#board').getBoundingClientRect().top + scrollY"


def test_a_phone_game_is_played_by_taps_to_the_end(url):
    with open_board(url, "phone") as board:
        page = board.page
        board.new_game(["human", "beginner"], seed=7)
        tops = {page.evaluate(BOARD_TOP)}
        # a tile chosen and its cell tapped once: the tray, Place and every other tap target a finger's size
        board.press(page.locator("#tray svg.mini.choosable").first)
        board.cell(*board.first_target()).tap()
        page.wait_for_selector("#place:not([hidden])")
        assert_finger_sized(page, TAP_TARGETS, "#tray svg.choosable", "#place", "#rotate", "#zoom-in", "#new")
        played = board.actions()
        board.press("#place")  # placed (its fills, if it closes cells, chosen as the game goes on)
        page.wait_for_function("n => document.querySelector('#choices button.choice') || window.cacao.busy"
                               " || window.cacao.game.record.actions.length !== n", arg=played)
        board.wait_for_human_or_end()

        def moved(_: int) -> None:  # and at every decision after: the results (and ways of filling) to choose too
            tops.add(page.evaluate(BOARD_TOP))
            assert_finger_sized(page, TAP_TARGETS)

        moved(0)
        moves = 1 + board.play_to_end(on_move=moved)  # every tile,
        assert board.over() and moves >= 11  # cell, result and fill chosen by a tap
        # the board stood in one place all game: the status, the messages and the end above it
        # kept their heights whatever they said
        tops.add(page.evaluate(BOARD_TOP))
        assert len(tops) == 1, tops
        assert page.is_visible("#result")
        assert page.locator("#result table.score-table tbody tr").count() == 2
        assert page.evaluate("(() => { const r = document.querySelector('#result');"
                             " return r.scrollWidth <= r.clientWidth; })()")
        assert page.evaluate("document.documentElement.scrollWidth") <= SIZES["phone"][0]  # nothing wider


def test_a_three_seat_game_asks_only_its_two_humans_to_move(board):
    board.new_game(["human", "human", "beginner"], seed=3)
    seats = set()
    while not board.over():
        seats.add(board.state("s.game.position.toAct"))
        board.play_human_move()
    assert seats == {0, 1}  # the page asked both humans, never the AI seat
    record = board.state("s.game.record")
    movers = {a.get("seat", 0) for a in record["actions"]}
    assert movers == {0, 1, 2}


# ---------------------------------------------------------------- the layout


@pytest.mark.parametrize("size", ["phone", "tablet", "desktop"])
def test_the_board_is_wide_and_every_green_cell_takes_a_tap(url, size):
    width, height = SIZES[size]
    with open_board(url, size) as board:
        page = board.page
        board.new_game(["human", "beginner"], seed=7)
        svg = box(board, "#board")
        assert svg["width"] >= (0.9 * width if size != "desktop" else 640), svg
        assert svg["y"] < height and svg["y"] + svg["height"] <= 1.02 * height  # on the first screen, whole
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scrolling
        # the water carrier at the start, as the gold it is worth
        assert page.locator("#seats span.water").all_inner_texts() == ["water −10 gold"] * 2
        # the point at the middle of each green cell belongs to that cell: nothing lies over it
        # (one look at the page: it redraws the board when an evaluation comes)
        covered = page.evaluate("""[...document.querySelectorAll('#board g.cell:has(> rect.target)')].map(c => {
            c.scrollIntoView({block: 'nearest'});
            const r = c.getBoundingClientRect();
            const e = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
            return [c.dataset.x, c.dataset.y, !!e && c.contains(e)]; })""")
        assert len(covered) >= 3
        assert [c for c in covered if not c[2]] == [], "something lies over these green cells"
        # the panels fold away, and come back
        board.press("#p-seats > summary")
        assert not page.is_visible("#seats")
        board.press("#p-seats > summary")
        assert page.is_visible("#seats")
        if size == "desktop":  # the side panels fold away as a whole too: the board takes their room
            board.press("#fold")
            assert not page.is_visible("#p-seats") and not page.is_visible("#p-evaluation")
            page.wait_for_function(f"document.querySelector('#board').getBoundingClientRect().width > {svg['width']}")
            board.press("#fold")
            assert page.is_visible("#p-seats")


def touch(cdp, kind: str, points: list[tuple[float, float]]) -> None:
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
        {"x": x, "y": y, "id": i, "radiusX": 1, "radiusY": 1, "force": 1} for i, (x, y) in enumerate(points)]})


@pytest.mark.parametrize("size", ["phone", "tablet", "desktop"])
def test_zoom_pan_and_rotate_controls_work(url, size):
    with open_board(url, size) as board:
        page = board.page
        board.new_game(["human", "beginner"], seed=7)
        played = actions(board)
        whole = board.view_box()
        board.press("#zoom-in")
        zoomed = board.view_box()
        assert zoomed[2] == pytest.approx(whole[2] / 1.4, rel=0.01)  # a closer look
        # a drag moves the board (and plays nothing)
        svg = box(board, "#board")
        cx, cy = svg["x"] + svg["width"] / 2, svg["y"] + svg["height"] / 2
        if board.touch:
            cdp = page.context.new_cdp_session(page)
            touch(cdp, "touchStart", [(cx, cy)])
            for k in range(1, 6):
                touch(cdp, "touchMove", [(cx - 12 * k, cy - 8 * k)])
            touch(cdp, "touchEnd", [])
        else:
            page.mouse.move(cx, cy)
            page.mouse.down()
            page.mouse.move(cx - 60, cy - 40, steps=5)
            page.mouse.up()
        moved = board.view_box()
        assert moved[0] > zoomed[0] and moved[1] > zoomed[1]  # dragged left and up: the view went right and down
        assert moved[2] == pytest.approx(zoomed[2])
        # two fingers apart (or Ctrl and the wheel, a trackpad's pinch) zoom in further
        if board.touch:
            touch(cdp, "touchStart", [(cx - 20, cy), (cx + 20, cy)])
            for k in range(1, 6):
                touch(cdp, "touchMove", [(cx - 20 - 10 * k, cy), (cx + 20 + 10 * k, cy)])
            touch(cdp, "touchEnd", [])
        else:
            page.mouse.move(cx, cy)
            page.keyboard.down("Control")
            page.mouse.wheel(0, -200)
            page.keyboard.up("Control")
        page.wait_for_function(f"Number(document.querySelector('#board').dataset.zoom) > {1.4 * 1.2}")
        assert board.view_box()[2] < moved[2]
        board.press("#zoom-out")
        board.press("#zoom-fit")
        assert board.view_box() == pytest.approx(whole)
        assert actions(board) == played  # not one of these was a move
        # Rotate: the tile turns among the ways it may lie on the cell chosen (a tap) or pointed at (the mouse)
        x, y = best_turning_cell(board)
        page.mouse.move(0, 0)
        ghost = "#board g.ghost:not(.illegal)"
        if board.touch:
            board.cell(x, y).tap()  # chosen, not placed
            page.wait_for_selector(ghost)
        else:  # the button turns the tile in the tray; R turns the one under the pointer
            chosen = "#tray svg.mini.chosen g.worker"
            turned = page.get_attribute(chosen, "data-rotation")
            board.press("#rotate")
            assert page.get_attribute(chosen, "data-rotation") != turned
            board.cell(x, y).hover()
        rotations = board.state(f"s.legal.filter(a => a.kind.case === 'place' && a.kind.value.x === {x}"
                                f" && a.kind.value.y === {y} && a.kind.value.tile === s.tile)"
                                ".map(a => a.kind.value.rotation)")
        seen = {int(page.get_attribute(ghost, "data-rotation"))}
        for _ in range(3):
            if board.touch:
                board.press("#rotate")
            else:
                page.keyboard.press("r")
            seen.add(int(page.get_attribute(ghost, "data-rotation")))
        assert seen == set(rotations) and len(seen) > 1
        assert actions(board) == played


def best_turning_cell(board: BoardPage) -> tuple[int, int]:
    """Chooses a tile in the tray that may lie in more than one way on a green cell, and
    returns the cell."""
    tile, x, y = board.state(
        "(() => { const n = {}; for (const a of s.legal) { if (a.kind.case !== 'place') continue;"
        " const p = a.kind.value, k = [p.tile, p.x, p.y].join(','); (n[k] ||= new Set()).add(p.rotation); }"
        " return Object.entries(n).sort((p, q) => q[1].size - p[1].size)[0][0].split(',').map(Number); })()")
    index = board.state(f"s.game.position.seats[s.game.position.toAct].hand.indexOf({tile})")
    board.press(board.page.locator("#tray svg.mini").nth(index))
    board.page.wait_for_function(f"window.cacao.tile === {tile}")
    return x, y


@pytest.mark.parametrize("size", ["phone", "tablet"])
def test_a_touch_screen_board_holds_still_between_taps_and_fits(url, size):
    width, height = SIZES[size]
    with open_board(url, size) as board:
        page = board.page
        board.new_game(["human", "beginner"], seed=7)
        board.press(page.locator("#tray svg.mini.choosable").first)
        x, y = board.first_target()
        cell = f"#board g.cell[data-x='{x}'][data-y='{y}']"
        look = ("[document.querySelector('#board').getBoundingClientRect().toJSON(), scrollY,"
                f" document.querySelector(\"{cell}\").getBoundingClientRect().toJSON()]")
        board.cell(x, y).scroll_into_view_if_needed()
        first = page.evaluate(look)
        board.cell(x, y).tap()  # chosen: the tile drawn there, Place offered
        page.wait_for_selector("#place:not([hidden])")
        second = page.evaluate(look)
        assert second == first  # not a pixel of layout shift between the first tap and the second
        # the coordinates' bands lie beside the cells, not over the leftmost column or the top row
        bands, cells = page.evaluate("""[
            [...document.querySelectorAll('#board rect.coord-band')].map(r => r.getBoundingClientRect().toJSON()),
            [...document.querySelectorAll('#board g.cells > g.cell > rect')]
                .map(r => r.getBoundingClientRect().toJSON())]""")
        top, left = bands
        assert left["right"] <= min(c["left"] for c in cells) + 0.5
        assert top["bottom"] <= min(c["top"] for c in cells) + 0.5
        # Fit: always offered, and it shows the whole board, all of it on the screen
        whole = board.view_box()
        board.press("#zoom-in")
        board.press("#zoom-in")
        # zoomed, every cell is a finger's size (44 CSS px) even when the board has grown
        width = "document.querySelector('#board g.cells > g.cell > rect').getBoundingClientRect().width"
        assert page.evaluate(width) >= 44
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        board.press("#zoom-fit")
        assert board.view_box() == pytest.approx(whole)
        svg = box(board, "#board")
        assert svg["y"] >= 0 and svg["y"] + svg["height"] <= height + 1
        # a choice to make (a result, a way of filling) shows by the board without the page scrolling
        page.keyboard.press("Escape")  # the cell chosen above, unchosen
        for _ in range(12):
            scrolled = page.evaluate("scrollY")
            board.play_human_move()
            if page.locator(CHOICE).count():
                break
        if page.locator(CHOICE).count():
            choice = box(board, CHOICE)
            assert 0 <= choice["y"] and choice["y"] + choice["height"] <= height
            assert page.evaluate("scrollY") == scrolled


def test_the_ai_stays_hidden_while_you_play_and_what_it_did_is_told_step_by_step(board):
    board.new_game(["human", "beginner"], seed=7)  # the AI (yellow) moves first with this seed
    page = board.page
    assert not page.is_checked("#auto-eval")
    # no win chances, no heat map, no candidates: the engine waits to be asked
    assert page.locator("#evalbar .evalpart").count() == 0 and page.locator("#board g.heat").count() == 0
    assert page.locator("#evaluation .candidates li").count() == 0
    assert "hidden while you play" in page.inner_text("#evaluation")
    # what happened: the AI's turn, step by step, from its placement on
    steps = page.locator("#story li").all_inner_texts()
    record = board.state("s.game.record.actions")
    assert steps[0].startswith("yellow (AI): ") and " at (" in steps[0]
    assert len(steps) >= len(record) - next(i for i in range(len(record) - 1, -1, -1)
                                            if record[i]["kind"]["case"] != "resolve")
    board.analyse()  # on request: the win chances and the candidates
    assert page.locator("#evalbar .evalpart").count() == 2
    # a person's play is not known: the chances are those of strong players, and say so
    assert page.inner_text("#evaluation p.population") == "win chances if every seat plays as strong"
    assert page.locator("#evaluation .candidates li").count() > 0
    # early in the game nothing is proved: no exact mark anywhere
    assert page.locator("#evallegend .exact-badge, #evaluation .exact-mark, #evaluation .exact-note").count() == 0


# ---------------------------------------------------------------- reading the game


def test_the_coordinates_along_the_edges_are_the_notations(board):
    board.new_game(["human", "beginner"], seed=7)  # the AI moves first with this seed
    page = board.page
    # cells and labels measured in one script, so both see the same layout
    cells, labels = page.evaluate("""[
        [...document.querySelectorAll('#board g.cells > g.cell')].map(c => {
            const r = c.getBoundingClientRect();
            return {x: +c.dataset.x, y: +c.dataset.y, cx: r.x + r.width / 2, cy: r.y + r.height / 2,
                    top: r.y, left: r.x}; }),
        [...document.querySelectorAll('#board g.coords text.coord:not(.corner)')].map(t => {
            const r = t.getBoundingClientRect();
            return {axis: t.classList.contains('x') ? 'x' : 'y', text: t.textContent,
                    cx: r.x + r.width / 2, cy: r.y + r.height / 2}; })]""")
    xs = {c["x"] for c in cells}
    ys = {c["y"] for c in cells}
    for x in xs:  # each column's x above it, growing to the right
        column = [c for c in cells if c["x"] == x]
        label = next(m for m in labels if m["axis"] == "x" and m["text"] == str(x))
        assert abs(label["cx"] - column[0]["cx"]) < 2 and label["cy"] < min(c["top"] for c in column)
    for y in ys:  # each row's y to its left, growing downwards
        row = [c for c in cells if c["y"] == y]
        label = next(m for m in labels if m["axis"] == "y" and m["text"] == str(y))
        assert abs(label["cy"] - row[0]["cy"]) < 2 and label["cx"] < min(c["left"] for c in row)
    # the AI's first move, as the page wrote it, lies on the cell those labels name
    said = re.search(r"at \((-?\d+),(-?\d+)\)", page.text_content("#log"))
    assert said, page.text_content("#log")
    x, y = int(said[1]), int(said[2])
    assert board.cell(x, y).locator("g.worker").count() == 1
    # zoomed in, the labels follow the edges of what is in view
    board.press("#zoom-in")
    board.press("#zoom-in")
    top = box(board, "#board")["y"]
    shown = page.evaluate("[...document.querySelectorAll('#board g.coords text.x')]"
                          ".map(t => t.getBoundingClientRect().y)")
    assert shown and all(top <= t <= top + 20 for t in shown)


def test_the_board_keeps_its_size_when_the_evaluation_legend_fills(board):
    # the legend under the evaluation bar is empty until the first evaluation; were it
    # to grow when filled, the board below it would shrink as the AI's move came in
    board.evaluate_every_move()
    board.new_game(["human", "beginner"], seed=7)
    board.page.wait_for_function("document.querySelectorAll('#evallegend span').length == 2")  # a seat each
    filled, line = board.page.evaluate("""(() => {
        const legend = document.querySelector('#evallegend');
        return [legend.getBoundingClientRect().height, parseFloat(getComputedStyle(legend).lineHeight)];
    })()""")
    assert filled == pytest.approx(line, abs=0.5)  # one line, as it was while empty


def test_nothing_said_above_the_board_moves_it_on_a_phone(url, tmp_path):
    # a finished 4-seat game in the replay viewer: a status, a replay label and a legend for four
    # seats at a phone's width, then an error whose sentence and details are longer than the
    # message's slot of two lines
    from cacaoai.engine import Position

    game = Position.new(players=4, seed=5)
    while not game.is_over:
        game.apply(game.legal_actions()[-1])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.record()))
    with open_board(url, "phone") as board:
        page = board.page
        page.set_input_files("#load-file", str(path))
        n = len(game.history)
        page.wait_for_function(f"document.querySelector('#r-label').textContent.startsWith('{n} / {n}')")
        page.wait_for_selector("#evallegend span.won")
        top = page.evaluate(BOARD_TOP)
        # the end's legend: every seat's gold on one line, none cut off
        assert page.locator("#evallegend > span").count() == 4
        assert page.evaluate("(() => { const l = document.querySelector('#evallegend');"
                             " return l.scrollWidth <= l.clientWidth; })()")
        for index in (0, 1, n // 2, n - 1):  # short and long labels, every kind of action
            slide(page, index)
            page.wait_for_function(f"document.querySelector('#r-label').textContent.startsWith('{index} /')")
            assert page.evaluate(BOARD_TOP) == top, index
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({"format": "cacao-record/1", "players": 2, "first_player": 0,
                                   "worker_piles": [[], []], "jungle_deck": [], "actions": []}))
        page.set_input_files("#load-file", str(bad))
        page.wait_for_selector("#message.error.clipped")  # longer than its slot: marked
        assert page.evaluate(BOARD_TOP) == top
        folded = box(board, "#message")["height"]
        board.press("#message .sentence")  # a tap unfolds it over the board, which stays put
        page.wait_for_selector("#message.open")
        assert box(board, "#message")["height"] > folded and page.evaluate(BOARD_TOP) == top
        board.press("#message summary")  # the service's own words too
        assert page.is_visible("#message details.dev code") and page.evaluate(BOARD_TOP) == top
        assert "not valid" in page.inner_text("#message .sentence")


def overlap(one: dict, two: dict) -> bool:
    """Two bounding boxes share some area."""
    return (one["x"] < two["x"] + two["width"] and two["x"] < one["x"] + one["width"]
            and one["y"] < two["y"] + two["height"] and two["y"] < one["y"] + one["height"])


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_new_game_dialog_leaves_the_toolbar_free_and_fits_the_window(url, size):
    # the docs' desktop size (a smaller window than SIZES' desktop left room above the board for the
    # dialog's old place), and a phone
    width, height = (1280, 900) if size == "desktop" else SIZES["phone"]
    with chromium(width, height, touch=size == "phone") as page:
        board = BoardPage(page, url, touch=size == "phone")
        for moment in ("the page opened", "a game on"):
            if moment == "a game on":
                board.new_game(["human", "beginner"], seed=7)
                board.press("#new")
            assert page.is_visible("#setup"), moment
            dialog = box(board, "#setup")
            assert in_view(page, "#setup"), (moment, dialog)  # whole, on the first screen
            if size == "desktop":  # over the board, the toolbar above it free
                assert not overlap(dialog, box(board, "#toolbar")), (moment, dialog, box(board, "#toolbar"))
            # on top: nothing (the message line above the board) lies over it
            assert page.evaluate("""(() => { const d = document.querySelector('#setup'), r = d.getBoundingClientRect();
                return [[.05, .05], [.95, .05], [.5, .5], [.05, .95], [.95, .95]].every(([x, y]) =>
                    d.contains(document.elementFromPoint(r.left + x * r.width, r.top + y * r.height))); })()"""), moment
            if size == "phone":
                assert_finger_sized(page, "#setup button, #setup select, #setup input")
        board.press("#start")  # it goes, and a game begins
        board.wait_for_human_or_end()
        assert not page.is_visible("#setup")


def test_the_fill_choice_is_drawn_on_the_board(board):
    board.new_game(["human", "beginner"], seed=7)
    page = board.page
    find = ("(() => { const g = {}; for (const a of s.legal) { if (a.kind.case !== 'place') continue;"
            " const p = a.kind.value; const k = [p.tile, p.x, p.y, p.rotation].join(',');"
            " (g[k] ||= []).push(p.fills.map(f => [f.x, f.y, f.tile])); }"
            " const e = Object.entries(g).find(([, v]) => v.length > 1);"
            " return e ? [e[0].split(',').map(Number), e[1]] : null; })()")
    group = None
    for _ in range(12):  # a placement that closes cells the display fills in more than one way
        group = board.state(find) if board.state("s.game.position.phase === 1") else None
        if group:
            break
        board.play_human_move()
    assert group, "no placement with a choice of fills in the first moves"
    (tile, x, y, rotation), ways = group
    turn = board.state("s.game.position.turn + 1")
    assert page.inner_text("#status") == f"Turn {turn}: red to place a tile"
    page.locator("#tray svg.mini").nth(board.state(
        f"s.game.position.seats[s.game.position.toAct].hand.indexOf({tile})")).click()
    board.cell(x, y).hover()
    for _ in range(4):  # R turns the tile among its ways on this cell
        if page.get_attribute("#board g.ghost", "data-rotation") == str(rotation):
            break
        page.keyboard.press("r")
    board.cell(x, y).click()
    page.wait_for_selector(CHOICE)
    assert page.inner_text("#choices h3") == "Which display tile goes where?"
    # the status asks it too (the tile is placed: no tile to place any more)
    assert page.inner_text("#status") == f"Turn {turn}: red to choose which display tile goes where"
    # the pending tile on its cell, the cells it closes marked, one way of filling them drawn there
    pending = page.locator("#board g.ghost.pending")
    assert pending.count() == 1 and pending.get_attribute("data-rotation") == str(rotation)
    drawn, cell = pending.bounding_box(), board.cell(x, y).locator("rect").first.bounding_box()
    assert (drawn["x"] + drawn["width"] / 2, drawn["y"] + drawn["height"] / 2) == pytest.approx(
        (cell["x"] + cell["width"] / 2, cell["y"] + cell["height"] / 2), abs=2)
    marks = {(int(m.get_attribute("data-x")), int(m.get_attribute("data-y")))
             for m in page.locator("#board rect.fill-target").all()}
    assert marks == {(f[0], f[1]) for way in ways for f in way}

    def drawn() -> list:
        return page.evaluate("""[...document.querySelectorAll('#board g.fill-preview')].map(g => {
            const r = g.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2, g.dataset.tile]; })""")

    buttons = page.locator(CHOICE)
    assert buttons.count() == len(ways)
    for i in range(len(ways)):
        buttons.nth(i).hover()  # each way drawn on the board in turn
        page.wait_for_function(f"window.cacao.choice === {i}")
        shown = drawn()
        want = board.state(f"s.choices[{i}].kind.value.fills.map(f => [f.x, f.y])")
        assert len(shown) == len(want)
        for (fx, fy), (sx, sy, _) in zip(sorted(want), sorted(shown, key=lambda d: (d[0], d[1])), strict=True):
            r = board.cell(fx, fy).locator("rect").first.bounding_box()
            assert (sx, sy) == pytest.approx((r["x"] + r["width"] / 2, r["y"] + r["height"] / 2), abs=3)
        assert page.locator(f"{CHOICE}.previewed").inner_text() == buttons.nth(i).inner_text()
    before = actions(board)
    chosen = board.state(f"s.choices[{len(ways) - 1}].kind.value.fills.map(f => [f.x, f.y, f.tile])")
    buttons.nth(len(ways) - 1).click()  # the way drawn last is the one played
    board.wait_for_human_or_end()
    played = board.state(f"s.game.record.actions[{before}].kind.value.fills.map(f => [f.x, f.y, f.tile])")
    assert sorted(played) == sorted(chosen)


def test_the_keyboard_chooses_a_cell_turns_the_tile_and_places_it(board):
    board.new_game(["human", "beginner"], seed=7)
    page = board.page
    before = actions(board)
    page.focus("#board")
    page.keyboard.press("ArrowRight")  # the cursor on a green cell, the tile drawn there
    cell = board.state("s.selected")
    assert page.locator(f"#board g.cells > g.cell[data-x='{cell['x']}'][data-y='{cell['y']}'] > rect.target").count()
    assert page.inner_text("#cell-readout") == f"({cell['x']},{cell['y']})"
    ghost = page.locator("#board g.ghost")
    turned = ghost.get_attribute("data-rotation")
    ways = board.state(f"new Set(s.legal.filter(a => a.kind.case === 'place' && a.kind.value.tile === s.tile"
                       f" && a.kind.value.x === {cell['x']} && a.kind.value.y === {cell['y']})"
                       ".map(a => a.kind.value.rotation)).size")
    page.keyboard.press("r")
    rotation = ghost.get_attribute("data-rotation")
    assert (rotation != turned) == (ways > 1)  # turned, unless the tile lies only one way there
    page.keyboard.press("Enter")
    page.wait_for_function(f"window.cacao.game.record.actions.length > {before} || document.querySelector('{CHOICE}')")
    if page.locator(CHOICE).count():  # which display tile goes where: the way drawn, by the keyboard too
        page.locator(f"{CHOICE}.previewed").press("Enter")
    board.wait_for_human_or_end()
    placed = board.state(f"s.game.record.actions[{before}].kind.value")
    assert (placed.get("x", 0), placed.get("y", 0)) == (cell["x"], cell["y"])
    assert placed.get("rotation", 0) == int(rotation)


def test_an_illegal_click_is_explained_in_one_plain_sentence_without_asking_the_service(board):
    board.new_game(["human", "casual"], seed=7)
    page = board.page
    before = actions(board)
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url))
    empty = page.locator("#board g.cells > g.cell:has(> rect.empty):not(:has(g))").first
    x, y = int(empty.get_attribute("data-x")), int(empty.get_attribute("data-y"))
    empty.click()
    page.wait_for_selector("#message.error")
    sentence = page.inner_text("#message .sentence")
    assert sentence == (f"A worker tile cannot go on ({x},{y}): it needs an empty cell beside a jungle tile"
                        " (the cells shown in green).")
    assert len(re.findall(r"[.!?](\s|$)", sentence)) == 1  # one sentence
    assert [u for u in sent if "ApplyAction" in u] == []  # the page knew the cell takes no tile
    # whole, in view, at 1366×768
    message = box(board, "#message")
    assert message["y"] >= 0 and message["y"] + message["height"] <= SIZES["desktop"][1]
    assert page.evaluate("(() => { const m = document.querySelector('#message');"
                         " return m.scrollWidth <= m.clientWidth && m.scrollHeight <= m.clientHeight; })()")
    assert actions(board) == before  # nothing was played
    # the pointer over an occupied cell that takes no tile draws no tile over it
    board.cell(0, 0).hover()  # the start's plantation
    assert board.state("s.hover && s.hover.x === 0 && s.hover.y === 0")
    assert page.locator("#board g.ghost").count() == 0
    # a legal cell: the tile follows the pointer, R turns it among the legal rotations
    page.locator("#tray svg.mini.choosable[data-tile='2101']").first.click()
    page.locator(TARGET).first.hover()
    assert page.locator("#board g.ghost").count() == 1
    turns = set()
    for _ in range(4):
        turns.add(board.state("s.rotation"))
        page.keyboard.press("r")
    assert len(turns) > 1


# ---------------------------------------------------------------- the evaluation


SHOWN_WHILE_THINKING = """() => {
    // every report the page shows while the AI thinks, by its sequence number
    const head = document.querySelector('#evaluation .evalhead');
    const shown = (window.shownWhileThinking ||= {});
    if (head && !document.querySelector('#thinking').hidden)
        shown[head.dataset.sequence] = Number(head.dataset.iterations);
    return Object.keys(shown).length >= 3;
}"""


def test_analysis_updates_while_the_ai_thinks(board):
    # three seconds of thought, a report every 0.2 s: three reports come long before its end
    board.evaluate_every_move()  # the AI's view while it thinks: on request only
    board.new_game(["human", "time:3"], seed=11)
    page = board.page
    before = actions(board)
    page.locator("#tray svg.mini.choosable").first.click()
    page.locator(TARGET).first.click()
    if page.locator(CHOICE).count():
        page.locator(CHOICE).first.click()
    page.wait_for_selector("#thinking:not([hidden])", timeout=30_000)
    page.wait_for_function(SHOWN_WHILE_THINKING, timeout=30_000)  # looked at every frame
    shown = page.evaluate("window.shownWhileThinking")
    iterations = [shown[sequence] for sequence in sorted(shown, key=int)]
    assert iterations == sorted(iterations) and iterations[-1] > iterations[0]  # one growing search
    board.wait_for_human_or_end()
    assert actions(board) >= before + 2  # the human's move, then the AI's


WATCH_EVALUATIONS = """() => {
    // every frame after Undo's click: the position the evaluation on show belongs to, and the position shown
    const seen = (window.evaluationsSeen ||= []);
    if (!window.undoClicked) { requestAnimationFrame(window.watchEvaluations); return; }
    const hash = document.querySelector('#evaluation').dataset.hash;
    const bar = document.querySelectorAll('#evalbar .evalpart').length;
    seen.push([hash, window.cacao.game.hash, bar, document.querySelectorAll('#board g.heat').length]);
    if (!window.stopWatching) requestAnimationFrame(window.watchEvaluations);
}"""


def test_undo_takes_back_the_moves_and_leaves_no_stale_evaluation(board):
    board.evaluate_every_move()
    board.new_game(["human", "beginner"], seed=5)
    page = board.page
    first = actions(board)
    board.play_human_move()
    assert actions(board) > first
    # the evaluation of the position after the AI's answer is on show
    page.wait_for_function("document.querySelector('#evaluation').dataset.hash === window.cacao.game.hash")
    old = board.state("s.game.hash")
    page.evaluate(f"window.watchEvaluations = ({WATCH_EVALUATIONS}); window.watchEvaluations();"
                  " document.querySelector('#undo').addEventListener('click', () => { window.undoClicked = true; },"
                  " {capture: true})")
    page.click("#undo")
    board.wait_for_human_or_end()
    assert actions(board) == first
    # until a search of the position now shown reports, no evaluation is shown
    page.wait_for_function("document.querySelector('#evaluation').dataset.hash === window.cacao.game.hash")
    page.evaluate("window.stopWatching = true")
    seen = page.evaluate("window.evaluationsSeen")
    new = board.state("s.game.hash")
    assert new != old
    after_click = seen
    assert after_click
    assert all(shown in ("", current) for shown, current, _, _ in after_click), after_click
    assert all(shown or (bar == 0 and heat == 0) for shown, _, bar, heat in after_click)  # no bar, no heat map
    assert not any(shown == old for shown, _, _, _ in after_click)


def test_an_analysis_draws_the_candidates_as_a_heat_map(board):
    board.new_game(["human", "beginner"], seed=7)
    page = board.page
    board.analyse()
    ev = board.state("s.evaluation.ev")
    cells: dict[tuple[int, int], dict[str, float]] = {}
    for c in ev["candidates"]:
        p = c["action"]["kind"]["value"]
        cell = cells.setdefault((p.get("x", 0), p.get("y", 0)), {"visits": 0, "win": 0})
        cell["visits"] += int(c["visits"])
        cell["win"] = max(cell["win"], c["winProbability"])
    total = sum(c["visits"] for c in cells.values())

    def heat() -> dict[tuple[int, int], float]:
        return {(int(h.get_attribute("data-x")), int(h.get_attribute("data-y"))): float(h.get_attribute("data-value"))
                for h in page.locator("#board g.heat g.heat-cell").all()}

    assert page.locator("#evallegend span").count() == 2  # each seat named with its chance, however small
    assert page.get_attribute("#board g.heat", "data-by") == "visits"
    assert heat() == pytest.approx({k: c["visits"] / total for k, c in cells.items()}, abs=1e-4)
    # one number a move: a cell's label is its win chance, as in the list of candidates
    labels = {(int(h.get_attribute("data-x")), int(h.get_attribute("data-y"))):
              h.locator("text.heat-label").text_content()
              for h in page.locator("#board g.heat g.heat-cell:has(text.heat-label)").all()}
    assert labels and all(text == f"{round(cells[k]['win'] * 100)}%" for k, text in labels.items()), labels
    assert "visits" not in page.inner_text("#evaluation .candidates")
    best = ev["bestAction"]["kind"]["value"]
    mark = page.locator("#board g.best")
    marked = (int(mark.get_attribute("data-x")), int(mark.get_attribute("data-y")))
    assert marked == (best.get("x", 0), best.get("y", 0))
    assert mark.locator("text.best-star").count() == 1
    page.select_option("#heat", "win")  # by win chance instead
    assert page.get_attribute("#board g.heat", "data-by") == "win"
    assert heat() == pytest.approx({k: c["win"] for k, c in cells.items()}, abs=1e-4)
    page.select_option("#heat", "off")
    assert page.locator("#board g.heat").count() == 0
    page.select_option("#heat", "visits")
    # the score if the game ended now, on demand: each seat's gold by part, as the service counts it
    assert not page.is_visible("#scores table")
    page.click("#p-scores > summary")
    standing = board.state("s.game.standing.seats")
    for seat in standing:
        row = page.locator(f"#scores tr[data-seat='{seat.get('seat', 0)}']")
        assert row.locator("td.total").inner_text() == str(seat.get("total", 0))
        assert row.locator("td.water").inner_text() == "−10"


def test_a_saved_record_replays_with_an_evaluation_and_a_graph_to_click(board, tmp_path):
    board.new_game(["human", "beginner"], seed=9)
    for _ in range(4):
        board.play_human_move()
    page = board.page
    played = actions(board)
    final_board = board.state("s.game.position.board")
    with page.expect_download() as download:
        page.click("#save")
    path = tmp_path / "game.json"
    download.value.save_as(path)
    record = json.loads(path.read_text())
    assert record["format"] == "cacao-record/1" and len(record["actions"]) == played

    page.set_input_files("#load-file", str(path))
    # opened at its last action, where "Play on from here" continues the game
    page.wait_for_function(f"document.querySelector('#r-label').textContent.startsWith('{played} / {played}')")
    assert board.state("s.mode") == "replay"
    page.wait_for_function("Number(document.querySelector('#evaluation .evalhead')"
                           "?.dataset.iterations) > 0")
    page.click("#r-first")
    page.wait_for_function("document.querySelector('#r-label').textContent.startsWith('0 /')")
    page.click("#r-next")
    page.wait_for_function("document.querySelector('#r-label').textContent.startsWith('1 /')")
    page.click("#r-last")
    page.wait_for_function(f"document.querySelector('#r-label').textContent.startsWith('{played} /')")
    replayed = page.evaluate("document.querySelectorAll('#board g.cells g.worker').length")
    assert replayed == sum(1 for t in final_board if t["tile"]["case"] == "worker")
    # the graph: every position evaluated, as the viewer evaluates the one it shows; a click goes there
    board.wait_for_graph()
    assert board.state("s.replay.evals.size") == played + 1
    assert page.locator("#graph svg.graph g.seat-line").count() == 2
    page.locator("#graph rect.hit[data-index='3']").click()
    page.wait_for_function("document.querySelector('#r-label').textContent.startsWith('3 /')")
    line = page.locator("#graph line.current").bounding_box()
    hit = page.locator("#graph rect.hit[data-index='3']").bounding_box()
    assert line["x"] + line["width"] / 2 == pytest.approx(hit["x"] + hit["width"] / 2, abs=1)


def test_an_endgame_the_solver_proves_is_marked_exact(board, tmp_path):
    # a 2-player record at its last 3 placements, every draw pile empty: the viewer's search is the solver's
    from test_exact_marks import endgame_position

    path = tmp_path / "endgame.json"
    path.write_text(json.dumps(endgame_position(2).record()))
    page = board.page
    page.set_input_files("#load-file", str(path))
    page.wait_for_function("document.querySelector('#evaluation .evalhead')?.dataset.exact === 'true'")
    assert page.inner_text("#evaluation .evalhead").startswith("final: solved exactly by the endgame solver")
    assert page.inner_text("#evallegend .exact-badge") == "exact"
    items = page.locator("#evaluation .candidates li")
    assert items.count() > 0 and all(text.endswith("(exact)") for text in items.all_inner_texts())


def test_the_graph_at_the_end_of_a_game_jumps_into_the_replay_viewer(url):
    with open_board(url, "tablet") as board:
        page = board.page
        board.new_game(["beginner", "beginner"], seed=4, wait=False)
        page.select_option("#pace", "0")  # a quick game: no pause between the AI's moves
        board.wait_for_human_or_end()
        board.wait_for_graph()
        assert page.is_visible("#p-graph")
        # at the end: the bar shows the result (the winners share it), and the pace has nothing left to pace
        winners = board.state("s.game.record.result.winners")
        assert page.locator("#evalbar .evalpart").count() == 2
        assert page.locator("#evalbar .evalpart", has_text="wins").count() == len(winners)
        assert "empty" not in (page.get_attribute("#evalbar", "class") or "")
        assert not page.is_visible("#pace-group") and not page.is_visible("#pause")
        n = actions(board)
        target = n // 2
        board.press(page.locator(f"#graph rect.hit[data-index='{target}']"))
        page.wait_for_function(f"document.querySelector('#r-label').textContent.startsWith('{target} / {n}')")
        assert board.state("s.mode") == "replay"
        assert board.state(f"s.replay.evals.has({target})")  # the game's evaluations came along


def slide(page, index: int) -> None:
    """The replay viewer's slider moved to action `index`."""
    page.eval_on_selector("#r-slider", f"s => {{ s.value = '{index}'; s.dispatchEvent(new Event('input')); }}")


def test_a_game_is_reviewed_on_a_phone_with_its_mistakes_marked_explained_and_the_review_cancellable(url):
    with open_board(url, "phone") as board:
        page = board.page
        board.new_game(["beginner", "beginner"], seed=4, wait=False)
        page.select_option("#pace", "0")
        board.wait_for_human_or_end()
        n = actions(board)
        page.evaluate("window.cacao.reviewIterations = 30")  # a tiny budget: the test checks the page, not the AI
        board.press("#review-game")  # offered at the end of the game
        page.wait_for_function("window.cacao.review && window.cacao.review.summary", timeout=120_000)
        assert board.state("s.mode") == "replay" and page.inner_text("#r-review") == "Close review"
        assert page.inner_text("#r-label").startswith(f"0 / {n}")  # opened at the start, not at the end
        assert_finger_sized(page, TAP_TARGETS, "#r-first", "#r-slider", "#r-review", "#rv-next", "#practise")
        decisions = board.state("[...s.review.decisions.values()].map(d => ({index: d.index, seat: d.seat,"
                                " forced: d.forced, cls: d.classification, before: d.winBefore ?? null,"
                                " after: d.winAfter ?? null, why: !!d.explanation}))")
        assert sorted(d["index"] for d in decisions) == list(range(n))  # every decision of both seats
        assert all(d["forced"] or 1 <= d["cls"] <= 5 for d in decisions)  # a class each (or forced)
        judged = [d for d in decisions if not d["forced"]]
        # the graph: the mover's chance before and after each judged decision, a mark on each loss
        assert page.get_attribute("#graph", "data-review") == "true"
        assert int(page.get_attribute("#graph", "data-points")) == 2 * len(judged)
        marks = page.locator("#graph g.mark")
        assert marks.count() == sum(d["cls"] >= 3 for d in judged)
        first = judged[0]
        title = page.locator(f"#graph rect.hit[data-index='{first['index']}'] title").text_content()
        assert f"{['red', 'yellow'][first['seat']]} {round(first['before'] * 100)}%" in title
        # each seat's accuracy and counts, as the summary gives them
        for seat in (0, 1):
            row = page.locator(f"#review-seats tr[data-seat='{seat}']")
            summary = board.state(f"s.review.summary.seats.find(x => x.seat === {seat})")
            assert row.locator("td.accuracy").inner_text() == f"{round(summary['accuracy'])}%"
            counts = [int(c) for c in row.locator("td").all_inner_texts()[1:]]
            assert sum(counts) == summary["decisions"] == sum(d["seat"] == seat for d in judged)
        # "next mistake" at once: the first mistake, its verdict said above the board too, both in view
        # (on a phone the review's panel is below the board)
        words = {1: "best move", 2: "good move", 3: "inaccuracy", 4: "mistake", 5: "blunder"}
        signs = {3: "?!", 4: "?", 5: "??"}
        mistakes = sorted(d["index"] + 1 for d in judged if d["cls"] >= 3)
        assert mistakes and page.is_enabled("#rv-next")
        board.press("#rv-next")
        mistake = next(d for d in judged if d["index"] + 1 == mistakes[0])
        page.wait_for_function(f"document.querySelector('#r-label').textContent.startsWith('{mistakes[0]} /') && "
                               f"document.querySelector('#message').textContent.startsWith('Action {mistakes[0]},')")
        said = page.inner_text("#message")
        assert f"Action {mistakes[0]}, {['red', 'yellow'][mistake['seat']]}: a" in said
        assert f"{words[mistake['cls']]} ({signs[mistake['cls']]})" in said
        assert "of win chance against the best" in said and "Best: " in said
        assert in_view(page, "#message") and in_view(page, "#board")
        assert page.get_attribute("#review-move", "data-index") == str(mistakes[0] - 1)  # the panel's move too
        assert said not in (page.text_content("#log") or "")  # a verdict said, not an event of the game logged
        shown = [d for d in judged if d["why"]][:2] + judged[-1:]
        for d in shown:
            slide(page, d["index"] + 1)
            page.wait_for_function(f"document.querySelector('#review-move').dataset.index === '{d['index']}'")
            assert words[d["cls"]] in page.inner_text("#review-move .verdict")
            assert page.inner_text("#r-mark") == signs.get(d["cls"], "")
            if d["why"]:
                assert "best:" in page.inner_text("#review-move")
                assert re.fullmatch(r"[A-Z0-9].+\.", page.inner_text("#review-move .why"))
        assert page.evaluate("document.documentElement.scrollWidth") <= SIZES["phone"][0]  # nothing wider
        # closed, then again at a budget that takes long: Stop cancels it, and so does a new game
        board.press("#r-review")
        assert board.state("s.review") is None and page.get_attribute("#graph", "data-review") == "false"
        page.evaluate("window.cacao.reviewIterations = 20000")
        board.press("#r-review")
        page.wait_for_function("window.cacao.review && window.cacao.review.running")
        board.press("#r-review")
        assert board.state("s.review.running === null && s.review.stopped")
        assert page.inner_text("#r-review") == "Close review"
        assert page.inner_text("#review-progress").startswith("Review stopped after")
        board.press("#r-review")
        board.press("#r-review")
        page.wait_for_function("window.cacao.review && window.cacao.review.running")
        board.new_game(["human", "beginner"], seed=5)
        assert board.state("s.review") is None and not page.is_visible("#p-review")
        assert not page.is_visible("#message.error")


# ---------------------------------------------------------------- practice and the forecast

# tests/test_practice.py's planted blunder: decision 10 of the first record of tests/data/records.jsonl
# (seat 0), the best action and the blunder a 2,000-iteration review with seed 4 knows
PRACTICE_RECORD = json.loads((Path(__file__).parent / "data" / "records.jsonl").read_text().splitlines()[0])
BEST_10 = {"type": "place", "seat": 0, "tile": "1111", "x": 1, "y": -2, "rot": 0,
           "fills": [{"x": 0, "y": -2, "tile": "water"}, {"x": 2, "y": -2, "tile": "plantation-2"}]}
BLUNDER_10 = {"type": "place", "seat": 0, "tile": "2101", "x": 1, "y": -2, "rot": 3,
              "fills": [{"x": 0, "y": -2, "tile": "water"}, {"x": 2, "y": -2, "tile": "plantation-2"}]}
PRACTICE_SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


def planted_record() -> str:
    """The record with BLUNDER_10 in place of decision 10 and the rest as far as it stays legal."""
    from cacaoai.engine import Action, Position

    position = Position.from_record(PRACTICE_RECORD, upto=10)
    position.apply(Action.from_json(BLUNDER_10))
    return json.dumps(position.record())


@contextlib.contextmanager
def practice_board(url: str, size: str) -> Iterator[BoardPage]:
    """The page at a docs size, a review of the planted blunder alone at the review budget
    tests/test_practice.py knows, and the practice of seat 0's mistakes begun."""
    width, height = PRACTICE_SIZES[size]
    with chromium(width, height, touch=size == "phone") as page:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        board = BoardPage(page, url, touch=size == "phone")
        # the review judges decision 10 alone (a test's budget), by the search whose verdicts are known
        page.evaluate("s => { s.reviewIterations = 2000; s.reviewSeed = 4; s.reviewDecisions = [10]; }",
                      page.evaluate_handle("window.cacao"))
        page.evaluate("text => window.cacaoOpenRecord(text)", planted_record())
        page.wait_for_function("window.cacao.mode === 'replay' && window.cacao.replay.position")
        board.press("#r-review")
        page.wait_for_function("window.cacao.review && window.cacao.review.summary", timeout=60_000)
        assert board.state("s.review.decisions.get(10).classification") >= 3  # practised: worse than good
        assert page.input_value("#practice-seat") == "0"  # no human seat known: seat 0
        page.wait_for_function("!document.querySelector('#practise').disabled")
        assert page.inner_text("#practise") == "Practise 1"
        board.press("#practise")
        page.wait_for_function("window.cacao.mode === 'practice' && window.cacao.practice.position"
                               " && window.cacao.legal.length > 0")
        yield board
        assert errors == []


def try_move(board: BoardPage, action: dict) -> None:
    """A practice's try through the page: placed, its fills chosen, judged."""
    page = board.page
    board.place_tile(action)
    fill = action["fills"][0]
    choice = page.locator(CHOICE, has_text=f"{fill['tile']} to ({fill['x']},{fill['y']})")
    choice.wait_for()
    board.press(choice)
    if board.touch:
        board.press(choice)  # a finger: the first tap shows the way, the second plays it
    page.wait_for_function("window.cacao.practice.verdict && !window.cacao.practice.judging", timeout=60_000)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_practice_offers_the_planted_blunder_from_its_seat_and_accepts_the_best_move(url, size):
    with practice_board(url, size) as board:
        page = board.page
        width = PRACTICE_SIZES[size][0]
        assert page.inner_text("#practice-progress").startswith("1 of 1")
        assert page.get_attribute("#practice-body", "data-index") == "10"
        assert "Find a better move" in page.inner_text("#practice-body")
        # the position from seat 0's view only: its hand, not the other's; no evaluation to give it away
        assert page.locator("#seats .seat[data-seat='0'] .hand svg").count() > 0
        assert page.locator("#seats .seat[data-seat='1'] .hand svg").count() == 0
        assert "tiles in hand" in page.inner_text("#seats .seat[data-seat='1'] .hand")
        assert board.state("s.evaluation") is None and page.locator("#board g.heat").count() == 0
        assert not page.is_visible("#replay-bar")
        assert_finger_sized(page, "#practice-next", "#practice-leave")
        if size == "phone":  # every tap target of the try, the tray's tiles and the toolbar's buttons too
            assert_finger_sized(page, TAP_TARGETS, "#tray svg.choosable", "#rotate", "#zoom-in")
        # the blunder again: a miss, its class and what it loses; one more try
        try_move(board, BLUNDER_10)
        assert board.state("s.practice.step") == "trying" and board.state("s.practice.misses") == 1
        verdict = page.inner_text("#practice-body .verdict")
        assert re.search(r"(mistake|blunder): it loses \d+% of win chance", verdict) and "Try once more" in verdict
        assert page.inner_text("#message") == verdict  # above the board too (on a phone the panel is below it)
        assert page.is_disabled("#analyse")  # no search to give the answer away
        if size == "phone":  # a second miss: the best action ringed on the board, and why in a sentence
            try_move(board, BLUNDER_10)
            assert board.state("s.practice.step") == "shown"
            assert_finger_sized(page, TAP_TARGETS)
            best = page.locator("#board g.practice-best g.best")
            assert (best.get_attribute("data-x"), best.get_attribute("data-y")) == ("1", "-2")
            assert "best:" in page.inner_text("#practice-body")
            assert re.fullmatch(r"[A-Z0-9].+\.", page.inner_text("#practice-body .why"))
            assert page.inner_text("#practice-next") == "Finish"
            assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing wider
            board.press("#practice-leave")
            page.wait_for_function("window.cacao.mode === 'replay' && window.cacao.practice === null")
            page.wait_for_function("document.querySelector('#r-label').textContent.startsWith('11 /')")
            assert page.is_visible("#p-review") and page.is_visible("#practise")
            assert_finger_sized(page, "#practise", "#practice-seat")
            return
        # the best: solved, and the practice ends with its count
        try_move(board, BEST_10)
        assert board.state("s.practice.step") == "solved" and board.state("s.practice.solved") == 1
        assert page.inner_text("#practice-body .verdict").startswith("Solved")
        assert page.inner_text("#practice-progress") == "1 of 1 · 1 solved"
        assert page.inner_text("#practice-next") == "Finish"
        board.press("#practice-next")
        page.wait_for_function("window.cacao.mode === 'replay' && window.cacao.practice === null")
        assert "1 of 1 solved" in page.inner_text("#message")


def test_the_forecast_overlay_draws_each_temples_chances_and_the_seats_score_parts_when_asked(url):
    with chromium(*PRACTICE_SIZES["desktop"]) as page:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        board = BoardPage(page, url)
        page.evaluate("text => window.cacaoOpenRecord(text)", json.dumps(PRACTICE_RECORD))
        page.wait_for_function("window.cacao.mode === 'replay' && window.cacao.replay.position")
        slide(page, 24)
        page.wait_for_function("window.cacao.replay.index === 24 && window.cacao.evaluation"
                               " && window.cacao.evaluation.hash === window.cacao.replay.hash")
        temples = board.state("s.replay.standing.temples.map(t => [t.x, t.y])")
        assert temples  # temples on the board by then
        assert page.locator("#board g.forecast").count() == 0 and not page.is_visible("#forecast-parts")
        assert board.state("s.evaluation.ev.forecast") is None  # not asked for: none sent
        toggle = page.locator("label.toggle:has(#forecast)")
        assert toggle.bounding_box()["height"] >= 44
        board.press("#forecast")
        page.wait_for_function("document.querySelectorAll('#board g.forecast g.forecast-temple').length > 0",
                               timeout=60_000)
        assert board.state("s.evaluation.ev.forecast.playouts") == 128
        drawn = page.locator("#board g.forecast g.forecast-temple")
        cells = sorted((int(drawn.nth(i).get_attribute("data-x")), int(drawn.nth(i).get_attribute("data-y")))
                       for i in range(drawn.count()))
        assert cells == sorted(map(tuple, temples))  # one on each temple cell
        for i in range(drawn.count()):
            first = [float(f) for f in drawn.nth(i).get_attribute("data-first").split()]
            assert len(first) == 2 and sum(first) == pytest.approx(1, abs=0.01)
            lead = drawn.nth(i).locator("text.forecast-lead")
            # the page rounds the full chance; data-first holds it to 3 decimals (±0.05 points)
            shown = lead.text_content()
            assert shown.endswith("%") and abs(int(shown[:-1]) - max(first) * 100) <= 0.5 + 0.05 + 1e-9, shown
            assert lead.get_attribute("data-seat") == str(first.index(max(first)))
        # beside the win bar: each seat's expected score by part, mean ± spread
        assert page.is_visible("#forecast-parts")
        rows = page.locator("#forecast-parts tbody tr")
        assert rows.count() == 2
        assert re.fullmatch(r"-?\d+\.\d±\d+\.\d", rows.nth(0).locator("td.total").inner_text())
        board.press("#forecast")  # off again: the overlay goes
        page.wait_for_function("document.querySelectorAll('#board g.forecast').length === 0")
        assert not page.is_visible("#forecast-parts")
        assert errors == []


def test_a_broken_record_is_refused_with_the_services_reason(board, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "cacao-record/1", "players": 2, "first_player": 0,
                                "worker_piles": [[], []], "jungle_deck": [], "actions": []}))
    board.page.set_input_files("#load-file", str(path))
    board.page.wait_for_selector("#message.error")
    assert "not valid" in board.page.inner_text("#message .sentence")
    assert board.state("s.mode") != "replay"


# ---------------------------------------------------------------- AI-only games


def test_an_ai_only_game_moves_at_a_watchable_pace_with_pause_and_step(board):
    page = board.page
    board.new_game(["club", "club"], seed=2, wait=False)
    page.wait_for_selector("#pace-group:not([hidden])")
    page.select_option("#pace", "500")
    page.wait_for_function("window.cacao.game.record.actions.length >= 2")
    board.press("#pause")
    page.wait_for_function("window.cacao.held")  # the next move waits
    held = actions(board)
    assert page.inner_text("#pause") == "Resume" and "paused" in page.inner_text("#status")
    board.press("#step")  # one action, then it waits again
    page.wait_for_function(f"window.cacao.game.record.actions.length > {held} && window.cacao.held")
    assert actions(board) == held + 1
    board.press("#pause")  # resume
    page.wait_for_function(f"window.cacao.game.record.actions.length >= {held + 4}")
    board.press("#pause")
    page.wait_for_function("window.cacao.held")
    times = board.state("s.moveTimes")
    resumed = [t["at"] for t in times[held + 1:]]  # the moves after the resume, at 0.5 s apart at least
    assert len(resumed) >= 3
    assert all(b - a >= 500 for a, b in itertools.pairwise(resumed)), resumed
    assert page.is_visible("#p-graph")  # the game's graph grows as it goes
    # an analysis is told who plays: the win chances are those of club players (the service has
    # their map for two players), and say so
    board.analyse()
    assert page.inner_text("#evaluation p.population") == "win chances if every seat plays as club"


# ---------------------------------------------------------------- colours


MACHADO = {  # colour-vision deficiencies at full severity (Machado, Oliveira and Fernandes, 2009), linear RGB
    "normal": None,
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def lab(colour: str, vision: str) -> tuple[float, float, float]:
    """CIELAB (D65) of "#rrggbb" as seen with ``vision``."""
    srgb = [int(colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    rgb = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in srgb]
    if MACHADO[vision]:
        rgb = [min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb, strict=True)))) for row in MACHADO[vision]]
    x = (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.95047
    y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    z = (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.08883
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def delta_e(one: tuple[float, float, float], two: tuple[float, float, float]) -> float:
    """CIEDE2000 colour difference (Sharma, Wu and Dalal's formulation)."""
    (l1, a1, b1), (l2, a2, b2) = one, two
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = math.degrees(math.atan2(b1, a1)) % 360, math.degrees(math.atan2(b2, a2)) % 360
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    d_hue = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    h_mean = h1 + h2 if c1 * c2 == 0 else (h1 + h2) / 2 if abs(h1 - h2) <= 180 else (h1 + h2 + 360) / 2 % 360
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6)) - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    rotation = -math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2)))) \
        * 2 * math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    sc, sh = 1 + 0.045 * c_mean, 1 + 0.015 * c_mean * t
    return math.sqrt(((l2 - l1) / sl) ** 2 + ((c2 - c1) / sc) ** 2 + (d_hue / sh) ** 2
                     + rotation * ((c2 - c1) / sc) * (d_hue / sh))


def contrast(one: str, two: str) -> float:
    """WCAG 2 contrast ratio of two "#rrggbb" (or "#rgb") colours."""
    def luminance(colour: str) -> float:
        hex6 = "".join(c * 2 for c in colour[1:]) if len(colour) == 4 else colour[1:]
        srgb = [int(hex6[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in srgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    high, low = sorted((luminance(one), luminance(two)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_delta_e_of_known_pairs():
    # Sharma, Wu and Dalal's test data: pairs 1, 7 and 17
    assert delta_e((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert delta_e((50, 0, 0), (50, -1, 2)) == pytest.approx(2.3669, abs=1e-4)
    assert delta_e((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-4)


def test_seat_colours_stay_distinct_for_colour_blind_players_and_from_water(board):
    board.new_game(["human"] * 4, seed=1)
    page = board.page
    palette = board.state("s.palette")
    # the tiles drawn for each seat: its colour, its tint, and a shape of its own for its workers
    shapes = set()
    for seat in range(4):
        mini = page.locator(f"#seats .seat[data-seat='{seat}'] svg.mini").first
        rects = mini.locator("g.worker > rect")
        assert rects.nth(0).get_attribute("fill") == palette["seats"][seat]
        assert rects.nth(1).get_attribute("fill") == palette["light"][seat]
        marks = {m.get_attribute("data-shape") for m in mini.locator(".meeple").all()}
        assert len(marks) == 1
        shapes |= marks
    assert len(shapes) == 4
    assert page.evaluate("getComputedStyle(document.querySelector('.tok.water')).backgroundColor") == \
        "rgb({}, {}, {})".format(*(int(palette["water"][i:i + 2], 16) for i in (1, 3, 5)))
    for vision in MACHADO:
        seen = [lab(c, vision) for c in palette["seats"]]
        tints = [lab(c, vision) for c in palette["light"]]
        water = lab(palette["water"], vision)
        for a, b in itertools.combinations(range(4), 2):
            assert delta_e(seen[a], seen[b]) >= 12, (vision, a, b)
        for s in range(4):
            assert delta_e(seen[s], water) >= 12, (vision, s)
            assert delta_e(tints[s], water) >= 12, (vision, s)
    # the seats' names readable on the panels, the chances readable on the bar (WCAG AA: 4.5)
    for seat in range(4):
        assert contrast(palette["ink"][seat], "#fffaf0") >= 4.5
        assert contrast(palette["on"][seat], palette["seats"][seat]) >= 4.5


# ---------------------------------------------------------------- tokens


def test_a_server_that_needs_tokens_is_played_with_a_token_from_the_address_or_the_dialog(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("page-token-1\n")
    with cacao_server(*TEST_SERVER_FLAGS, "--auth-tokens", str(tokens), "--max-searches", "2") as url, \
            chromium(*SIZES["desktop"]) as page:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)  # no token: the page says how to give one
        page.wait_for_selector("#message.error")
        assert "needs a token" in page.inner_text("#message .sentence")
        assert page.evaluate("window.cacao.levels.length") == 0
        # typed into the dialog: the levels come, then a game against the AI
        page.fill("#token", "page-token-1")
        page.click("#start")
        page.wait_for_function("window.cacao.levels.length > 0")
        board = BoardPage(page, url)  # a fresh load: the tab still has the token
        board.new_game(["human", "beginner"], seed=7)  # the AI moves first with this seed
        assert page.locator("#board g.cells g.worker").count() == 1  # the AI has placed
        # given in the address: used, then dropped from it
        page.evaluate("sessionStorage.clear()")
        page.goto("about:blank")  # so that the next address loads the page again
        board = BoardPage(page, url + "#token=page-token-1")
        assert board.state("s.levels.length") > 0
        assert page.evaluate("location.hash") == ""
        assert errors == []


# ---------------------------------------------------------------- puzzles

# tests/data/puzzles.jsonl, as the server of `url` serves it
PUZZLE_SET = {p["id"]: p for p in map(json.loads, PUZZLES.read_text().splitlines())}


def open_puzzles(board: BoardPage) -> None:
    board.press("#puzzles")
    board.page.wait_for_function(PUZZLE_READY)


def choose_filter(board: BoardPage, select: str, value: str, puzzle: str | None = None) -> None:
    """A filter chosen; waits for the puzzle it draws (`puzzle`: that one)."""
    page = board.page
    page.select_option(select, value)
    page.wait_for_function(PUZZLE_READY + (f" && window.cacao.puzzles.puzzle.id === '{puzzle}'" if puzzle else ""))


def placement_try(board: BoardPage, action: dict) -> None:
    """A try at a puzzle through the page (a placement without fills), and its verdict."""
    tried = board.state("s.puzzles.misses") + (1 if board.state("s.puzzles.verdict") else 0)
    board.place_tile(action)
    board.page.wait_for_function(f"{PUZZLE_JUDGED} && (window.cacao.puzzles.misses + 1 > {tried}"
                                 " || window.cacao.puzzles.step !== 'trying')")


def wrong_placement(puzzle: dict) -> dict:
    """A legal placement without fills that is not the puzzle's solution."""
    legal = Position.from_observation(puzzle["view"], 0).legal_actions()
    return next(a.to_json() for a in legal
                if a.type == "place" and not a.fills and a.to_json() != puzzle["solutions"][0])


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_puzzle_from_its_seats_view_a_wrong_try_then_the_right_one_and_the_streak(url, size):
    width, height = PRACTICE_SIZES[size]
    with chromium(width, height, touch=size == "phone") as page:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        board = BoardPage(page, url, touch=size == "phone")
        open_puzzles(board)
        assert page.is_visible("#p-puzzles") and not page.is_visible("#setup")
        assert page.get_attribute("#puzzles", "aria-pressed") == "true"
        themes = page.locator("#puzzle-theme option").all_inner_texts()
        assert themes[0] == "every theme" and "temple majority (2)" in themes and "exact endgame (1)" in themes
        choose_filter(board, "#puzzle-theme", "water", "2p-test-0002")  # the set's one water puzzle
        puzzle = PUZZLE_SET["2p-test-0002"]
        seat = puzzle["seat"]
        assert page.get_attribute("#puzzle-body", "data-id") == "2p-test-0002"
        assert "rated 1200 · water, market timing · 1 puzzle fits" in page.inner_text("#puzzle-body")
        # the seat's view only: its own hand, not the other's; no AI's view to give it away
        assert page.locator(f"#seats .seat[data-seat='{seat}'] .hand svg").count() == 3
        assert "tiles in hand" in page.inner_text(f"#seats .seat[data-seat='{1 - seat}'] .hand")
        assert board.state("s.evaluation") is None and page.is_disabled("#analyse")
        assert page.inner_text("#puzzle-next") == "Show the solution"
        assert_finger_sized(page, "#puzzle-theme", "#puzzle-min", "#puzzle-max", "#puzzle-next", "#puzzle-leave",
                            "#rotate", "#zoom-in", "#tray svg.choosable", *([TAP_TARGETS] if size == "phone" else []))
        # a wrong try: one more
        placement_try(board, wrong_placement(puzzle))
        assert board.state("s.puzzles.step") == "trying" and board.state("s.puzzles.misses") == 1
        assert page.inner_text("#puzzle-body .verdict") == "Not this one. Try once more."
        assert page.inner_text("#message") == "Not this one. Try once more."  # above the board too
        assert page.inner_text("#puzzle-rating") == "1200"  # the rating waits for the end of the puzzle
        # the right one: solved, at the second try (no streak), the rating moved as Elo says
        placement_try(board, puzzle["solutions"][0])
        assert board.state("s.puzzles.step") == "solved"
        assert page.inner_text("#puzzle-body .verdict") == "Correct, at the second try."
        why = page.inner_text("#puzzle-body .why")
        assert why.startswith(puzzle["sentence"][0].upper() + puzzle["sentence"][1:])
        assert page.inner_text("#puzzle-body .change") == "rating 1200 → 1184 (−16)"
        assert (page.inner_text("#puzzle-rating"), page.inner_text("#puzzle-streak")) == ("1184", "0")
        solution = page.locator("#board g.practice-best g.best")  # the solution on the board
        assert (solution.get_attribute("data-x"), solution.get_attribute("data-y")) == \
               (str(puzzle["solutions"][0]["x"]), str(puzzle["solutions"][0]["y"]))
        # the next: every water puzzle seen, so it comes again; solved at the first try, the streak grows
        assert page.inner_text("#puzzle-next") == "Next puzzle"
        board.press("#puzzle-next")
        page.wait_for_function(PUZZLE_READY + " && window.cacao.puzzles.verdict === null")
        assert page.inner_text("#message").startswith("You have seen every puzzle that fits: they come again.")
        placement_try(board, puzzle["solutions"][0])
        assert page.inner_text("#puzzle-body .verdict") == "Correct!"
        rating = str(new_rating(1184, 1200, solved=True))  # 1201: as the Python client's rating moves
        assert (page.inner_text("#puzzle-rating"), page.inner_text("#puzzle-streak")) == (rating, "1")
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing wider
        # kept in this browser: the page opened again has the rating, the streak and the filter
        page.reload()
        page.wait_for_function("window.cacao && document.querySelector('#seat-0 option')")
        open_puzzles(board)
        assert (page.inner_text("#puzzle-rating"), page.inner_text("#puzzle-streak")) == (rating, "1")
        assert page.input_value("#puzzle-theme") == "water"
        assert errors == []


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_result_to_choose_is_a_puzzle_too(url, size):
    """Most puzzles are which result of a harvest to take: the choices, as in play, each a try."""
    width, height = PRACTICE_SIZES[size]
    with chromium(width, height, touch=size == "phone") as page:
        board = BoardPage(page, url, touch=size == "phone")
        open_puzzles(board)
        choose_filter(board, "#puzzle-theme", "market timing")
        choose_filter(board, "#puzzle-max", "1000", "3p-test-0005")  # the set's result to choose
        choices = page.locator(CHOICE)
        assert choices.all_inner_texts()[:2] == ["take 12 gold, keep 1 cacao", "take 9 gold, keep 2 cacao"]
        assert_finger_sized(page, CHOICE)
        board.press(choices.nth(0))
        page.wait_for_function(PUZZLE_JUDGED)
        assert page.inner_text("#puzzle-body .verdict") == "Not this one. Try once more."
        board.press(page.locator(CHOICE).nth(1))
        page.wait_for_function(PUZZLE_JUDGED + " && window.cacao.puzzles.step === 'solved'")
        assert page.inner_text("#puzzle-body .verdict") == "Correct, at the second try."
        assert page.locator(CHOICE).count() == 0  # nothing more to choose
        assert page.inner_text("#puzzle-body .why").startswith("Taking 9 gold and keeping 2 cacao")


def test_giving_up_shows_the_solution_and_why_filters_that_fit_nothing_say_so_and_leave_returns(url):
    with chromium(*PRACTICE_SIZES["desktop"]) as page:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        board = BoardPage(page, url)
        open_puzzles(board)
        choose_filter(board, "#puzzle-min", "1800", "4p-test-0004")  # rated 2000: the only one above 1800
        puzzle = PUZZLE_SET["4p-test-0004"]
        board.press("#puzzle-next")  # "Show the solution": given up, a miss
        page.wait_for_function(PUZZLE_JUDGED)
        assert board.state("s.puzzles.step") == "shown"
        assert page.inner_text("#puzzle-body .verdict") == "The solution is shown on the board."
        assert "solution:" in page.inner_text("#puzzle-body .solution")
        assert page.inner_text("#puzzle-body .why").endswith("(Proved by the endgame solver.)")  # an exact puzzle
        best = page.locator("#board g.practice-best g.best")
        assert best.get_attribute("data-x") == str(puzzle["solutions"][0]["x"])
        assert page.inner_text("#puzzle-body .change") == "rating 1200 → 1200 (±0)"  # a 2000 puzzle costs little
        assert page.locator("#board g.cell:has(> rect.target)").count() == 0  # no other try
        # a range with nothing in it: said, and the board empty
        page.select_option("#puzzle-theme", "overbuilding with sun")
        page.wait_for_function("!window.cacao.puzzles.drawing && !window.cacao.puzzles.puzzle")
        assert "No puzzle fits" in page.inner_text("#puzzle-body")
        assert page.inner_text("#message").startswith("No puzzle fits overbuilding with sun, rated 1800 or more")
        # leaving: back to the New game dialog (no game was being played)
        board.press("#puzzle-leave")
        page.wait_for_function("window.cacao.mode === 'setup' && window.cacao.puzzles === null")
        assert page.is_visible("#setup") and not page.is_visible("#p-puzzles")
        assert errors == []
