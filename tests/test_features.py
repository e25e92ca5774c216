"""The features of a learned evaluation (cacaoai.engine.features): their names,
their range, that they never read what the viewing seat cannot see, that seat
blocks are seat-relative, and their values on positions where they are known."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_engine_api import positions_along

from cacaoai.engine import (
    ACTION_FEATURES,
    FEATURES_VERSION,
    N_ACTION_FEATURES,
    N_FEATURES,
    POSITION_FEATURES,
    Action,
    CacaoError,
    Fill,
    IllegalActionError,
    Position,
    core,
    features,
)
from cacaoai.engine.cli import random_game

SEAT_BLOCK = sum(1 for name in POSITION_FEATURES if name.startswith("s0:"))
FIRST_SEAT = POSITION_FEATURES.index("s0:present")
# features that may leave [0, 1]: a lead and the changes an action makes
SIGNED = {"s0:lead", "s1:lead", "s2:lead", "s3:lead", "cacao_change", "sun_change", "temple_change",
          "value_change"}


def sampled_positions(players: int, seeds: range, every: int = 1):
    """Decision points of seeded random games, every `every`-th one."""
    for seed in seeds:
        for i, position in enumerate(positions_along(players, seed)):
            if i % every == 0:
                yield position


def block(values: np.ndarray, rel: int) -> np.ndarray:
    """The seat block `rel` places after the viewer's own."""
    start = FIRST_SEAT + rel * SEAT_BLOCK
    return values[start:start + SEAT_BLOCK]


def named(values: np.ndarray) -> dict[str, float]:
    return features.named(values)


# --- names and shapes -----------------------------------------------------------

def test_every_feature_has_one_name_in_the_order_the_core_writes_them():
    assert len(POSITION_FEATURES) == N_FEATURES == len(set(POSITION_FEATURES))
    assert len(ACTION_FEATURES) == N_ACTION_FEATURES == len(set(ACTION_FEATURES))
    assert 60 <= N_FEATURES <= 150 and 10 <= N_ACTION_FEATURES <= 30
    assert isinstance(FEATURES_VERSION, int) and FEATURES_VERSION >= 1
    assert features.FEATURES_VERSION == FEATURES_VERSION == core.feature_layout()[0]
    # four seat blocks of the same names, the viewer's first, after the global block
    seats = [[n.split(":", 1)[1] for n in POSITION_FEATURES if n.startswith(f"s{i}:")] for i in range(4)]
    assert seats[0] == seats[1] == seats[2] == seats[3]
    assert POSITION_FEATURES[FIRST_SEAT:] == tuple(f"s{i}:{n}" for i in range(4) for n in seats[0])


def test_features_are_float32_arrays_of_the_named_length():
    position = Position.new(players=3, seed=4)
    values = position.features(0)
    assert values.dtype == np.float32 and values.shape == (N_FEATURES,)
    codes = position.legal_codes()
    acts = position.action_features(position.to_act, codes)
    assert acts.dtype == np.float32 and acts.shape == (len(codes), N_ACTION_FEATURES)
    assert position.action_features(0, []).shape == (0, N_ACTION_FEATURES)
    assert list(named(values)) == list(POSITION_FEATURES)
    assert list(features.named(acts[0])) == list(ACTION_FEATURES)
    with pytest.raises(ValueError):
        features.named(values[:-1])


def test_a_seat_must_exist_and_codes_must_be_legal_here():
    position = Position.new(players=2, seed=1)
    for seat in (2, -1, True, "0"):
        with pytest.raises(CacaoError, match="seat"):
            position.features(seat)  # type: ignore[arg-type]
        with pytest.raises(CacaoError, match="seat"):
            position.action_features(seat, [])  # type: ignore[arg-type]
    legal = position.legal_codes()
    with pytest.raises(IllegalActionError, match=r"codes\[1\]"):
        position.action_features(0, [legal[0], 0xFFFFFFFF])
    with pytest.raises(CacaoError, match=r"codes\[0\]"):
        position.action_features(0, [float(legal[0])])  # type: ignore[list-item]
    with pytest.raises(CacaoError, match=r"codes\[0\]"):
        position.action_features(0, [True])


