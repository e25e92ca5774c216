"""Seeded random games: the engine and the pure-Python reference agree at every decision."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import RefGame, canonical, random_header
from reference.cacao_ref import WORKER_ORDER

engine = pytest.importorskip("cacaoai.engine")
Position = engine.Position


def forms(actions):
    return sorted(canonical(a) for a in actions)


def public_seat(seat):
    """The fields of a snapshot seat that the reference also tracks."""
    return {k: seat[k] for k in ("gold", "cacao", "sun", "water", "hand", "pile", "discarded")}


def ref_seat(seat):
    return {"gold": seat.gold, "cacao": seat.cacao, "sun": seat.sun, "water": seat.water,
            "hand": sorted(seat.hand, key=WORKER_ORDER.index), "pile": list(seat.pile),
            "discarded": list(seat.discarded)}


def hole_seeking(ref, actions, rng):
    """Mostly the placements that close the most holes: more fills, empty holes, blind draws."""
    def holes(a):
        return len(ref.cells_to_fill((a["x"], a["y"]))) if a["type"] == "place" else -1
    if rng.random() < 0.7:
        best = max(holes(a) for a in actions)
        actions = [a for a in actions if holes(a) == best]
    return rng.choice(actions)


def play_both(header, rng, check_state=True, policy=None):
    """Play random actions on the engine and the reference; assert they agree throughout.

    ``policy(ref, actions, rng)`` picks an action (default: uniformly at random).
    Returns the engine position at the end of the game.
    """
    pos = Position.from_record(header)
    ref = RefGame.from_record_header(header)
    step = 0
    while not ref.is_over():
        assert not pos.is_over, f"engine ended early at step {step}"
        assert pos.to_act == ref.to_act(), f"seat to act at step {step}"
        ours = forms(a.to_json() for a in pos.legal_actions())
        theirs = forms(ref.legal_actions())
        assert ours == theirs, f"legal actions differ at step {step}"
        choices = [json.loads(a) for a in theirs]
        action = policy(ref, choices, rng) if policy else rng.choice(choices)
        pos.apply(action)
        ref.apply(action)
        if check_state:
            snap = pos.snapshot()
            assert [public_seat(s) for s in snap["seats"]] == [ref_seat(s) for s in ref.seats], \
                f"seats differ after step {step}: {canonical(action)}"
        step += 1
    assert pos.is_over and pos.legal_actions() == []
    r = pos.result()
    assert {"gold": list(r.gold), "cacao": list(r.cacao), "winners": list(r.winners)} == ref.result()
    return pos


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(12))
def test_random_games_agree_with_the_reference_at_every_decision(players, seed):
    rng = random.Random(1000 * players + seed)
    header = random_header(players, rng)
    pos = play_both(header, rng)
    record = pos.record()
    assert {k: record[k] for k in header if k != "actions"} == {k: header[k] for k in header if k != "actions"}
    assert Position.from_record(record).record() == record


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(5))
def test_hole_seeking_games_agree_with_the_reference(players, seed):
    rng = random.Random(5000 * players + seed)
    play_both(random_header(players, rng), rng, policy=hole_seeking)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_games_dealt_by_the_engine_agree_with_the_reference(players):
    for seed in range(3):
        header = Position.new(players=players, seed=seed).record()
        assert header["actions"] == []
        play_both(header, random.Random(seed), check_state=False)


def test_the_same_seed_deals_the_same_game():
    assert Position.new(players=3, seed=11).record() == Position.new(players=3, seed=11).record()
    assert Position.new(players=3, seed=11).record() != Position.new(players=3, seed=12).record()


@settings(max_examples=25, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32 - 1))
def test_any_seeded_game_agrees_with_the_reference(players, seed):
    rng = random.Random(seed)
    play_both(random_header(players, rng), rng, check_state=False)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_clone_is_independent_and_snapshots_round_trip_in_random_games(players):
    rng = random.Random(77 + players)
    pos = Position.from_record(random_header(players, rng))
    while not pos.is_over:
        snap = pos.snapshot()
        assert Position.from_snapshot(snap).snapshot() == snap
        ref = RefGame.from_snapshot(snap)
        assert forms(a.to_json() for a in pos.legal_actions()) == forms(ref.legal_actions())
        twin = pos.clone()
        action = rng.choice(pos.legal_actions())
        twin.apply(action)
        assert pos.snapshot() == snap, "applying to a clone changed the original"
        pos.apply(action)
        assert pos.snapshot() == twin.snapshot()
