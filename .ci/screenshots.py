"""Screenshots of the board page: at the start, mid-game, at the end, in the replay
viewer, on a phone, the AI's candidates as a heat map, the game's graph, the
game's review (on a desktop and on a phone), the practice of its mistakes (on a desktop
and on a phone), the forecast overlay, and the Puzzles view (on a desktop and on a phone,
a puzzle of the shipped set with its solution shown).

Starts ``cacao-server`` (gRPC and HTTP on free loopback ports), opens the page
in headless Chromium (Debian's ``/usr/bin/chromium`` through Playwright; no
browser is downloaded) and plays games through the page as a person would: a
human seat chooses its tiles and cells (with the mouse, or by taps on a phone),
the AI seats answer. The test suite drives the page with the same
:class:`BoardPage`.

    python .ci/screenshots.py                 # writes docs/img/board-*.png
    python .ci/screenshots.py --out /tmp/shots --players 3
    python .ci/screenshots.py --only practice forecast   # those (practice: desktop and phone), on a stored game
    python .ci/screenshots.py --only puzzles             # the Puzzles view, desktop and phone
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cacaoai.client.local import LocalServer
from cacaoai.engine import Position
from cacaoai.search import puzzles as puzzles_module

CHROMIUM = os.environ.get("CACAO_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-quic", "--no-first-run", "--disable-component-update",
                  "--disable-sync"]
ROOT = Path(__file__).resolve().parent.parent
TARGET = "#board g.cell:has(> rect.target)"  # a cell the chosen tile may go to
CHOICE = "#choices button.choice"  # a result to choose, or a way of filling the closed cells
SIZES = {"phone": (375, 812), "tablet": (768, 1024), "desktop": (1366, 768)}
DESKTOP = (1280, 900)  # the docs' screenshots

# True when a human seat may act (its legal actions are there) or the game is over
READY = ("(() => { const s = window.cacao; if (!s.game) return false; if (s.over) return true;"
         " return !s.busy && !s.thinking && s.legal.length > 0; })()")


@contextlib.contextmanager
def cacao_server(*flags: str) -> Iterator[str]:
    """A cacao-server process with its HTTP side on a free port; yields the page's URL."""
    with LocalServer(*flags, http=True, timeout=30) as server:
        assert server.http_url is not None
        yield server.http_url


