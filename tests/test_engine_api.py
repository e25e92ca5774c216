"""Properties of the engine's Python API over many random games."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from cacaoai.engine import (
    Action,
    CacaoError,
    IllegalActionError,
    Position,
    RecordError,
    SnapshotError,
    position_hash,
)
from cacaoai.engine.cli import main as cli_main
from cacaoai.engine.cli import random_game
from cacaoai.engine.rules import deck_tiles, seat_tiles

SEEDS = range(12)


def positions_along(players: int, seed: int):
    """Every decision point of one seeded random game."""
    position = Position.new(players, seed)
    rng = random.Random(seed * 7919 + players)
    while True:
        yield position
        if position.is_over:
            return
        actions = position.legal_actions()
        position.apply(actions[rng.randrange(len(actions))])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_with_every_tile_accounted_for(players):
    for seed in SEEDS:
        position = random_game(players, seed)
        assert position.is_over and position.to_act is None
        snap = position.snapshot()
        workers = Counter((t["seat"], t["tile"]) for t in snap["board"] if "seat" in t)
        workers += Counter((t["seat"], t["covers"]["tile"]) for t in snap["board"] if "covers" in t)
        for s, seat in enumerate(snap["seats"]):
            placed = Counter({tile: n for (owner, tile), n in workers.items() if owner == s})
            assert placed + Counter(seat["discarded"]) == seat_tiles(players)
        jungle = Counter(t["tile"] for t in snap["board"] if "seat" not in t)
        jungle.subtract({"plantation-1": 1, "market-2": 1})
        assert +jungle + Counter(snap["display"]) + Counter(snap["jungle_deck"]) == deck_tiles(players)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_progress_counts_the_worker_tiles_gone_from_zero_to_one(players):
    total = sum(seat_tiles(players).values()) * players
    before = None
    for position in positions_along(players, 3):
        snap = position.snapshot()
        placed = sum(("seat" in t) + ("covers" in t) for t in snap["board"])   # an overbuilt tile is under one
        discarded = sum(len(seat["discarded"]) for seat in snap["seats"])
        assert position.progress == pytest.approx((placed + discarded) / total)
        assert before is None or position.progress >= before
        before = position.progress
    assert Position.new(players, 3).progress == 0.0 and before == 1.0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_legal_action_lists_are_free_of_duplicates_and_decode_back(players):
    for seed in SEEDS[:4]:
        for position in positions_along(players, seed):
            actions = position.legal_actions()
            forms = [a.canonical() for a in actions]
            assert len(forms) == len(set(forms))
            assert position.legal_codes() == [position.encode(a) for a in actions]
            assert len(actions) == position.core.count_actions()
            # kept Actions (by key, across the games) are the ones decoded now
            assert actions == [position.decode(c) for c in position.legal_codes()]
            keys = position.legal_keys()
            assert [c for _, c in keys] == position.legal_codes() and len({k for k, _ in keys}) == len(keys)
            for a in actions:  # the decoder's own builds equal the checked ones, hashes too
                parsed = Action.from_json(json.loads(a.canonical()))
                assert parsed == a and hash(parsed) == hash(a) and repr(parsed) == repr(a)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_is_legal_answers_as_the_legal_list_does(players):
    """core.is_legal (the search asks it of a node's children) says of any code
    what membership in legal_codes says: the codes of this position, of the
    one before, of other deals of its hidden tiles, and near misses of them."""
    checked = Counter()
    for seed in SEEDS[:4]:
        before: list[int] = []
        for position in positions_along(players, seed):
            core = position.core
            legal = set(position.legal_codes())
            codes = set(legal) | set(before)
            for k in range(3):
                other = position.clone().core
                if not position.is_over:
                    other.determinize(position.to_act, 0, seed * 31 + k)
                codes |= set(other.legal_codes())
            for code in list(codes):
                codes |= {code ^ (1 << bit) for bit in range(26)}
            codes |= {2 | t << 2 for t in range(4)} | {0, 0xFFFFFFFF}
            for code in codes:
                assert core.is_legal(code) == (code in legal), (position.snapshot(), code)
                checked[code in legal, code & 3] += 1
            before = position.legal_codes()
    # every kind of action was asked of, legal and not (discards happen when nothing can be placed)
    assert all(checked[True, kind] and checked[False, kind] for kind in (0, 1, 3)), checked
    assert checked[False, 2]
    assert not Position.new(players, 0).core.is_legal(-1)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_kept_hole_counts_match_a_loaded_copy(players):
    """The per-cell hole counts kept while playing equal those a snapshot load
    rebuilds: same action count and the same random draws."""
    for seed in SEEDS[:3]:
        for position in positions_along(players, seed):
            loaded = Position.from_snapshot(json.loads(json.dumps(position.snapshot())))
            assert loaded.core.count_actions() == position.core.count_actions()
            if position.core.count_actions():
                draws = [position.core.random_code(k) for k in range(8)]
                assert draws == [loaded.core.random_code(k) for k in range(8)]
                assert set(draws) <= set(position.legal_codes())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_records_round_trip_to_the_same_result(players):
    for seed in SEEDS:
        position = random_game(players, seed)
        record = json.loads(json.dumps(position.record()))
        again = Position.from_record(record)
        assert again.result() == position.result()
        assert again.record() == record


@pytest.mark.parametrize("players", [2, 3, 4])
def test_snapshots_round_trip_exactly_at_every_decision(players):
    for position in positions_along(players, 3):
        snap = position.snapshot()
        loaded = Position.from_snapshot(json.loads(json.dumps(snap)))
        assert loaded.snapshot() == snap
        assert sorted(a.canonical() for a in loaded.legal_actions()) == sorted(
            a.canonical() for a in position.legal_actions())
        assert loaded.hash() == position.hash() == position_hash(snap)
        for seat in range(players):  # written without the dict, hashed alike
            assert position.hash(seat) == position_hash(position.observation(seat))


@pytest.mark.parametrize("players", [2, 4])
def test_a_report_names_the_worker_tile_drawn_and_the_display_refill(players):
    """As the snapshots before and after the action tell them."""
    refilled = drawn = 0
    for position in positions_along(players, 5):
        if position.is_over:
            break
        before = position.snapshot()
        report = position.clone().apply(position.legal_actions()[0])
        after = position.clone()
        after.apply(position.legal_actions()[0])
        after_snap = after.snapshot()
        blind = sum(1 for t in report.placed if t.get("blind"))
        dropped = before["jungle_deck_count"] - after_snap["jungle_deck_count"]
        assert report.refill == before["jungle_deck"][blind:dropped]
        pile = before["seats"][before["mover"]]["pile"]
        assert report.drawn == (pile[0] if report.drew else None)
        refilled += bool(report.refill)
        drawn += report.drawn is not None
    assert refilled and drawn
    assert set(report.to_json()) >= {"drew", "drawn", "refill"}


def test_a_clone_is_independent_of_its_source():
    position = Position.new(2, 11)
    before = position.snapshot()
    copy = position.clone()
    copy.apply(copy.legal_actions()[0])
    assert position.snapshot() == before
    assert copy.snapshot() != before


@pytest.mark.parametrize("players", [2, 4])
def test_an_observation_never_reveals_hidden_tiles(players):
    for position in positions_along(players, 5):
        for seat in range(players):
            obs = position.observation(seat)
            assert "jungle_deck" not in obs
            for s, st in enumerate(obs["seats"]):
                assert "pile" not in st
                assert ("hand" in st) == (s == seat)
            # two positions that differ only in hidden parts look the same
            other = Position.from_observation(obs, seed=99)
            assert other.observation(seat) == obs


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_determinization_is_consistent_with_its_observation(players):
    for position in positions_along(players, 8):
        seat = position.to_act if position.to_act is not None else 0
        obs = position.observation(seat)
        full = position.snapshot()
        for seed in range(3):
            det = Position.from_observation(obs, seed).snapshot()
            assert det["board"] == full["board"] and det["display"] == full["display"]
            assert Counter(det["jungle_deck"]) == Counter(full["jungle_deck"])
            assert det["seats"][seat]["hand"] == full["seats"][seat]["hand"]
            for s in range(players):
                assert Counter(det["seats"][s]["hand"] + det["seats"][s]["pile"]) == Counter(
                    full["seats"][s]["hand"] + full["seats"][s]["pile"])
                assert len(det["seats"][s]["hand"]) == len(full["seats"][s]["hand"])


def test_determinization_depends_only_on_the_observation():
    position = Position.new(3, 21)
    for _ in range(9):
        position.apply(position.legal_actions()[0])
    obs = position.observation(1)
    shuffled = position.snapshot()
    shuffled["jungle_deck"] = list(reversed(shuffled["jungle_deck"]))
    for st in shuffled["seats"]:
        st["pile"] = list(reversed(st["pile"]))
    other = Position.from_snapshot(shuffled)
    a = position.core.clone()
    b = other.core.clone()
    a.determinize(1, 0, 5)
    b.determinize(1, 0, 5)
    assert a.deck() == b.deck()
    assert [a.seat(s) for s in range(3)] == [b.seat(s) for s in range(3)]
    assert obs == other.observation(1)


def test_the_same_seed_deals_the_same_game():
    assert random_game(4, 123).record() == random_game(4, 123).record()
    assert random_game(4, 123).record() != random_game(4, 124).record()


def test_an_illegal_action_names_the_reason_and_leaves_the_position_unchanged():
    position = Position.new(2, 4)
    before = position.snapshot()
    seat = position.to_act
    with pytest.raises(IllegalActionError, match="seat"):
        position.apply(Action.place(1 - seat, "1111", 0, 1))
    with pytest.raises(IllegalActionError, match="x/y"):
        position.apply(Action.place(seat, position.legal_actions()[0].tile, 5, 6))
    with pytest.raises(IllegalActionError, match="x/y"):  # off the board's grid
        position.apply(Action.place(seat, position.legal_actions()[0].tile, 40, -50))
    with pytest.raises(IllegalActionError, match="no resolution is pending"):
        position.apply(Action.resolve(seat, 3, 0))
    with pytest.raises(CacaoError, match="unknown field"):
        position.apply({"type": "discard", "seat": seat, "tile": "1111", "extra": 1})
    assert position.snapshot() == before


def test_a_bad_record_reports_the_first_illegal_action():
    record = random_game(2, 2).record()
    record["actions"][5] = dict(record["actions"][5], x=20)
    with pytest.raises(RecordError) as err:
        Position.from_record(record)
    assert err.value.index == 5
    bad = dict(random_game(2, 2).record(), result={"gold": [0, 0], "cacao": [0, 0], "winners": [0, 1]})
    with pytest.raises(RecordError) as err:
        Position.from_record(bad)
    assert err.value.index == len(bad["actions"])
    with pytest.raises(RecordError, match="worker_piles\\[0\\]"):
        Position.from_record(dict(record, worker_piles=[["1111"] * 11, record["worker_piles"][1]]))
    with pytest.raises(RecordError, match="colour: unknown field"):
        Position.from_record(dict(record, colour="red"))


def test_impossible_snapshots_are_rejected_naming_the_field():
    snap = Position.new(2, 1).snapshot()
    cases = [
        (dict(snap, players=5), "players"),
        (dict(snap, seats=[dict(snap["seats"][0], cacao=6), snap["seats"][1]]), r"seats\[0\]\.cacao"),
        (dict(snap, display=["temple"]), "display"),
        (dict(snap, board=snap["board"] + [{"x": 7, "y": 0, "tile": "1111", "seat": 0, "rot": 0}]), "board"),
        (dict(snap, jungle_deck=snap["jungle_deck"][1:]), "jungle_deck"),
        (dict(snap, to_act=1 - snap["to_act"]), "to_act"),
        (dict(snap, board=snap["board"] + [{"x": 40, "y": 1, "tile": "1111", "seat": 0, "rot": 0}]), r"board\[2\]\.x"),
    ]
    for bad, field in cases:
        with pytest.raises(SnapshotError, match=field):
            Position.from_snapshot(bad)


def test_cli_replays_and_lists_legal_actions(tmp_path, capsys):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(random_game(3, 9).record()))
    assert cli_main(["replay", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == random_game(3, 9).result().to_json()
    assert cli_main(["legal", str(path), "--at", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(Position.from_record(json.loads(path.read_text()), upto=4).legal_actions())
    record = json.loads(path.read_text())
    record["actions"][2]["seat"] = 3
    path.write_text(json.dumps(record))
    assert cli_main(["replay", str(path)]) == 1
    assert json.loads(capsys.readouterr().out)["index"] == 2


def test_bench_prints_one_json_object_per_player_count(capsys):
    assert cli_main(["bench", "--games", "200", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["players"] for r in rows] == [2, 3, 4]
    assert all(r["games_per_second"] > 0 and r["actions_per_game"] > 20 for r in rows)


def test_impossible_boards_name_the_cell_and_tile_at_fault():
    snap = Position.new(2, 1).snapshot()
    board = snap["board"]
    cases = [
        (dict(snap, board=board + [{"x": 9, "y": 0, "tile": "1111", "seat": 0, "rot": 0}]),
         "board", "the worker tile at (9,0) touches no jungle tile"),
        (dict(snap, board=board + [{"x": 2, "y": 2, "tile": "temple"}]),
         "board", "the jungle tile at (2,2) has fewer than 2 worker tiles around it"),
        (dict(snap, board=board[:1]), "board", "the start tile market-2 must lie at (1, 1)"),
        (dict(snap, display=["market-4", "market-4"]),
         "board", "more market-4 tiles on the board and display than the game has"),
    ]
    for bad, field, reason in cases:
        with pytest.raises(SnapshotError) as info:
            Position.from_snapshot(bad)
        assert (info.value.field, info.value.reason) == (field, reason)
