"""The rules' facts the engine gives clients (cacaoai.engine.rules), the
temples and scores a position reports, and the one seed derivation."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from reference import temple_awards
from test_engine_api import positions_along

from cacaoai.engine import (
    DIRECTIONS,
    JUNGLE_COUNTS,
    JUNGLE_TILES,
    MAX_CACAO,
    MAX_SUN,
    START_TILES,
    TEMPLE_AWARDS,
    WATER_TRACK,
    WORKER_COUNTS,
    WORKER_TILES,
    Position,
    Score,
    Temple,
    derive_seed,
    faces,
    rules,
)

# --- rules facts ---------------------------------------------------------------

def test_the_facts_are_those_of_the_rules():
    assert WORKER_TILES == ("1111", "2101", "3001", "3100")
    assert JUNGLE_TILES == ("plantation-1", "plantation-2", "market-2", "market-3", "market-4",
                            "gold-1", "gold-2", "water", "sun", "temple")
    assert DIRECTIONS == ((0, -1), (1, 0), (0, 1), (-1, 0))
    assert WATER_TRACK == (-10, -4, -1, 0, 2, 4, 7, 11, 16)
    assert (MAX_CACAO, MAX_SUN, rules.HAND_SIZE, rules.MAX_WATER) == (5, 3, 3, 8)
    assert TEMPLE_AWARDS == (6, 3)
    assert START_TILES == {(0, 0): "plantation-1", (1, 1): "market-2"}
    assert {n: sum(c.values()) for n, c in WORKER_COUNTS.items()} == {2: 11, 3: 10, 4: 9}
    assert {n: sum(c.values()) for n, c in JUNGLE_COUNTS.items()} == {2: 19, 3: 26, 4: 26}
    # the 2-player game leaves 7 jungle tiles in the box
    assert Counter(JUNGLE_COUNTS[3]) - Counter(JUNGLE_COUNTS[2]) == Counter(
        {"plantation-1": 2, "market-3": 1, "gold-1": 1, "water": 1, "sun": 1, "temple": 1})


def test_a_worker_tile_is_named_by_its_faces_and_turns_clockwise():
    for tile in WORKER_TILES:
        assert "".join(map(str, faces(tile, 0))) == tile
        for rot in range(4):
            assert faces(tile, rot) == tuple(faces(tile, 0)[(d - rot) % 4] for d in range(4))
    assert faces("3100", 1) == (0, 3, 1, 0)
    with pytest.raises(ValueError):
        faces("2100", 0)
    with pytest.raises(ValueError):
        faces("2101", 4)


def test_temple_awards_share_first_and_second_place():
    assert [rules.temple_award(0, tied) for tied in (1, 2, 3, 4)] == [6, 3, 2, 1]
    assert [rules.temple_award(1, tied) for tied in (1, 2, 3)] == [3, 1, 1]
    assert rules.temple_award(2, 1) == 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_deal_holds_exactly_the_counted_tiles(players):
    for seed in range(5):
        position = Position.new(players, seed)
        record = position.record()
        for pile in record["worker_piles"]:
            assert Counter(pile) == rules.seat_tiles(players)
        assert Counter(record["jungle_deck"]) == rules.deck_tiles(players)
        board = {(t["x"], t["y"]): t["tile"] for t in position.snapshot()["board"]}
        assert board == START_TILES


def test_the_facts_travel_as_json():
    facts = json.loads(json.dumps(rules.facts()))
    assert [w["tile"] for w in facts["worker_tiles"]] == list(WORKER_TILES)
    assert facts["worker_tiles"][1] == {"tile": "2101", "faces": [2, 1, 0, 1], "rotations": 4}
    assert facts["jungle_counts"]["2"] == JUNGLE_COUNTS[2]
    assert facts["water_track"] == list(WATER_TRACK)
    assert facts["start_tiles"] == [{"x": 0, "y": 0, "tile": "plantation-1"},
                                    {"x": 1, "y": 1, "tile": "market-2"}]


# --- temples and scores of a position --------------------------------------------

def temples_read_from_the_board(snapshot: dict) -> list[Temple]:
    """Temples as a reader of the snapshot's board counts them: the side of each
    neighbouring top worker tile that faces the temple, summed per seat."""
    board = {(t["x"], t["y"]): t for t in snapshot["board"]}
    n = snapshot["players"]
    out = []
    for (x, y), tile in sorted(board.items()):
        if tile["tile"] != "temple":
            continue
        workers = [0] * n
        for d, (dx, dy) in enumerate(DIRECTIONS):
            near = board.get((x + dx, y + dy))
            if near is not None and "seat" in near:
                workers[near["seat"]] += faces(near["tile"], near["rot"])[(d + 2) % 4]
        awards = temple_awards(dict(enumerate(workers)))
        out.append(Temple(x, y, tuple(workers), tuple(awards.get(s, 0) for s in range(n))))
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_temples_are_those_a_reader_of_the_board_counts(players):
    seen = 0
    for seed in range(6):
        for position in positions_along(players, seed):
            temples = position.temples()
            assert temples == temples_read_from_the_board(position.snapshot())
            seen += len(temples)
    assert seen > 0


def test_a_loaded_copy_reports_the_same_temples():
    position = Position.new(3, 4)
    position.core.playout(9)
    loaded = Position.from_snapshot(position.snapshot())
    assert loaded.temples() == position.temples() and position.temples()
    assert position.temples()[0].to_json().keys() == {"x", "y", "workers", "awards"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_scores_add_up_and_end_as_the_final_gold(players):
    for seed in range(200):
        position = Position.new(players, seed)
        position.core.playout(derive_seed(seed, 1))
        result = position.result()
        assert result is not None
        assert [s.total for s in position.scores()] == result.gold


@pytest.mark.parametrize("players", [2, 3, 4])
def test_scores_are_made_of_the_seats_and_the_temples(players):
    for position in positions_along(players, 7):
        snap = position.snapshot()
        awards = [sum(t.awards[s] for t in position.temples()) for s in range(players)]
        scores = position.scores()
        assert scores == [Score(gold=seat["gold"], temples=awards[s], sun=seat["sun"],
                                water=WATER_TRACK[seat["water"]],
                                total=seat["gold"] + awards[s] + seat["sun"] + WATER_TRACK[seat["water"]])
                          for s, seat in enumerate(snap["seats"])]
        assert set(scores[0].to_json()) == {"gold", "temples", "sun", "water", "total"}


# --- seeds ---------------------------------------------------------------------

def test_derive_seed_is_the_fixed_formula():
    assert derive_seed(0, 0) == 0
    assert derive_seed(5, 3) == 5 * 7919 + 3
    assert derive_seed(2**64 - 1, 2) == ((2**64 - 1) * 7919 + 2) % 2**64
    for seed, index in ((1, 2), (123456789, 17), (2**63 + 5, 0), (2**64 - 1, 2**64 - 1)):
        derived = derive_seed(seed, index)
        assert derived == (seed * 7919 + index) % 2**64
        assert 0 <= derived < 2**64
