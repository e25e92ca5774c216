"""cacao-review's words and refusals: two different actions never read alike
(so a "best:" line never repeats the move played when it differs from it),
and a record that cannot be reviewed is refused with one line on standard
error before anything is written to standard output.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from support import GUARD_S

from cacaoai.api import DecisionReview, action_text
from cacaoai.client import CacaoClient, CacaoClientError
from cacaoai.client.review import decision_lines, review_table
from cacaoai.engine import Action, Fill, Position

BIN = Path(sys.executable).parent
ENV = {k: v for k, v in os.environ.items() if not k.startswith("CACAO_")}


def positions(players: int, seed: int):
    """Every position of a random game of `players` from deal `seed`, until it ends."""
    position, rng = Position.new(players, seed), random.Random(seed)
    while not position.is_over:
        yield position
        position.apply(rng.choice(position.legal_actions()))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_two_different_legal_actions_never_read_alike(players):
    """The rotation and the display tile filling each cell are in the words:
    every legal action of every position of real games reads differently."""
    checked = filled = turned = 0
    for seed in (1, 2):
        for position in positions(players, seed):
            legal = position.legal_actions()
            texts = [action_text(a) for a in legal]
            alike = {t for t in texts if texts.count(t) > 1}
            assert not alike, f"{sorted(alike)[:3]} name several actions of {position!r}"
            checked += 1
            filled += any(a.fills for a in legal)
            turned += len({a.rot for a in legal if a.type == "place"}) > 1
    assert checked > 40 and filled > 10 and turned > 10  # the games met what could read alike


def test_the_words_name_the_rotation_and_which_display_tile_fills_which_cell():
    assert action_text(Action.place(0, "2101", 1, -2, 1)) == "2101 at (1,-2), rotation 1"
    assert action_text(Action.place(0, "1111", 1, -2, 0)) == "1111 at (1,-2)"  # a 1111 has one rotation
    assert action_text(Action.place(0, "3001", 0, -1, 2, [Fill(1, -1, "market-3"), Fill(-1, -1, "sun")])) == (
        "3001 at (0,-1), rotation 2, filling (-1,-1) with sun and (1,-1) with market-3 from the display")
    assert action_text(Action.overbuild(1, "3100", 2, 1, 3)) == "overbuilding with 3100 at (2,1), rotation 3"
    assert action_text(Action.discard(0, "2101")) == "discarding 2101"
    assert action_text(Action.resolve(0, 4, 1)) == "taking 4 gold and keeping 1 cacao"
    # a sentence still names an action by its tile and cell, as the TypeScript client does
    assert action_text(Action.place(0, "2101", 1, -2, 1, [Fill(0, -2, "sun")]), short=True) == "2101 at (1,-2)"


def twins(alike: str):
    """Two legal actions of a real position that differ in `alike` ("rot" or
    "fills") only."""
    for players in (2, 3):
        for position in positions(players, 3):
            places = [a for a in position.legal_actions() if a.type == "place"]
            for a in places:
                for b in places:
                    same = (a.tile, a.x, a.y, a.fills if alike == "rot" else a.rot)
                    if a != b and same == (b.tile, b.x, b.y, b.fills if alike == "rot" else b.rot):
                        return a, b
    raise AssertionError(f"no two actions differ in {alike} only")


@pytest.mark.parametrize("alike", ["rot", "fills"])
def test_a_review_line_whose_best_differs_from_the_move_shows_the_difference(alike):
    played, best = twins(alike)
    decision = DecisionReview(index=4, seat=played.seat, action=played, classification="mistake",
                              best_action=best, win_before=0.6, win_after=0.4, best_win=0.6, win_loss=0.2)
    row, best_line = decision_lines(decision)[:2]
    shown_played = row.split("  ")[-1].strip()
    shown_best = best_line.strip().removeprefix("best: ").rpartition(" (")[0]
    assert shown_played == action_text(played) and shown_best == action_text(best)
    assert shown_played != shown_best, row + "\n" + best_line


def review(path: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "cacao-review"), str(path), *flags], capture_output=True, text=True,
                          timeout=GUARD_S, stdin=subprocess.DEVNULL, env=ENV)


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> dict:
    done = subprocess.run([str(BIN / "cacao-engine"), "random", "--seed", "3"], capture_output=True,
                          text=True, check=True, timeout=GUARD_S)
    return json.loads(done.stdout)


def test_cacao_review_refuses_a_bad_record_with_one_line_and_no_table(game, tmp_path):
    """Nothing on standard output (no table header), one line naming the file
    and the problem on standard error, a non-zero status; no server started
    (a bad file is known before)."""
    illegal = json.loads(json.dumps(game))
    illegal["actions"][3]["x"] = 99
    cases = {
        "not JSON": ("nonsense", "not valid JSON"),
        "not a record": (json.dumps({"bad": 1}), "bad: unknown field"),
        "an illegal action": (json.dumps(illegal), "action 3: "),
    }
    for name, (text, problem) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        done = review(path)
        assert done.returncode == 1, (name, done.stdout, done.stderr)
        assert done.stdout == "", name
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"cacao-review: {path}: not a valid cacao-record/1 game: ")
        assert problem in lines[0], lines


def test_cacao_review_refuses_a_seat_the_game_does_not_have_before_the_table(game, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game))
    done = review(path, "--seat", "5")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == f"cacao-review: {path}: --seat 5: the game has seats 0..{game['players'] - 1}\n"


def test_a_review_the_server_refuses_writes_no_table(cacao_server):
    """The header comes with the server's first report, so that a refusal
    (here of a record only the server sees) leaves the output empty."""
    out = io.StringIO()
    with CacaoClient(cacao_server[1]) as client, pytest.raises(CacaoClientError, match="record"):
        review_table(client, json.dumps({"bad": 1}), out)
    assert out.getvalue() == ""