def test_computing_features_leaves_the_position_as_it_was():
    for position in sampled_positions(3, range(2), every=5):
        before = position.snapshot()
        for seat in range(3):
            position.features(seat)
        if not position.is_over:
            position.action_features(position.to_act, position.legal_codes())
        assert position.snapshot() == before


# --- range -------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_values_are_finite_and_about_zero_to_one(players):
    for position in sampled_positions(players, range(6)):
        for seat in range(players):
            values = position.features(seat)
            assert np.isfinite(values).all()
            for name, v in named(values).items():
                lo = -1.5 if name in SIGNED else 0.0
                assert lo <= v <= 1.5, (name, v)
            # the blocks of seats this game does not have are zeros
            for rel in range(players, 4):
                assert not block(values, rel).any()
            assert all(block(values, rel)[0] == 1 for rel in range(players))
        if position.is_over:
            continue
        acts = position.action_features(position.to_act, position.legal_codes())
        assert np.isfinite(acts).all()
        for row in acts:
            for name, v in features.named(row).items():
                lo = -1.5 if name in SIGNED else 0.0
                assert lo <= v <= 1.5, (name, v)
            assert row[:4].sum() == 1               # one kind


# --- never peek --------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_determinization_of_a_seats_observation_gives_the_same_features(players):
    """What the seat cannot see (the deck order, the pile orders, the other
    hands) is drawn again in each determinization; the features do not move."""
    for position in sampled_positions(players, range(3), every=2):
        codes = position.legal_codes()
        for seat in range(players):
            seen = position.observation(seat)
            want = position.features(seat)
            acts = position.action_features(seat, codes) if codes else None
            for k in range(4):
                guess = Position.from_observation(seen, seed=k)
                assert np.array_equal(guess.features(seat), want)
                if acts is None:
                    continue
                if seat == position.to_act:
                    # the seat knows its own hand: its codes are legal in every guess
                    assert guess.legal_codes() == codes
                    assert np.array_equal(guess.action_features(seat, codes), acts)
                else:
                    # another seat's hand is guessed: the codes legal in both agree
                    shared = [i for i, c in enumerate(codes) if c in set(guess.legal_codes())]
                    assert np.array_equal(guess.action_features(seat, [codes[i] for i in shared]), acts[shared])


def test_a_blind_draw_is_never_read_from_the_deck():
    """A placement that closes more cells than the display holds takes the top
    of the deck blind (docs/rules.md's blind draw: 4 players, seed 394, action
    26): its features are the same whatever tile is on top."""
    record = random_game(4, 394).record()
    position = Position.from_record(record, upto=26)
    played = position.encode(Action.from_json(record["actions"][26]))
    codes = position.legal_codes()
    acts = position.action_features(position.to_act, codes)
    blind = [i for i, row in enumerate(acts) if features.named(row)["blind_fills"]]
    assert codes.index(played) in blind
    f = features.named(acts[codes.index(played)])
    assert (f["closes"], f["display_fills"], f["blind_fills"]) == (1, 1, 1)
    seen = position.observation(position.to_act)
    tops = set()
    for k in range(8):
        guess = Position.from_observation(seen, seed=k)
        tops.add(guess.core.deck()[0])
        assert np.array_equal(guess.action_features(position.to_act, codes), acts)
        assert np.array_equal(guess.features(position.to_act), position.features(position.to_act))
    assert len(tops) == 2                           # water or market-4: both were drawn on top


