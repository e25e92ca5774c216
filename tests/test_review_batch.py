"""cacao-review-batch (cacaoai.lab.reviews): many records reviewed at once,
one summary a game and a table per player, the same on one or two processes."""

import json
from pathlib import Path

import pytest

from cacaoai.lab.reviews import main, read_games, review_batch, totals
from cacaoai.search import Limit
from cacaoai.search.review import CLASSES

RECORDS = (Path(__file__).parent / "data" / "records.jsonl").read_text().splitlines()


def short(line, n=6):
    """A record's first `n` actions (a game need not be finished to be reviewed)."""
    record = json.loads(line)
    record.pop("result", None)
    record["actions"] = record["actions"][:n]
    return record


@pytest.fixture
def two_games(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(short(RECORDS[0])) + "\n\n"
                    + json.dumps({"record": short(RECORDS[1]), "players": ["ann", "bob"]}) + "\n")
    return path


def test_a_batch_reviews_each_game_once_and_sums_up_per_player(two_games):
    games = read_games(str(two_games))
    assert [g.players for g in games] == [None, ("ann", "bob")]
    summaries = review_batch(games, Limit(iterations=20), seed=3)
    assert [s["game"] for s in summaries] == [0, 1]
    assert summaries[1]["players"] == ["ann", "bob"]
    for s in summaries:
        assert sum(seat["decisions"] + seat["forced"] for seat in s["seats"]) == 6
    rows = {r.name: r for r in totals(summaries)}
    assert set(rows) == {"seat 0", "seat 1", "ann", "bob"}
    assert sum(r.decisions for r in rows.values()) == sum(
        seat["decisions"] for s in summaries for seat in s["seats"])
    assert all(sum(r.counts[c] for c in CLASSES) == r.decisions for r in rows.values())
    # the same summaries in worker processes, whatever order they finish in
    assert review_batch(games, Limit(iterations=20), seed=3, processes=2) == summaries


def test_the_command_writes_a_summary_a_game_and_prints_the_table(two_games, tmp_path, capsys):
    out = tmp_path / "summaries.jsonl"
    assert main([str(two_games), "--iterations", "20", "--out", str(out), "--quiet"]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [s["source"] for s in lines] == [f"{two_games}:1", f"{two_games}:3"]
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:5] == ["player", "games", "decisions", "accuracy", "loss"]
    assert sorted(row.split()[0] for row in table[1:]) == ["ann", "bob", "seat", "seat"]


def test_bad_input_names_the_line_and_the_field(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"record": short(RECORDS[0]), "players": ["ann"]}) + "\n")
    with pytest.raises(SystemExit):
        main([str(path)])
    assert f"{path}:1: players: must be 2 names" in capsys.readouterr().err
    path.write_text("{not json\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: not JSON"):
        read_games(str(path))