@contextlib.contextmanager
def chromium(width: int = 1400, height: int = 900, touch: bool = False) -> Iterator[Any]:
    """A Playwright page in a fresh headless Chromium profile; with ``touch``, a phone's
    or a tablet's: a touch screen, and the page laid out by its viewport tag."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="cacao-chromium-") as profile, \
            sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": width, "height": height}, accept_downloads=True,
            has_touch=touch, is_mobile=touch)
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


class BoardPage:
    """The board page driven through its buttons, tiles and cells: clicked with the
    mouse, or with ``touch`` tapped (a first tap on a cell chooses it, a second places)."""

    def __init__(self, page: Any, url: str, touch: bool = False):
        self.page, self.url, self.touch = page, url, touch
        page.goto(url)
        page.wait_for_function("window.cacao && document.querySelector('#seat-0 option')")

    def state(self, expression: str) -> Any:
        return self.page.evaluate(f"(() => {{ const s = window.cacao; return {expression}; }})()")

    def press(self, target: Any) -> None:
        """A tap on a touch screen, else a click (a selector or a locator)."""
        locator = self.page.locator(target) if isinstance(target, str) else target
        if self.touch:
            locator.tap()
        else:
            locator.click()

    def new_game(self, seats: list[str], seed: int, wait: bool = True) -> None:
        """Starts a game: seats[i] is "human" or an AI level such as "casual"."""
        page = self.page
        if not page.is_visible("#setup"):
            self.press("#new")
        page.select_option("#players", str(len(seats)))
        for i, kind in enumerate(seats):
            page.select_option(f"#seat-{i}", kind)
        page.fill("#seed", str(seed))
        self.press("#start")
        if wait:
            self.wait_for_human_or_end()

    def over(self) -> bool:
        return self.state("s.over")

    def actions(self) -> int:
        return self.state("s.game ? s.game.record.actions.length : 0")

    def wait_for_human_or_end(self, timeout_s: float = 120) -> None:
        """Waits until a human seat may act (its legal actions are there) or the game is over."""
        self.page.wait_for_function(READY, timeout=timeout_s * 1000)

    def cell(self, x: int, y: int) -> Any:
        return self.page.locator(f"#board g.cells > g.cell[data-x='{x}'][data-y='{y}']")

    def first_target(self) -> tuple[int, int]:
        """The first cell the chosen tile may go to."""
        first = self.page.locator(TARGET).first
        return int(first.get_attribute("data-x")), int(first.get_attribute("data-y"))

    def place_on(self, x: int, y: int) -> None:
        """The chosen tile to (x, y): a click, or a tap that chooses the cell and one that places."""
        if self.touch:
            self.cell(x, y).tap()
            self.page.wait_for_function("([x, y]) => { const c = window.cacao.selected;"
                                        " return c && c.x === x && c.y === y; }", arg=[x, y])
        self.press(self.cell(x, y))

    def play_human_move(self, hint: bool = False) -> None:
        """One decision through the page: a result to choose, or a tile to a green cell
        (with ``hint``: the evaluation's best candidate, when it offers one)."""
        page = self.page
        best = page.locator("#evaluation .candidates button").first
        if hint:
            with contextlib.suppress(Exception):
                best.wait_for(timeout=3000)
        if hint and best.count():
            self.press(best)
        elif page.locator(CHOICE).count():
            self.play_choice(page.locator(CHOICE).first)
        else:
            self.press(page.locator("#tray svg.mini.choosable").first)
            played = self.actions()
            self.place_on(*self.first_target())
            # the move either asks which display tile goes where or is sent
            page.wait_for_function(
                "n => document.querySelector('#choices button.choice') || window.cacao.busy"
                " || window.cacao.game.record.actions.length !== n", arg=played)
            if page.locator(CHOICE).count():  # which display tile goes where: the one drawn
                self.play_choice(page.locator(f"{CHOICE}.previewed"))
        self.wait_for_human_or_end()

    def place_tile(self, action: dict) -> None:
        """A placement (the record's JSON form) through the page, as in play: the tile from
        the tray, turned on its cell, placed (its fills, if any, are asked for after)."""
        page = self.page
        self.press(page.locator(f"#tray svg.choosable[data-tile='{action['tile']}']").first)
        x, y = action["x"], action["y"]
        cell = self.cell(x, y)
        if self.touch:
            cell.tap()  # a first tap chooses the cell; R turns the tile there
            page.wait_for_function("([x, y]) => { const c = window.cacao.selected;"
                                   " return c && c.x === x && c.y === y; }", arg=[x, y])
        else:
            cell.hover()
        for _ in range(4):
            if self.state(f"s.rotation === {action['rot']}"):
                break
            page.keyboard.press("r")
        assert self.state(f"s.rotation === {action['rot']}")
        self.press(cell)  # a click places; a second tap places

    def play_choice(self, button: Any) -> None:
        """A choice played: a click, or on a touch screen a way of filling tapped twice (the
        first tap shows it on the board, the second plays it) and a result tapped once."""
        fill = "Which display tile" in (self.page.text_content("#choices h3") or "")
        self.press(button)
        if self.touch and fill:
            self.page.wait_for_selector(f"{CHOICE}.tapped")
            self.press(self.page.locator(f"{CHOICE}.tapped"))

    def evaluate_every_move(self) -> None:
        """Ticks "evaluate every move" (off by default: the AI's view stays hidden while a human plays)."""
        self.page.check("#auto-eval")

    def play_to_end(self, max_moves: int = 200, hint: bool = False, on_move: Any = None) -> int:
        """Plays the human seats until the game is over; the number of decisions."""
        moves = 0
        while not self.over() and moves < max_moves:
            self.play_human_move(hint)
            moves += 1
            if on_move:
                on_move(moves)
        return moves

    def view_box(self) -> list[float]:
        """The board's visible box: x, y, width, height in board units (64 a cell)."""
        return [float(v) for v in self.page.get_attribute("#board", "viewBox").split()]

    def analyse(self) -> None:
        """Analyse, and wait for its final report."""
        self.press("#analyse")
        self.page.wait_for_function("window.cacao.analysis === null && window.cacao.evaluation"
                                    " && window.cacao.evaluation.ev.final", timeout=30_000)

    def wait_for_graph(self) -> None:
        """Until the game's graph has every position's evaluation."""
        self.page.wait_for_function(
            "(() => { const g = document.querySelector('#graph'); return g && g.dataset.filling === 'false'"
            " && window.cacao.filling === null && g.querySelector('svg.graph'); })()", timeout=60_000)


def union(page: Any, *selectors: str, pad: int = 6) -> dict[str, float]:
    """The box around the elements in the page's coordinates (a full-page screenshot's clip)."""
    return page.evaluate("""([selectors, pad]) => {
        const boxes = selectors.map((s) => document.querySelector(s).getBoundingClientRect());
        const x0 = Math.max(0, Math.min(...boxes.map((b) => b.left)) - pad + scrollX);
        const y0 = Math.max(0, Math.min(...boxes.map((b) => b.top)) - pad + scrollY);
        const x1 = Math.max(...boxes.map((b) => b.right)) + pad + scrollX;
        const y1 = Math.max(...boxes.map((b) => b.bottom)) + pad + scrollY;
        return {x: x0, y: y0, width: x1 - x0, height: y1 - y0}; }""", [list(selectors), pad])


NAMES = ("board-start.png", "board-mid.png", "board-end.png", "board-replay.png",
         "board-phone.png", "board-heatmap.png", "board-graph.png", "board-review.png", "board-review-phone.png",
         "board-practice.png", "board-practice-phone.png", "board-forecast.png", "board-puzzles.png",
         "board-puzzles-phone.png")
# the views --only takes: the practice and the forecast shot on tests/data/records.jsonl's first
# game, the puzzles on the shipped set's
ONLY = {"practice": ("board-practice.png", "board-practice-phone.png"), "forecast": ("board-forecast.png",),
        "puzzles": ("board-puzzles.png", "board-puzzles-phone.png")}
#: The Puzzles view's shots: a placement puzzle of this theme, drawn with this seed.
PUZZLE_THEME, PUZZLE_SEED = "temple majority", 18


def review(board: BoardPage) -> None:
    """Reviews the record in the replay viewer (the service's default budget) and steps to
    its first mistake or blunder (else its first inaccuracy, else its last move)."""
    page = board.page
    board.press("#r-review")
    page.wait_for_function("window.cacao.review && window.cacao.review.summary", timeout=600_000)
    index = board.state("(() => { const d = [...s.review.decisions.values()].sort((a, b) => a.index - b.index);"
                        " const at = (c) => d.find(x => x.classification >= c);"
                        " return (at(4) ?? at(3) ?? d[d.length - 1]).index + 1; })()")
    page.eval_on_selector("#r-slider", f"s => {{ s.value = '{index}'; s.dispatchEvent(new Event('input')); }}")
    page.wait_for_function(f"document.querySelector('#review-move').dataset.index === '{index - 1}'")
    page.mouse.move(0, 0)


PRACTICE_READY = ("window.cacao.mode === 'practice' && window.cacao.practice.position"
                  " && window.cacao.legal.length > 0 && !window.cacao.practice.judging")


def practice(board: BoardPage, path: Path, phone: bool = False) -> None:
    """After a review: the practice of seat 0's mistakes, at its first placement to
    practise, where the move of the game is tried twice (two misses): the best action
    ringed on the board and explained; then left again. On a phone (tapped), the board
    and the practice's panel under it."""
    page = board.page
    page.wait_for_function("!document.querySelector('#practise').disabled")
    board.press("#practise")
    page.wait_for_function(PRACTICE_READY)
    # skipped to a placement some way into the game (a result chosen, or an early board, is a plainer picture)
    later = board.state("s.practice.list.findIndex(e => e.taken.kind.case === 'place' && e.index >= 8)")
    while board.state(f"s.practice.at < {later}"):
        board.press("#practice-next")
        page.wait_for_function(PRACTICE_READY)
    for _ in range(2):
        page.wait_for_function(PRACTICE_READY)
        if board.state("s.practice.step") != "trying":
            break
        task = re.search(r"played (\S+) at \((-?\d+),(-?\d+)\)", page.inner_text("#practice-body .task"))
        if not task:  # a result to choose: shown untried
            break
        name, x, y = task.groups()  # the tile turned and placed as in the game
        board.place_tile({"tile": name, "x": int(x), "y": int(y),
                          "rot": board.state("s.practice.list[s.practice.at].taken.kind.value.rotation")})
        page.wait_for_function("document.querySelector('#choices button.choice') || window.cacao.practice.judging"
                               " || window.cacao.practice.verdict")
        if page.locator(CHOICE).count():  # the game's way of filling the closed cells
            index = board.state("(() => {"
                                " const key = (a) => JSON.stringify(a.kind.value.fills.map(f => [f.tile, f.x, f.y]));"
                                " const taken = key(s.practice.list[s.practice.at].taken);"
                                " return s.choices.findIndex(a => key(a) === taken); })()")
            board.play_choice(page.locator(CHOICE).nth(max(index, 0)))
        page.wait_for_function("window.cacao.practice.verdict && !window.cacao.practice.judging", timeout=120_000)
    shoot(board, path, "#p-practice" if phone else None)
    board.press("#practice-leave")
    page.wait_for_function("window.cacao.mode === 'replay'")


PUZZLE_READY = ("window.cacao.mode === 'puzzles' && window.cacao.puzzles.puzzle && !window.cacao.puzzles.drawing"
                " && window.cacao.legal.length > 0")
PUZZLE_JUDGED = "window.cacao.puzzles.verdict && !window.cacao.puzzles.judging"


def puzzles(board: BoardPage, path: Path, phone: bool = False) -> None:
    """The Puzzles view on the shipped set's puzzle that PUZZLE_SEED draws for PUZZLE_THEME (a
    placement): on a desktop a wrong try, then the right one; on a phone the right one at the
    first try, the board and the panel under it. The solution is ringed and explained."""
    page = board.page
    page.evaluate(f"window.cacao.puzzleSeed = {PUZZLE_SEED}")
    board.press("#puzzles")
    page.wait_for_function(PUZZLE_READY)
    page.select_option("#puzzle-theme", PUZZLE_THEME)
    page.wait_for_function(PUZZLE_READY + f" && window.cacao.puzzles.filters.theme === '{PUZZLE_THEME}'")
    puzzle = puzzles_module.by_id(puzzles_module.load(), board.state("s.puzzles.puzzle.id"))
    assert puzzle is not None and puzzle.solutions[0].type == "place", "the seed draws no placement: change it"
    if not phone:
        wrong = next(a for a in Position.from_observation(dict(puzzle.view), 0).legal_actions()
                     if a.type == "place" and not a.fills and a not in puzzle.solutions)
        board.place_tile(wrong.to_json())
        page.wait_for_function(PUZZLE_JUDGED)
    board.place_tile(puzzle.solutions[0].to_json())
    page.wait_for_function(PUZZLE_JUDGED + " && window.cacao.puzzles.step === 'solved'")
    shoot(board, path, "#p-puzzles" if phone else None)


def shoot(board: BoardPage, path: Path, panel: str | None = None) -> None:
    """The window, no pointer or focus ring on the board; with `panel` (on a
    phone), the board and that panel under it, the whole page's height."""
    page = board.page
    page.mouse.move(0, 0)
    page.evaluate("document.activeElement?.blur()")
    if panel:
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(path), clip=union(page, "#left", panel, pad=0), full_page=True)
    else:
        page.screenshot(path=str(path))