# --- seat-relative -----------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_viewer_sees_its_own_block_first_and_the_others_in_seat_order(players):
    for position in sampled_positions(players, range(3), every=3):
        views = [position.features(v) for v in range(players)]
        for v in range(players):
            for rel in range(players):
                # a seat's block holds public facts only: every viewer sees it alike
                assert np.array_equal(block(views[v], rel), block(views[(v + rel) % players], 0))
            values = named(views[v])
            assert values[f"mover:s{(position.mover - v) % players}"] == 1
            if not position.is_over:
                assert values[f"to_act:s{(position.to_act - v) % players}"] == 1
            hand = position.core.seat(v)["hand"]
            assert [round(values[f"hand:{t}"] * 3) for t in ("1111", "2101", "3001", "3100")] == hand
            # the global block, but for the seat-relative one-hots and the hand, is the same for all
            others = [n for n in POSITION_FEATURES[:FIRST_SEAT] if not n.startswith(("to_act:", "mover:", "hand:"))]
            assert [values[n] for n in others] == [named(views[0])[n] for n in others]


# --- known values ----------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_seat_figures_agree_with_the_engines_scores_and_temples(players):
    for position in sampled_positions(players, range(3), every=2):
        scores = position.scores()
        temples = position.temples()
        viewer = position.turn % players
        values = position.features(viewer)
        best = [max(scores[o].total for o in range(players) if o != s) for s in range(players)]
        for rel in range(players):
            s = (viewer + rel) % players
            seat = position.core.seat(s)
            got = {n.split(":", 1)[1]: v for n, v in named(values).items() if n.startswith(f"s{rel}:")}
            assert round(got["gold"] * 64) == seat["gold"]
            assert round(got["cacao"] * 5) == seat["cacao"]
            assert round(got["sun"] * 3) == seat["sun"]
            assert round(got["water"] * 8) == seat["water"]
            assert round(got["score"] * 80) - 10 == scores[s].total
            assert round(got["lead"] * 40) == scores[s].total - best[s]
            assert round((got["temple_closed"] + got["temple_open"]) * 30) == scores[s].temples
            assert round(got["temples_first"] * 5) == sum(
                1 for t in temples if t.workers[s] and t.workers[s] == max(t.workers))
            assert round(got["tiles_left"] * 11) == sum(seat["hand"]) + len(seat["pile"])
            left = [h + seat["pile"].count(t) for t, h in enumerate(seat["hand"])]
            assert [round(got[f"unplaced:{t}"] * m) for t, m in zip(("1111", "2101", "3001", "3100"),
                                                                     (4, 5, 1, 1))] == left
            pending = [max(g for g, _ in results) for p, results in position.core.pending() if p == s]
            assert round(got["pending_gold"] * 20) == (pending[0] if pending else 0)
        deck = position.core.deck()
        for k, name in enumerate(("plantation-1", "plantation-2", "market-2", "market-3", "market-4",
                                  "gold-1", "gold-2", "water", "sun", "temple"), start=1):
            most = (5, 2, 1, 4, 1, 2, 1, 3, 2, 5)[k - 1]
            assert round(named(values)[f"unseen:{name}"] * most) == deck.count(k)
            assert round(named(values)[f"display:{name}"] * 2) == position.core.display().count(k)


def hand_built() -> Position:
    """Two players, seat 0 to move. Seat 0's 3001 on (0,1) turned twice turns 3
    workers to a temple on (0,2) and 1 to the start market-2; seat 1's 2101 on
    (1,2) turned 3 times turns 2 to the temple and 1 to the market, and 1
    worker (its S side) to the empty cell (1,3): a hole."""
    return Position.from_snapshot({
        "format": "cacao-position/1", "players": 2, "first_player": 0, "turn": 2, "mover": 0,
        "phase": "turn", "to_act": 0,
        "board": [{"x": 0, "y": 0, "tile": "plantation-1"}, {"x": 1, "y": 1, "tile": "market-2"},
                  {"x": 0, "y": 2, "tile": "temple"},
                  {"x": 0, "y": 1, "tile": "3001", "seat": 0, "rot": 2},
                  {"x": 1, "y": 2, "tile": "2101", "seat": 1, "rot": 3}],
        "display": ["water", "sun"],
        "jungle_deck": ["plantation-1"] * 3 + ["plantation-2"] * 2 + ["market-2"] + ["market-3"] * 3
        + ["market-4", "gold-1", "gold-2", "water"] + ["temple"] * 3,
        "jungle_deck_count": 16,
        "seats": [
            {"gold": 12, "cacao": 3, "sun": 2, "water": 5, "hand": ["1111", "2101", "2101"], "hand_count": 3,
             "pile": ["1111"] * 3 + ["2101"] * 3 + ["3100"], "pile_count": 7, "discarded": []},
            {"gold": 4, "cacao": 0, "sun": 0, "water": 1, "hand": ["1111", "1111", "3001"], "hand_count": 3,
             "pile": ["1111"] * 2 + ["2101"] * 4 + ["3100"], "pile_count": 7, "discarded": []},
        ],
        "pending": [],
    }, reachable=False)


