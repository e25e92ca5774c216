"""The board page in a real browser: headless Chromium (Debian's package, driven by
Playwright) against a real cacao-server process, clicking as a person would."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / ".ci"))
from screenshots import CHROMIUM, TARGET, BoardPage, cacao_server, chromium  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.requires_tool(CHROMIUM), pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def url():
    with cacao_server("--max-searches", "2") as address:
        yield address


@pytest.fixture
def board(url):
    with chromium() as page:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield BoardPage(page, url)
        assert errors == []  # no uncaught script error on the page


def actions(board: BoardPage) -> int:
    return board.state("(s.game.record.actions || []).length")


def test_a_complete_game_against_the_ai_through_the_page(board):
    board.new_game(["human", "beginner"], seed=7)
    page = board.page
    assert page.locator("#board g.worker:not(.ghost)").count() == 1  # the AI, first player, has placed
    moves = board.play_to_end()
    assert board.over() and moves >= 11  # a 2-player seat lays 11 tiles
    result = page.inner_text("#result")
    assert "win" in result and "red:" in result and "yellow:" in result
    assert page.inner_text("#status") == "Game over"
    assert len(board.state("s.game.record.result.seats")) == 2
    assert page.locator("#board g.worker:not(.ghost)").count() >= 20
    # the finished game saved, loaded and replayed to its end shows the same result
    with page.expect_download() as download:
        page.click("#save")
    record = json.loads(Path(download.value.path()).read_text())
    assert set(record["result"]) == {"gold", "cacao", "winners"}  # docs/record-format.md
    page.set_input_files("#load-file", download.value.path())  # the service accepts it
    page.wait_for_function("window.cacao.mode === 'replay'")
    page.click("#r-last")
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result") == result


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


def test_an_illegal_click_gets_the_services_explanation(board):
    board.new_game(["human", "casual"], seed=7)
    page = board.page
    before = actions(board)
    empty = page.locator("#board g.cell:has(> rect.empty):not(:has(g))").first
    empty.click()
    page.wait_for_selector("#message.error")
    message = page.inner_text("#message")
    assert message.startswith("invalid_argument: action.place.x: ("), message
    assert "is not an empty cell next to a jungle tile" in message, message
    assert actions(board) == before  # nothing was played
    # a legal cell: the tile follows the pointer, R turns it among the legal rotations
    page.locator("#seats svg.mini.choosable[data-tile='2101']").first.click()
    page.locator(TARGET).first.hover()
    assert page.locator("#board g.ghost").count() == 1
    turns = set()
    for _ in range(4):
        turns.add(board.state("s.rotation"))
        page.keyboard.press("r")
    assert len(turns) > 1


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
    board.new_game(["human", "time:3"], seed=11)
    page = board.page
    before = actions(board)
    page.locator("#seats svg.mini.choosable").first.click()
    page.locator(TARGET).first.click()
    if page.locator("#choices button.choice").count():
        page.locator("#choices button.choice").first.click()
    page.wait_for_selector("#thinking:not([hidden])", timeout=30_000)
    page.wait_for_function(SHOWN_WHILE_THINKING, timeout=30_000)  # looked at every frame
    shown = page.evaluate("window.shownWhileThinking")
    iterations = [shown[sequence] for sequence in sorted(shown, key=int)]
    assert iterations == sorted(iterations) and iterations[-1] > iterations[0]  # one growing search
    board.wait_for_human_or_end()
    assert actions(board) >= before + 2  # the human's move, then the AI's


def test_undo_takes_back_the_humans_move_and_the_ais_answer(board):
    board.new_game(["human", "beginner"], seed=5)
    first = actions(board)
    board.play_human_move()
    assert actions(board) > first
    board.page.click("#undo")
    board.wait_for_human_or_end()
    assert actions(board) == first


def test_a_saved_record_replays_with_an_evaluation_at_each_move(board, tmp_path):
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
    page.wait_for_function(f"document.querySelector('#r-label').textContent.startsWith('0 / {played}')")
    assert board.state("s.mode") == "replay"
    page.wait_for_function("Number(document.querySelector('#evaluation .evalhead')"
                           "?.dataset.iterations) > 0")
    page.click("#r-next")
    page.wait_for_function("document.querySelector('#r-label').textContent.startsWith('1 /')")
    page.click("#r-last")
    page.wait_for_function(f"document.querySelector('#r-label').textContent.startsWith('{played} /')")
    page.wait_for_function("window.cacao.replay.evals.size >= 3")
    assert board.state("s.mode") == "replay"
    assert page.evaluate("window.cacao.replay.evals.size") >= 3
    replayed = page.evaluate("document.querySelectorAll('#board g.worker:not(.ghost)').length")
    assert replayed == sum(1 for t in final_board if t["tile"]["case"] == "worker")


def test_a_broken_record_is_refused_with_the_services_reason(board, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "cacao-record/1", "players": 2, "first_player": 0,
                                "worker_piles": [[], []], "jungle_deck": [], "actions": []}))
    board.page.set_input_files("#load-file", str(path))
    board.page.wait_for_selector("#message.error")
    assert "not valid" in board.page.inner_text("#message")
    assert board.state("s.mode") != "replay"


def test_a_server_that_needs_tokens_is_played_with_a_token_from_the_address_or_the_dialog(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("page-token-1\n")
    with cacao_server("--auth-tokens", str(tokens), "--max-searches", "2") as url, \
            chromium() as page:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)  # no token: the page says how to give one
        page.wait_for_selector("#message.error")
        assert "needs a token" in page.inner_text("#message")
        assert page.evaluate("window.cacao.levels.length") == 0
        # typed into the dialog: the levels come, then a game against the AI
        page.fill("#token", "page-token-1")
        page.click("#start")
        page.wait_for_function("window.cacao.levels.length > 0")
        board = BoardPage(page, url)  # a fresh load: the tab still has the token
        board.new_game(["human", "beginner"], seed=7)  # the AI moves first with this seed
        assert page.locator("#board g.worker:not(.ghost)").count() == 1  # the AI has placed
        # given in the address: used, then dropped from it
        page.evaluate("sessionStorage.clear()")
        page.goto("about:blank")  # so that the next address loads the page again
        board = BoardPage(page, url + "#token=page-token-1")
        assert board.state("s.levels.length") > 0
        assert page.evaluate("location.hash") == ""
        assert errors == []
