"""``cacao-play --puzzles``, the puzzle trainer in the terminal, against a real
server of the test puzzles (conftest.puzzle_server: tests/data/puzzles.jsonl),
typed at as a person would: the board from the seat's view, a wrong try and
one more, the solution and why after a second miss or a skip, the streak and
the puzzle rating after each puzzle, the filters; and the rating's arithmetic
(docs/protocol.md, "CheckPuzzle")."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from cacaoai.client.notation import offer_lines
from cacaoai.client.play import main
from cacaoai.client.puzzles import (
    FLOOR,
    START_RATING,
    Progress,
    expected_score,
    new_rating,
    rating_range,
)
from cacaoai.engine import Position
from cacaoai.search import puzzles
from cacaoai.search.puzzles import Puzzle

SET = {p.id: p for p in puzzles.load(Path(__file__).parent / "data" / "puzzles.jsonl")}


# --- the rating -----------------------------------------------------------------------

def test_the_rating_moves_as_elo_against_the_puzzles_rating():
    assert expected_score(1200, 1200) == 0.5
    assert expected_score(1200, 1000) == pytest.approx(0.7597, abs=1e-4)
    assert new_rating(1200, 1200, solved=True) == 1216 and new_rating(1200, 1200, solved=False) == 1184
    assert new_rating(1200, 800, solved=True) == 1203  # an easy puzzle gives little
    assert new_rating(1200, 2000, solved=False) == 1200  # and a hard one costs nothing much
    assert new_rating(1200, 2000, solved=True) == 1232
    assert new_rating(FLOOR, 2200, solved=False) == FLOOR


def test_the_streak_counts_first_tries_in_a_row():
    p = Progress()
    assert p.rating == START_RATING == 1200
    p = p.after(1200, True).after(1200, True)
    assert (p.streak, p.best_streak, p.solved, p.played, p.rating) == (2, 2, 2, 2, 1231)
    p = p.after(1200, False)
    assert (p.streak, p.best_streak, p.solved, p.played) == (0, 2, 2, 3)


@pytest.mark.parametrize(("text", "bounds"), [
    ("1000-1600", (1000, 1600)), ("1000-", (1000, None)), ("-1600", (None, 1600)), ("1400", (1400, 1400)),
    (" 800 - 1200 ", (800, 1200)),
])
def test_a_rating_range_is_read(text, bounds):
    assert rating_range(text) == bounds


@pytest.mark.parametrize("text", ["", "-", "hard", "1600-1000", "1000-1600-2000", "1.5-2"])
def test_a_bad_rating_range_is_refused(text):
    with pytest.raises(ValueError, match="give LOW-HIGH|is above"):
        rating_range(text)


# --- the trainer ----------------------------------------------------------------------

def play(server: str, typed: list[str], *flags: str) -> tuple[int, str]:
    """cacao-play --puzzles on `server` with `typed` lines; its exit status and output."""
    out = io.StringIO()
    status = main(["--puzzles", "--server", server, "--color", "never", *flags], io.StringIO("\n".join(typed) + "\n"),
                  out)
    return status, out.getvalue()


def text_of(puzzle: Puzzle) -> str:
    """The solution as the player types it: TILE X,Y rR."""
    a = puzzle.solutions[0]
    return f"{a.tile} {a.x},{a.y} r{a.rot}"


def wrong_text(puzzle: Puzzle) -> str:
    """A legal placement without fills that is not the solution, typed."""
    legal = Position.from_observation(dict(puzzle.view), 0).legal_actions()
    a = next(a for a in legal if a not in puzzle.solutions and a.type == "place" and not a.fills)
    return f"{a.tile} {a.x},{a.y} r{a.rot}"


def test_a_puzzle_is_shown_from_its_seats_view_and_a_first_try_solves_it(puzzle_server):
    easy = SET["2p-test-0001"]
    status, out = play(puzzle_server[0], [text_of(easy), "quit"], "--theme", "temple majority", "--rating", "-1000")
    assert status == 0
    assert "Puzzle 2p-test-0001 · rated 800 · temple majority · 2 players, you play red (seat 0)" in out
    assert "> red (you)" in out and "Your hand: 2101, 3001, 3100" in out  # the seat's own hand, drawn
    assert "Find the best move" in out
    assert f"Right! {easy.sentence[0].upper()}{easy.sentence[1:]}." in out
    assert "Puzzle rating 1200 -> 1203 (+3); streak 1." in out
    assert "1 of 1 puzzles solved at the first try; best streak 1. Your puzzle rating: 1203" in out


def test_a_wrong_try_gets_one_more_and_a_second_miss_shows_the_solution_and_why(puzzle_server):
    hard = SET["3p-test-0003"]
    status, out = play(puzzle_server[0], [wrong_text(hard), wrong_text(hard), "quit"], "--players", "3",
                       "--rating", "1500-", "--puzzle-rating", "1500")
    assert status == 0
    assert out.count("Not this one:") == 1 and "Try once more." in out
    assert f"The solution: {text_of(hard)}. {hard.sentence[0].upper()}{hard.sentence[1:]}." in out
    assert re.search(r"Puzzle rating 1500 -> 14\d\d \(-\d+\); streak 0\.", out)


def test_the_right_move_at_the_second_try_is_right_but_breaks_the_streak(puzzle_server):
    water = SET["2p-test-0002"]
    status, out = play(puzzle_server[0], [wrong_text(water), text_of(water), "", "quit"], "--theme", "water")
    assert "Right at the second try." in out and "Puzzle rating 1200 -> 1184 (-16); streak 0." in out
    # then the set's only water puzzle again: all seen, they come again
    assert "You have seen all 1 puzzles that fit: they come again." in out
    assert out.count("Puzzle 2p-test-0002 ·") == 2 and status == 0


def test_a_skip_shows_the_solution_as_a_miss_and_the_streak_runs_on_solved_puzzles(puzzle_server):
    order = ["2p-test-0002", "2p-test-0001"]  # seed 3 draws them so (the server's pick), then again
    typed = [text_of(SET[order[0]]), "", text_of(SET[order[1]]), "", "skip", "quit"]
    status, out = play(puzzle_server[0], typed, "--players", "2", "--seed", "3")
    assert re.findall(r"Puzzle (\S+) ·", out) == [*order, order[0]] and status == 0
    assert "streak 1." in out and "streak 2." in out
    assert out.count("The solution:") == 1 and out.count("Right!") == 2
    final = re.findall(r"-> (\d+)", out)[-1]
    assert out.rstrip().endswith(f"2 of 3 puzzles solved at the first try; best streak 2. Your puzzle rating: "
                                 f"{final} (go on from it with --puzzle-rating {final}).")


def test_list_numbers_the_legal_actions_and_a_number_plays_one(puzzle_server):
    puzzle = SET["4p-test-0004"]
    legal = Position.from_observation(dict(puzzle.view), 0).legal_actions()
    number = legal.index(puzzle.solutions[0]) + 1
    status, out = play(puzzle_server[0], ["list", str(number), "quit"], "--players", "4")
    assert f"{number:>3}) {text_of(puzzle)}" in out
    assert "Right!" in out and "(proved by the endgame solver)" in out  # an exact puzzle says so


def test_a_result_to_choose_is_offered_numbered_and_chosen_by_its_number(puzzle_server):
    status, out = play(puzzle_server[0], ["r 1", "r 2", "quit"], "--theme", "market timing", "--rating", "900-1100")
    assert "Puzzle 3p-test-0005 · rated 1000 · market timing · 3 players, you play purple (seat 2)" in out
    offered = "Choose the result of your activations (r N):\n  1) +12 gold, keep 1 cacao\n  2) +9 gold, keep 2 cacao"
    assert offered in out
    assert "Not this one: r 1. Try once more." in out and "Right at the second try. Taking 9 gold" in out


def test_filters_the_set_cannot_meet_end_the_session_with_the_reason(puzzle_server):
    status, out = play(puzzle_server[0], ["quit"], "--theme", "overbuilding with sun")
    assert status == 0 and "No puzzle: no puzzle of this server's 5 passes the filters" in out
    status, out = play(puzzle_server[0], ["quit"], "--theme", "tempel")
    assert status == 2 and "No such puzzles: theme: must be one of" in out


def test_a_bad_rating_range_stops_before_any_server(capsys):
    with pytest.raises(SystemExit):
        main(["--puzzles", "--rating", "1600-1000"], io.StringIO(), io.StringIO())
    assert "argument --rating: '1600-1000': 1600 is above 1000" in capsys.readouterr().err


def test_a_puzzle_offers_its_results_to_choose_and_its_overbuilds_as_a_game_does():
    """Most shipped puzzles are a result to choose or an overbuild: the prompt offers them."""
    shipped = puzzles.load()
    resolve = next(p for p in shipped if p.view["phase"] == "resolve")
    legal = Position.from_observation(dict(resolve.view), 0).legal_actions()
    lines = offer_lines(legal)
    assert lines[0] == "Choose the result of your activations (r N):" and len(lines) == len(legal) + 1
    assert lines[1].startswith("  1) +") and "keep" in lines[1]
    overbuild = next(p for p in shipped if p.solutions[0].type == "overbuild")
    legal = Position.from_observation(dict(overbuild.view), 0).legal_actions()
    a = overbuild.solutions[0]
    assert any(line.startswith("You may overbuild (1 sun): ob TILE X,Y rR on one of") and f"{a.x},{a.y}" in line
               for line in offer_lines(legal))