def forecast(board: BoardPage, path: Path, index: int) -> None:
    """The replay viewer at action `index` with the forecast overlay on: each temple's
    chances of first place on the board, each seat's expected score parts by the win bar."""
    page = board.page
    page.eval_on_selector("#r-slider", f"s => {{ s.value = '{index}'; s.dispatchEvent(new Event('input')); }}")
    page.wait_for_function(f"window.cacao.replay.index === {index} && window.cacao.evaluation", timeout=60_000)
    board.press("#forecast")
    page.wait_for_function("document.querySelector('#board g.forecast g.forecast-temple')"
                           " && !document.querySelector('#forecast-parts').hidden", timeout=60_000)
    page.mouse.move(0, 0)
    page.screenshot(path=str(path))
    board.press("#forecast")  # off again: the other screenshots without it


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "img"))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--level", default="casual")
    parser.add_argument("--only", nargs="+", choices=sorted(ONLY),
                        help="only these views, on tests/data/records.jsonl's first game (the others stay)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    seats = ["human"] + [args.level] * (args.players - 1)
    if args.only:
        stored = (ROOT / "tests" / "data" / "records.jsonl").read_text().splitlines()[0]
        with cacao_server() as url:
            if {"forecast", "practice"} & set(args.only):
                with chromium(*DESKTOP) as page:
                    board = BoardPage(page, url)
                    page.evaluate("text => window.cacaoOpenRecord(text)", stored)
                    page.wait_for_function("window.cacao.mode === 'replay' && window.cacao.replay.position")
                    if "forecast" in args.only:
                        forecast(board, out / ONLY["forecast"][0], 24)
                    if "practice" in args.only:
                        review(board)
                        practice(board, out / ONLY["practice"][0])
            if "practice" in args.only:
                shoot_practice_phone(url, stored, out / ONLY["practice"][1])
            if "puzzles" in args.only:
                shoot_puzzles(url, out)
        for name in args.only:
            for file in ONLY[name]:
                print(out / file)
        return 0
    with cacao_server() as url:
        with chromium(*DESKTOP) as page:
            board = BoardPage(page, url)
            board.new_game(seats, args.seed)
            board.analyse()
            page.mouse.move(0, 0)
            page.screenshot(path=str(out / "board-start.png"))

            taken: set[str] = set()

            def mid(moves: int) -> None:
                board.wait_for_human_or_end()
                if board.over() or not board.state("s.game.position.phase === 1"):  # a tile to place (PHASE_TURN)
                    return
                if moves >= 9 and "mid" not in taken:  # the ghost of the chosen tile over a legal cell
                    page.locator(TARGET).first.hover()
                    page.screenshot(path=str(out / "board-mid.png"))
                    taken.add("mid")
                elif moves >= 12 and "heat" not in taken:  # the heat map of an analysis, the board alone
                    board.analyse()
                    page.mouse.move(0, 0)
                    page.locator("#left").screenshot(path=str(out / "board-heatmap.png"))
                    taken.add("heat")

            board.play_to_end(hint=True, on_move=mid)
            board.wait_for_graph()
            page.screenshot(path=str(out / "board-end.png"))
            page.set_viewport_size({"width": 900, "height": 900})  # the panels under the board: a wide graph
            page.screenshot(path=str(out / "board-graph.png"), clip=union(page, "#result", "#p-graph"), full_page=True)
            page.set_viewport_size({"width": DESKTOP[0], "height": DESKTOP[1]})
            with tempfile.TemporaryDirectory() as folder:
                with page.expect_download() as download:
                    page.click("#save")  # then load the record into the replay viewer, at action 12
                download.value.save_as(Path(folder) / "game.json")
                record = (Path(folder) / "game.json").read_text()
                page.set_input_files("#load-file", str(Path(folder) / "game.json"))
                # the page reads the file: only then may it go
                page.wait_for_function("window.cacao.mode === 'replay' && window.cacao.replay.position")
            page.eval_on_selector("#r-slider", "s => { s.value = '12'; s.dispatchEvent(new Event('input')); }")
            page.wait_for_function("window.cacao.replay.evals.has(12) && window.cacao.evaluation", timeout=30_000)
            board.wait_for_graph()
            page.screenshot(path=str(out / "board-replay.png"))
            forecast(board, out / "board-forecast.png", 12)
            review(board)
            page.screenshot(path=str(out / "board-review.png"))
            practice(board, out / "board-practice.png")
        width, height = SIZES["phone"]
        with chromium(width, height, touch=True) as page:
            board = BoardPage(page, url, touch=True)
            board.new_game(seats, args.seed + 1)
            for _ in range(5):
                board.play_human_move()
            while board.state("s.game.position.phase !== 1") and not board.over():
                board.play_human_move()
            board.press(page.locator("#tray svg.mini.choosable").first)
            x, y = board.first_target()
            board.cell(x, y).tap()  # chosen, not yet placed: the tile drawn there, Place offered
            page.wait_for_selector("#place:not([hidden])")
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(out / "board-phone.png"))
            page.evaluate("text => window.cacaoOpenRecord(text)", record)  # the desktop's game, reviewed
            page.wait_for_function("window.cacao.mode === 'replay' && window.cacao.replay.position")
            review(board)
            page.evaluate("document.querySelector('#p-graph').scrollIntoView({block: 'start'})")
            page.screenshot(path=str(out / "board-review-phone.png"))
            practice(board, out / "board-practice-phone.png", phone=True)
        shoot_puzzles(url, out)
    for name in NAMES:
        print(out / name)
    return 0


def shoot_practice_phone(url: str, record: str, path: Path) -> None:
    """board-practice-phone.png: the record reviewed on a phone, and the practice of its mistakes."""
    width, height = SIZES["phone"]
    with chromium(width, height, touch=True) as page:
        board = BoardPage(page, url, touch=True)
        page.evaluate("text => window.cacaoOpenRecord(text)", record)
        page.wait_for_function("window.cacao.mode === 'replay' && window.cacao.replay.position")
        review(board)
        practice(board, path, phone=True)


def shoot_puzzles(url: str, out: Path) -> None:
    """board-puzzles.png at the docs' desktop size, board-puzzles-phone.png at a phone's."""
    with chromium(*DESKTOP) as page:
        puzzles(BoardPage(page, url), out / ONLY["puzzles"][0])
    width, height = SIZES["phone"]
    with chromium(width, height, touch=True) as page:
        puzzles(BoardPage(page, url, touch=True), out / ONLY["puzzles"][1], phone=True)


if __name__ == "__main__":
    sys.exit(main())