def test_a_hand_built_position_gives_the_features_worked_out_by_hand():
    position = hand_built()
    v = named(position.features(0))
    expect = {
        "players:2": 1, "phase:turn": 1, "progress": 2 / 22, "to_act:s0": 1, "mover:s0": 1,
        "display:water": 0.5, "display:sun": 0.5, "deck": 16 / 26,
        "unseen:temple": 3 / 5, "unseen:water": 1 / 3, "unseen:plantation-1": 3 / 5,
        "hand:1111": 1 / 3, "hand:2101": 2 / 3, "hand:3001": 0,
        "temples": 1 / 5, "open_temples": 1 / 5,
        # placement cells: (0,-1), (1,0) beside no hole; (-1,0), (2,1), (-1,2), (0,3) beside one
        "places:holes0": 2 / 32, "places:holes1": 4 / 32,
        # (placement cell, jungle tile) pairs: 3 at the plantation, 2 at the market, 2 at the temple
        "next_to:plantation": 3 / 16, "next_to:market": 2 / 16, "next_to:temple": 2 / 16,
        # seat 0: 12 gold, 2 sun, water space 5 (4 gold), the temple alone first (6): 24
        "s0:gold": 12 / 64, "s0:cacao": 3 / 5, "s0:sun": 2 / 3, "s0:water": 5 / 8,
        "s0:water_next": (7 - 4) / 6, "s0:score": (24 + 10) / 80, "s0:lead": (24 - 3) / 40,
        "s0:temple_open": 6 / 30, "s0:temple_closed": 0, "s0:temples_first": 1 / 5, "s0:temple_chances": 0,
        "s0:tiles_left": 10 / 11, "s0:unplaced:3001": 0, "s0:unplaced:2101": 1, "s0:hole_workers": 0,
        # seat 1: 4 gold, water space 1 (-4), second at the temple (3): 3
        "s1:score": (3 + 10) / 80, "s1:lead": (3 - 24) / 40, "s1:temple_open": 3 / 30,
        "s1:temples_first": 0, "s1:temple_chances": 1 / 5, "s1:unplaced:2101": 4 / 5,
        # one worker faces a hole; 18 tiles are left, 7 cacao and 3 temples among them
        "s1:hole_workers": 1 / 12, "s1:hole_cacao": 7 / 18 / 6, "s1:hole_temple": 3 / 18 / 3,
        "s1:hole_water": 2 / 18 / 3, "s1:hole_market": (2 + 9 + 4) / 18 / 12, "s1:hole_gold": 3 / 18 / 6,
        "s2:present": 0, "s3:score": 0,
    }
    for name, want in expect.items():
        assert v[name] == pytest.approx(want, abs=1e-6), name


