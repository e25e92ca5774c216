"""Screenshots of the board page at the start, mid-game, at the end and in the replay viewer.

Starts ``cacao-server`` (gRPC and HTTP on free loopback ports), opens the page
in headless Chromium (Debian's ``/usr/bin/chromium`` through Playwright; no
browser is downloaded) and plays a game through the page as a person would:
a human seat clicks its tiles and cells, the AI seats answer. The test suite
drives the page with the same :class:`BoardPage`.

    python .ci/screenshots.py                 # writes docs/img/board-{start,mid,end,replay}.png
    python .ci/screenshots.py --out /tmp/shots --players 3
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cacaoai.client.local import LocalServer

CHROMIUM = os.environ.get("CACAO_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-quic", "--no-first-run", "--disable-component-update",
                  "--disable-sync"]
ROOT = Path(__file__).resolve().parent.parent
TARGET = "#board g.cell:has(> rect.target)"  # a cell the chosen tile may go to


@contextlib.contextmanager
def cacao_server(*flags: str) -> Iterator[str]:
    """A cacao-server process with its HTTP side on a free port; yields the page's URL."""
    with LocalServer(*flags, http=True, timeout=30) as server:
        assert server.http_url is not None
        yield server.http_url


@contextlib.contextmanager
def chromium(width: int = 1400, height: int = 900) -> Iterator[Any]:
    """A Playwright page in a fresh headless Chromium profile."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="cacao-chromium-") as profile, \
            sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": width, "height": height}, accept_downloads=True)
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


class BoardPage:
    """The board page driven through its buttons, tiles and cells."""

    def __init__(self, page: Any, url: str):
        self.page, self.url = page, url
        page.goto(url)
        page.wait_for_function("window.cacao && document.querySelector('#seat-0 option')")

    def state(self, expression: str) -> Any:
        return self.page.evaluate(f"(() => {{ const s = window.cacao; return {expression}; }})()")

    def new_game(self, seats: list[str], seed: int) -> None:
        """Starts a game: seats[i] is "human" or an AI level such as "casual"."""
        page = self.page
        if not page.is_visible("#setup"):
            page.click("#new")
        page.select_option("#players", str(len(seats)))
        for i, kind in enumerate(seats):
            page.select_option(f"#seat-{i}", kind)
        page.fill("#seed", str(seed))
        page.click("#start")
        self.wait_for_human_or_end()

    def over(self) -> bool:
        return self.state("s.over")

    def wait_for_human_or_end(self, timeout_s: float = 120) -> None:
        """Waits until a human seat may act (its legal actions are there) or the game is over."""
        self.page.wait_for_function(
            "(() => { const s = window.cacao; if (!s.game) return false;"
            " if (s.over) return true;"
            " return !s.busy && !s.thinking && s.legal.length > 0; })()", timeout=timeout_s * 1000)

    def play_human_move(self, hint: bool = False) -> None:
        """One decision through the page: a result to choose, or a tile to a green cell
        (with ``hint``: the evaluation's best candidate, when it offers one)."""
        page = self.page
        best = page.locator("#evaluation .candidates button").first
        if hint:
            with contextlib.suppress(Exception):
                best.wait_for(timeout=3000)
        if hint and best.count():
            best.click()
        elif page.locator("#choices button.choice").count():
            page.locator("#choices button.choice").first.click()
        else:
            page.locator("#seats svg.mini.choosable").first.click()
            played = page.evaluate("window.cacao.game.record.actions.length")
            page.locator(TARGET).first.click()
            # the click either asks which display tile goes where or sends the move
            page.wait_for_function(
                "n => document.querySelector('#choices button.choice') || window.cacao.busy"
                " || window.cacao.game.record.actions.length !== n", arg=played)
            if page.locator("#choices button.choice").count():  # which display tile goes where
                page.locator("#choices button.choice").first.click()
        self.wait_for_human_or_end()

    def play_to_end(self, max_moves: int = 200, hint: bool = False, on_move: Any = None) -> int:
        """Plays the human seats until the game is over; the number of decisions."""
        moves = 0
        while not self.over() and moves < max_moves:
            self.play_human_move(hint)
            moves += 1
            if on_move:
                on_move(moves)
        return moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "img"))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--level", default="casual")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with cacao_server() as url, chromium() as page:
        board = BoardPage(page, url)
        board.new_game(["human"] + [args.level] * (args.players - 1), args.seed)
        page.click("#analyse")
        page.wait_for_function("window.cacao.analysis === null", timeout=30_000)
        page.mouse.move(0, 0)
        page.screenshot(path=str(out / "board-start.png"))

        def mid(moves: int) -> None:
            if moves == 9:
                target = page.locator(TARGET).first
                if target.count():
                    target.hover()  # the ghost of the chosen tile over a legal cell
                page.screenshot(path=str(out / "board-mid.png"))

        board.play_to_end(hint=True, on_move=mid)
        page.screenshot(path=str(out / "board-end.png"))
        with tempfile.TemporaryDirectory() as folder:
            with page.expect_download() as download:
                page.click("#save")  # then load the record into the replay viewer, at action 12
            download.value.save_as(Path(folder) / "game.json")
            page.set_input_files("#load-file", str(Path(folder) / "game.json"))
        page.wait_for_function("document.querySelector('#r-label').textContent.startsWith('0 /')")
        page.eval_on_selector("#r-slider", "s => { s.value = '12'; s.dispatchEvent(new Event('input')); }")
        page.wait_for_function("window.cacao.replay.evals.has(12)", timeout=30_000)
        page.screenshot(path=str(out / "board-replay.png"))
    for name in ("board-start.png", "board-mid.png", "board-end.png", "board-replay.png"):
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