def test_an_action_gives_the_features_worked_out_by_hand():
    """Seat 0 lays a 1111 on (-1,2) and fills the hole on (-1,1) with the
    display's water: its N worker steps its water carrier (space 5 to 6: +3
    gold), its E worker joins the temple (no change: it leads already), and
    its S and W workers face empty cells that become holes."""
    position = hand_built()
    code = position.encode(Action.place(0, "1111", -1, 2, 0, [Fill(-1, 1, "water")]))
    got = features.named(position.action_features(0, [code])[0])
    expect = {
        "kind:place": 1, "tile:1111": 1, "gold": 0, "cacao": 3 / 5, "cacao_change": 0,
        "water_gold": 3 / 16, "sun_change": 0, "temple_change": 0, "value_change": 3 / 20,
        "jungle_workers": 1 / 4, "closes": 1 / 3, "display_fills": 1 / 2, "blind_fills": 0,
        "own_near_closed": 0, "others_near_closed": 0, "new_hole_workers": 2 / 4, "temple_workers": 1 / 4,
        "results": 1 / 6,
    }
    assert {k: v for k, v in got.items() if k not in expect and v} == {}
    for name, want in expect.items():
        assert got[name] == pytest.approx(want, abs=1e-6), name
    # seat 0's 2101 turned twice on (1,0) takes a cacao at the plantation (3 to
    # 4) and may sell 2 at the market-2: results (4, 2), (2, 3), (0, 4); the
    # most gold + 0.5 x cacao sells both. Any seat asking gets the same.
    code = position.encode(Action.place(0, "2101", 1, 0, 2))
    for seat in (0, 1):
        got = features.named(position.action_features(seat, [code])[0])
        assert got["gold"] == pytest.approx(4 / 20) and got["cacao_change"] == pytest.approx(-1 / 5)
        assert got["results"] == pytest.approx(3 / 6) and got["value_change"] == pytest.approx(3.5 / 20)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_an_actions_gains_are_what_applying_it_gives_the_actor(players):
    """Without a blind draw, the gains an action's features preview are what
    applying it gives the seat that takes it, its resolution chosen as the
    greedy one-step value chooses (most gold + 0.5 x cacao)."""
    for position in sampled_positions(players, range(2), every=3):
        if position.is_over:
            continue
        seat = position.to_act
        codes = position.legal_codes()
        rows = position.action_features(seat, codes)
        before = position.core.seat(seat)
        awards = position.scores()[seat].temples
        for code, row in zip(codes, rows):
            f = features.named(row)
            if f["blind_fills"]:
                continue
            after = position.clone()
            after.apply(code)
            if after.phase == "resolve" and after.to_act == seat and code & 3 != 3:
                results = after.core.pending()[0][1]
                gold, cacao = max(results, key=lambda r: (r[0] + 0.5 * r[1], -r[1]))
                after.apply(Action.resolve(seat, gold, cacao))
            now = after.core.seat(seat)
            assert round(f["gold"] * 20) == now["gold"] - before["gold"]
            assert round(f["cacao"] * 5) == now["cacao"]
            assert round(f["cacao_change"] * 5) == now["cacao"] - before["cacao"]
            assert round(f["sun_change"] * 3) == now["sun"] - before["sun"]
            water = after.scores()[seat].water - position.scores()[seat].water
            assert round(f["water_gold"] * 16) == water
            assert round(f["temple_change"] * 12) == after.scores()[seat].temples - awards
            value = (now["gold"] - before["gold"] + water + now["sun"] - before["sun"]
                     + 0.5 * (now["cacao"] - before["cacao"]) + 0.5 * (after.scores()[seat].temples - awards))
            assert f["value_change"] * 20 == pytest.approx(value, abs=1e-4)


def test_the_benchmark_runs():
    position_ns, action_ns = core.bench_features(2, 1000, 1)
    assert position_ns > 0 and action_ns > 0


def test_features_of_random_games_can_be_stacked_for_training():
    """A use as self-play would make of them: one row per decision, the seat to act viewing."""
    rng = random.Random(3)
    rows = []
    position = Position.new(players=4, seed=3)
    while not position.is_over:
        rows.append(position.features(position.to_act))
        position.apply(rng.choice(position.legal_codes()))
    table = np.stack(rows)
    assert table.shape == (len(rows), N_FEATURES) and table.dtype == np.float32
    assert (table[:, POSITION_FEATURES.index("to_act:s0")] == 1).all()
