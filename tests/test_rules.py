"""Each rule of docs/rules.md on small hand-built positions (cacao-position/1 snapshots).

Early-game positions come from ``opening`` (a record header with chosen hands
and deck top); later ones from ``make_position``, which completes the few tiles a
test is about into a position the engine accepts (see "building positions").
Expected values are worked out by hand in the comments; every built position is
also checked against the pure-Python reference in ``tests/reference``.
"""

from collections import Counter

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from reference import RefGame, canonical, resolution_results, temple_awards
from reference.cacao_ref import (
    DIRECTIONS,
    JUNGLE_COUNTS,
    JUNGLE_KINDS,
    TWO_PLAYER_REMOVED,
    WORKER_COUNTS,
    WORKER_ORDER,
    WORKER_SIDES,
)

engine = pytest.importorskip("cacaoai.engine")
Position = engine.Position
IllegalActionError = engine.IllegalActionError

N, E, S, W = range(4)

# --- building positions -----------------------------------------------------------
#
# The engine only loads positions that a game could have reached: the turn count
# fixes how many tiles each seat has placed and holds, the deck holds exactly the
# jungle tiles not on the board or display, and every jungle tile (but the start
# tiles) has at least 2 worker neighbours. ``make_position`` takes the few tiles a
# test is about and adds a "filler" far away (rows at y = 19..21 and y = -20) that
# makes the accounting work: a chain of jungle tiles with workers around them, and
# (for final scoring) left-over temples flanked by workers whose empty sides face
# them, so that they score nothing. Workers given with seat None ("supports") are given a seat by the builder.


def J(x, y, kind):
    """A jungle tile on the board."""
    return {"x": x, "y": y, "tile": kind}


def T(x, y, tile=None, seat=None, rot=0, covers=None):
    """A worker tile; ``covers`` = (tile, rot) underneath an overbuild; seat None = any seat."""
    entry = {"x": x, "y": y, "tile": tile, "seat": seat, "rot": rot}
    if covers:
        entry["covers"] = {"tile": covers[0], "rot": covers[1]}
    return entry


def facing(tile, workers, direction):
    """The rotation of ``tile`` that turns a side with ``workers`` workers to ``direction``."""
    side = WORKER_SIDES[tile].index(workers)
    return (direction - side) % 4


def cross(cx, cy, n=None, e=None, s=None, w=None, occupied=False):
    """Jungle tiles around the cell (cx, cy) (temples where None), plus the worker
    tiles on the diagonal corners that every such jungle tile needs (2 corners when
    (cx, cy) itself holds a worker tile)."""
    tiles = []
    for d, kind in enumerate((n, e, s, w)):
        dx, dy = DIRECTIONS[d]
        tiles.append(J(cx + dx, cy + dy, kind or "temple"))
    corners = [(-1, -1), (1, 1)] if occupied else [(-1, -1), (1, -1), (-1, 1), (1, 1)]
    return tiles + [T(cx + dx, cy + dy) for dx, dy in corners]


def full_jungle(players):
    """All jungle tiles of a game, the two start tiles included."""
    deck = Counter(JUNGLE_COUNTS)
    if players == 2:
        deck.subtract(TWO_PLAYER_REMOVED)
    return +deck


ZERO_SIDED = ("2101", "3001", "3100")


def _plan_seats(players, mover, turn, fixed, spec):
    """Per seat for ``turn`` completed turns: free slots for filler tiles, or None."""
    total = sum(WORKER_COUNTS[players].values())
    first = (mover - turn) % players
    plans = []
    for s in range(players):
        done = sum(1 for i in range(turn) if (first + i) % players == s)
        hand_size = min(total, 3 + done) - done
        pile_size = total - min(total, 3 + done)
        sp = spec[s]
        if len(sp["hand"]) > hand_size or (sp["hand_exact"] and len(sp["hand"]) != hand_size):
            return None
        if len(sp["pile"]) > pile_size:
            return None
        free = done - sum(fixed[s].values()) - len(sp["discarded"])
        if free < 0:
            return None
        avail = Counter(WORKER_COUNTS[players])
        avail.subtract(fixed[s] + Counter(sp["hand"] + sp["pile"] + sp["discarded"]))
        assert min(avail.values()) >= 0, f"seat {s} has more tiles than the game gives it"
        plans.append({"free": free, "avail": avail, "first": first})
    return plans


def _take(plans, wanted_types):
    """A (seat, type) with a free slot and a tile of one of ``wanted_types``, or None."""
    for plan_seat in sorted(range(len(plans)), key=lambda s: -plans[s]["free"]):
        plan = plans[plan_seat]
        if plan["free"] <= 0:
            continue
        for tile in wanted_types:
            if plan["avail"][tile] > 0:
                plan["free"] -= 1
                plan["avail"][tile] -= 1
                return plan_seat, tile
    return None


def _filler(players, plans, supports, rest, deck_empty, sealed, quiet_temples):
    """Assign supports and lay out the filler, or None if this turn count cannot work."""
    placed_supports = []
    for t in supports:
        got = _take(plans, [t["tile"]] if t["tile"] else WORKER_ORDER)
        if got is None:
            return None
        placed_supports.append(dict(t, seat=got[0], tile=got[1]))
    workers = sum(p["free"] for p in plans)
    temples = rest["temple"] if deck_empty and quiet_temples else 0
    others = sorted((rest - Counter({"temple": temples})).elements(), key=JUNGLE_KINDS.index)
    if not deck_empty:  # temples stay in the deck
        others = [k for k in others if k != "temple"]
    chain_workers = workers - 2 * temples
    if deck_empty:
        chain = others
    elif chain_workers == 0:
        chain = []
    elif sealed:
        if (chain_workers - 1) % 3:
            return None
        chain = others[:(chain_workers - 1) // 3]
    else:
        chain = others[:max(1, -(-(chain_workers - 1) // 3))]
    m = len(chain)
    if not (m == chain_workers == 0 or (m >= 1 and m + 1 <= chain_workers <= 3 * m + 1)):
        return None
    if sealed and chain_workers != 3 * m + 1:
        return None
    tiles = []
    for j in range(temples):  # a temple flanked by empty sides
        x = -24 + 4 * j
        tiles.append(J(x, -20, "temple"))
        for dx, d in ((-1, E), (1, W)):
            got = _take(plans, ZERO_SIDED)
            if got is None:
                return None
            tiles.append(T(x + dx, -20, got[1], got[0], facing(got[1], 0, d)))
    spots = [(-27 + 2 * i, 20) for i in range(m + 1)]
    spots += [(-26 + 2 * i, 19) for i in range(m)] + [(-26 + 2 * i, 21) for i in range(m)]
    for i, kind in enumerate(chain):
        tiles.append(J(-26 + 2 * i, 20, kind))
    for x, y in spots[:chain_workers]:
        got = _take(plans, WORKER_ORDER)
        if got is None:
            return None
        tiles.append(T(x, y, got[1], got[0], 0))
    return placed_supports + tiles, Counter(chain)


def make_position(*tiles, players=4, mover=0, seats=None, display=None, deck=(),
                  deck_empty=False, sealed=False, quiet_temples=False):
    """A Position (from a cacao-position/1 snapshot) holding the start tiles and ``tiles``.

    Args:
        seats: per seat overrides: gold, cacao, sun, water; ``hand`` (tiles the hand
            must hold; ``hand_exact`` to make it the whole hand), ``pile`` (the top of
            the draw pile), ``discarded``.
        display: the display (default: 2 tiles, or none with ``deck_empty``).
        deck: the top of the jungle deck; the builder appends the other tiles.
        deck_empty: put every other jungle tile on the board.
        sealed: leave no empty cell next to the filler's jungle tiles.
        quiet_temples: with ``deck_empty``, face the filler's temples with empty sides only.
    """
    seats = seats or {}
    spec = []
    for s in range(players):
        o = dict(seats.get(s, {}))
        spec.append({"hand": list(o.pop("hand", [])), "hand_exact": o.pop("hand_exact", False),
                     "pile": list(o.pop("pile", [])), "discarded": list(o.pop("discarded", [])),
                     "stores": o})
    board = {(0, 0): J(0, 0, "plantation-1"), (1, 1): J(1, 1, "market-2")}
    supports = []
    fixed = [Counter() for _ in range(players)]
    for t in tiles:
        if "seat" in t and (t["seat"] is None or t["tile"] is None):
            supports.append(t)
            continue
        board[(t["x"], t["y"])] = t
        if "seat" in t:
            fixed[t["seat"]][t["tile"]] += 1
            if "covers" in t:
                fixed[t["seat"]][t["covers"]["tile"]] += 1
    jungle_used = Counter(t["tile"] for t in board.values() if "seat" not in t)
    if display is None:
        display = [] if deck_empty else ["temple", "temple"]
    rest = full_jungle(players) - jungle_used - Counter(display) - Counter(deck)
    assert not (jungle_used + Counter(display) + Counter(deck)) - full_jungle(players), "too many jungle tiles"
    assert not (deck_empty and deck), "deck_empty with a deck"
    total = sum(WORKER_COUNTS[players].values())
    for turn in range(players * total):
        plans = _plan_seats(players, mover, turn, fixed, spec)
        if plans is None:
            continue
        laid = _filler(players, plans, supports, rest, deck_empty, sealed, quiet_temples)
        if laid is None:
            continue
        filler, chain = laid
        left = [] if deck_empty else sorted((rest - chain).elements(), key=JUNGLE_KINDS.index)
        if not deck_empty and not (list(deck) + left):
            continue
        break
    else:
        raise AssertionError("no turn count makes this position consistent")
    for t in filler:
        board[(t["x"], t["y"])] = t
    for t in board.values():
        if t.get("rot") is not None and t["tile"] == "1111":
            t["rot"] = 0
    seat_list = []
    for s, (sp, plan) in enumerate(zip(spec, plans)):
        unplaced = sorted(plan["avail"].elements(), key=WORKER_ORDER.index)
        done = sum(1 for i in range(turn) if (plans[0]["first"] + i) % players == s)
        hand_size = min(total, 3 + done) - done
        hand = sp["hand"] + unplaced[:hand_size - len(sp["hand"])]
        pile = sp["pile"] + unplaced[hand_size - len(sp["hand"]):]
        seat = {"gold": 0, "cacao": 0, "sun": 0, "water": 0}
        seat.update(sp["stores"])
        seat.update(hand=sorted(hand, key=WORKER_ORDER.index), hand_count=len(hand), pile=pile,
                    pile_count=len(pile), discarded=sorted(sp["discarded"], key=WORKER_ORDER.index))
        seat_list.append(seat)
    snapshot = {
        "format": "cacao-position/1", "players": players, "first_player": plans[0]["first"],
        "turn": turn, "mover": mover, "phase": "turn", "to_act": mover,
        "board": [board[c] for c in sorted(board)],
        "display": sorted(display, key=JUNGLE_KINDS.index),
        "jungle_deck": list(deck) + left, "jungle_deck_count": len(deck) + len(left),
        "seats": seat_list, "pending": [],
    }
    # hand-made: the filler island and the gains are consistent in counts, not in history
    pos = Position.from_snapshot(snapshot, reachable=False)
    assert same_legal_actions_as_reference(pos), "engine and reference disagree on this position"
    return pos


def opening(players=4, hands=None, first_player=0, deck=()):
    """A new game (from a record header) where seat s starts with ``hands[s]`` (up to
    3 tiles; the rest of the pile follows in table order) and the deck starts with ``deck``."""
    piles = []
    for s in range(players):
        hand = list((hands or {}).get(s, []))
        rest = Counter(WORKER_COUNTS[players])
        rest.subtract(hand)
        piles.append(hand + sorted(rest.elements(), key=WORKER_ORDER.index))
    rest = full_jungle(players) - Counter({"plantation-1": 1, "market-2": 1}) - Counter(deck)
    header = {"format": "cacao-record/1", "players": players, "first_player": first_player,
              "worker_piles": piles, "jungle_deck": list(deck) + sorted(rest.elements(), key=JUNGLE_KINDS.index),
              "actions": []}
    return Position.from_record(header)


# --- reading positions ------------------------------------------------------------


def legal(pos):
    """The legal actions as dicts of the record format (docs/record-format.md)."""
    return [a.to_json() for a in pos.legal_actions()]


def of_type(pos, kind):
    return [a for a in legal(pos) if a["type"] == kind]


def places_at(pos, x, y):
    return [a for a in of_type(pos, "place") if (a["x"], a["y"]) == (x, y)]


def fill_choices(pos, x, y):
    """The distinct fill lists offered for placements on (x, y)."""
    return sorted({canonical({"f": a["fills"]}) for a in places_at(pos, x, y)})


def resolutions(pos):
    """(gold, cacao) pairs the seat to act may choose, sorted."""
    return sorted((a["gold"], a["cacao"]) for a in of_type(pos, "resolve"))


def seat(pos, s):
    return pos.snapshot()["seats"][s]


def board_at(pos, x, y):
    for t in pos.snapshot()["board"]:
        if (t["x"], t["y"]) == (x, y):
            return t
    return None


def place(seat_, tile, x, y, rot=0, fills=()):
    return {"type": "place", "seat": seat_, "tile": tile, "x": x, "y": y, "rot": rot,
            "fills": [{"x": fx, "y": fy, "tile": k} for fx, fy, k in fills]}


def overbuild(seat_, tile, x, y, rot=0):
    return {"type": "overbuild", "seat": seat_, "tile": tile, "x": x, "y": y, "rot": rot}


def resolve(seat_, gold, cacao):
    return {"type": "resolve", "seat": seat_, "gold": gold, "cacao": cacao}


def same_legal_actions_as_reference(pos):
    ours = sorted(canonical(a) for a in legal(pos))
    ref = sorted(canonical(a) for a in RefGame.from_snapshot(pos.snapshot()).legal_actions())
    return ours == ref


# --- placement geometry and rotations -------------------------------------------


def test_first_placements_go_next_to_the_two_start_tiles():
    pos = opening(hands={0: ["1111", "2101", "2101"]})
    cells = {(a["x"], a["y"]) for a in of_type(pos, "place")}
    assert cells == {(0, -1), (-1, 0), (1, 0), (0, 1), (2, 1), (1, 2)}
    # 6 cells x (1111 once + 2101 in 4 rotations), no fills possible yet
    assert len(legal(pos)) == 30
    assert same_legal_actions_as_reference(pos)


@pytest.mark.parametrize("hand", [["1111", "2101", "3001"], ["1111", "3100", "2101"]])
def test_1111_is_offered_in_rotation_0_only_and_others_in_all_four(hand):
    pos = opening(hands={0: hand})
    at = places_at(pos, -1, 0)
    assert sorted(a["rot"] for a in at if a["tile"] == "1111") == [0]
    for tile in hand[1:]:
        assert sorted(a["rot"] for a in at if a["tile"] == tile) == [0, 1, 2, 3]


def test_a_placement_away_from_jungle_tiles_is_illegal():
    pos = opening(hands={0: ["1111"]})
    for x, y in [(5, 6), (2, 0), (0, 0), (3, 0)]:
        with pytest.raises(IllegalActionError):
            pos.apply(place(0, "1111", x, y))


def test_placing_a_tile_that_is_not_in_hand_is_illegal():
    pos = opening(hands={0: ["1111", "1111", "2101"]})
    with pytest.raises(IllegalActionError):
        pos.apply(place(0, "3001", -1, 0, 1))


def test_only_the_seat_to_act_may_move():
    pos = opening(hands={0: ["1111"], 1: ["1111"]})
    with pytest.raises(IllegalActionError):
        pos.apply(place(1, "1111", -1, 0))


# A tile at (-1, 0) faces the start plantation with its east side; side k faces
# (k + rot) % 4, so the east-facing side is (1 - rot) % 4.
@pytest.mark.parametrize("tile,rot,cacao", [
    ("3001", 0, 0), ("3001", 1, 3), ("3001", 2, 1), ("3001", 3, 0),
    ("3100", 0, 1), ("3100", 1, 3), ("3100", 2, 0), ("3100", 3, 0),
    ("2101", 0, 1), ("2101", 1, 2), ("2101", 2, 1), ("2101", 3, 0),
])
def test_rotation_turns_the_sides_clockwise(tile, rot, cacao):
    pos = opening(hands={0: [tile]})
    pos.apply(place(0, tile, -1, 0, rot))
    assert seat(pos, 0)["cacao"] == cacao


@pytest.mark.parametrize("x,y,rot,cacao", [
    (0, 1, 0, 3),    # north side faces (0, 0): north is y - 1
    (0, -1, 0, 0),   # north side faces (0, -2): nothing there; the empty south side faces (0, 0)
    (0, -1, 2, 3),   # turned twice, the 3 workers face south onto (0, 0)
])
def test_directions_follow_screen_coordinates(x, y, rot, cacao):
    pos = opening(hands={0: ["3001"]})
    pos.apply(place(0, "3001", x, y, rot))
    assert seat(pos, 0)["cacao"] == cacao


def test_the_turn_passes_to_the_next_seat_and_the_mover_draws_from_its_pile():
    pos = opening(players=2, hands={0: ["1111", "1111", "1111"]})
    pile = seat(pos, 0)["pile"]
    pos.apply(place(0, "1111", -1, 0))
    assert pos.mover == 1 and pos.to_act == 1 and pos.phase == "turn"
    assert seat(pos, 0)["hand"] == sorted(["1111", "1111", pile[0]], key=WORKER_ORDER.index)
    assert seat(pos, 0)["pile"] == pile[1:]


# --- filling the jungle ------------------------------------------------------------

# Seat 1's tiles at (-1, 0) and (1, 0) (and seat 2's at (1, -2) beside a temple)
# turn the cells around (0, -1) into holes: a tile placed on (0, -1) closes
# (-1, -1), (1, -1) and (0, -2).
LEFT = [T(-1, 0, "1111", 1)]
BOTH = [T(-1, 0, "1111", 1), T(1, 0, "1111", 1)]
ALL_THREE = BOTH + [T(1, -2, "1111", 2), J(2, -2, "temple"), T(2, -3)]
HAND = {"hand": ["1111", "1111", "1111"], "hand_exact": True}


def test_a_cell_with_one_worker_neighbour_is_not_filled():
    pos = opening(hands={0: ["1111"]}, deck=["market-3", "sun"])
    assert fill_choices(pos, 0, -1) == [canonical({"f": []})]


def test_the_mover_chooses_which_display_tile_fills_a_hole():
    pos = make_position(*LEFT, seats={0: HAND}, display=["market-3", "sun"])
    fills = [a["fills"] for a in places_at(pos, 0, -1)]
    assert sorted(f[0]["tile"] for f in fills) == ["market-3", "sun"]
    assert all(len(f) == 1 and (f[0]["x"], f[0]["y"]) == (-1, -1) for f in fills)


def test_identical_display_tiles_make_a_single_choice():
    pos = make_position(*BOTH, seats={0: HAND}, display=["market-3", "market-3"])
    assert len(places_at(pos, 0, -1)) == 1


def test_two_holes_take_the_two_display_tiles_in_either_order():
    pos = make_position(*BOTH, seats={0: HAND}, display=["market-3", "sun"])
    assert fill_choices(pos, 0, -1) == sorted([
        canonical({"f": [{"x": -1, "y": -1, "tile": "market-3"}, {"x": 1, "y": -1, "tile": "sun"}]}),
        canonical({"f": [{"x": -1, "y": -1, "tile": "sun"}, {"x": 1, "y": -1, "tile": "market-3"}]}),
    ])


def test_a_third_hole_takes_the_top_of_the_deck_blind_and_refill_waits_for_the_turn_end():
    pos = make_position(*ALL_THREE, seats={0: HAND}, display=["market-3", "sun"],
                        deck=["water", "gold-1", "temple", "plantation-2"])
    assert len(places_at(pos, 0, -1)) == 6  # 3 pairs of cells x 2 assignments
    assert same_legal_actions_as_reference(pos)
    before = [seat(pos, s) for s in range(4)]
    deck_rest = pos.snapshot()["jungle_deck"][4:]
    pos.apply(place(0, "1111", 0, -1, 0, [(-1, -1, "market-3"), (1, -1, "sun")]))
    assert board_at(pos, 0, -2)["tile"] == "water"
    # The mover still resolves (plantation + market-3): the display is not refilled yet.
    assert pos.phase == "resolve" and pos.to_act == 0
    snap = pos.snapshot()
    assert snap["display"] == [] and snap["jungle_deck"][:3] == ["gold-1", "temple", "plantation-2"]
    pos.apply(resolve(0, 3, 0))
    snap = pos.snapshot()
    assert snap["display"] == ["gold-1", "temple"] and snap["jungle_deck"] == ["plantation-2"] + deck_rest
    # 1111 on (0,-1): water north, sun east, plantation south, market-3 west.
    gain = {k: seat(pos, 0)[k] - before[0][k] for k in ("water", "sun", "gold")}
    assert gain == {"water": 1, "sun": 1, "gold": 3}
    # Seat 1's (1,0) faces the new sun; seat 2's (1,-2) faces the sun and the water.
    assert seat(pos, 1)["sun"] - before[1]["sun"] == 1
    assert (seat(pos, 2)["sun"] - before[2]["sun"], seat(pos, 2)["water"] - before[2]["water"]) == (1, 1)


def test_whichever_two_holes_take_the_display_the_third_takes_the_deck_top():
    pos = make_position(*ALL_THREE, seats={0: HAND}, display=["market-3", "sun"],
                        deck=["water", "gold-1", "temple", "plantation-2"])
    holes = {(-1, -1), (1, -1), (0, -2)}
    for action in places_at(pos, 0, -1):
        after = pos.clone()
        after.apply(action)
        listed = {(f["x"], f["y"]): f["tile"] for f in action["fills"]}
        (blind,) = holes - set(listed)
        assert board_at(after, *blind)["tile"] == "water"
        for cell, kind in listed.items():
            assert board_at(after, *cell)["tile"] == kind


def test_holes_stay_empty_when_no_jungle_tile_is_left():
    pos = make_position(*BOTH, seats={0: {"hand": ["1111"]}}, display=["sun"], deck_empty=True)
    assert fill_choices(pos, 0, -1) == sorted([
        canonical({"f": [{"x": -1, "y": -1, "tile": "sun"}]}),
        canonical({"f": [{"x": 1, "y": -1, "tile": "sun"}]}),
    ])
    pos.apply(place(0, "1111", 0, -1, 0, [(1, -1, "sun")]))
    assert board_at(pos, -1, -1) is None
    assert pos.snapshot()["display"] == []


def test_with_no_jungle_tile_left_a_placement_fills_nothing():
    pos = make_position(*BOTH, seats={0: {"hand": ["1111"]}}, display=[], deck_empty=True)
    assert fill_choices(pos, 0, -1) == [canonical({"f": []})]
    pos.apply(place(0, "1111", 0, -1))
    assert board_at(pos, -1, -1) is None and board_at(pos, 1, -1) is None


def test_fills_listing_a_tile_not_on_display_are_illegal():
    pos = make_position(*LEFT, seats={0: HAND}, display=["market-3", "sun"])
    with pytest.raises(IllegalActionError):
        pos.apply(place(0, "1111", 0, -1, 0, [(-1, -1, "temple")]))
    with pytest.raises(IllegalActionError):
        pos.apply(place(0, "1111", 0, -1, 0, []))  # the hole must take a display tile


# --- activation ----------------------------------------------------------------------


def test_worked_example_a_filled_market_activates_another_players_tile():
    # Yellow (seat 0) closes (-1,-1) with a market-3; red (seat 1) faces it from (-1,0).
    pos = make_position(*LEFT, seats={0: HAND, 1: {"cacao": 1}}, display=["market-3", "sun"])
    pos.apply(place(0, "1111", 0, -1, 0, [(-1, -1, "market-3")]))
    assert pos.to_act == 0 and resolutions(pos) == [(0, 1), (3, 0)]
    pos.apply(resolve(0, 3, 0))  # yellow takes 1 cacao and sells it for 3
    assert pos.to_act == 1 and resolutions(pos) == [(0, 1), (3, 0)]
    pos.apply(resolve(1, 3, 0))  # red sells its stored cacao, during yellow's turn
    assert (seat(pos, 0)["gold"], seat(pos, 0)["cacao"]) == (3, 0)
    assert (seat(pos, 1)["gold"], seat(pos, 1)["cacao"]) == (3, 0)
    assert pos.mover == 1 and pos.phase == "turn"


def test_old_jungle_tiles_do_not_activate_their_neighbours_again():
    pos = make_position(T(-1, 0, "3001", 1, facing("3001", 3, E)), seats={0: HAND})
    pos.apply(place(0, "1111", 1, 0))  # faces the start plantation and market
    assert resolutions(pos) == [(0, 1), (2, 0)]
    pos.apply(resolve(0, 0, 1))
    assert seat(pos, 1)["cacao"] == 0 and seat(pos, 0)["cacao"] == 1


def test_a_side_without_workers_facing_a_new_jungle_tile_gains_nothing():
    # 2101 at (-1,0) with its empty side (index 2) facing north onto the hole.
    pos = make_position(T(-1, 0, "2101", 1, facing("2101", 0, N)), seats={0: HAND},
                        display=["gold-2", "sun"])
    pos.apply(place(0, "1111", 0, -1, 0, [(-1, -1, "gold-2")]))
    assert seat(pos, 1)["gold"] == 0 and seat(pos, 0)["gold"] == 2


# Seat 2 places on (0,-1) and closes (-1,-1) and (0,-2) with market-3s; the hole
# (-1,-1) is faced by seats 0, 3 and 1, the hole (0,-2) by seat 1.
ROUND = [T(-1, 0, "1111", 0), T(-2, -1, "1111", 3), T(-1, -2, "1111", 1), J(-2, -2, "temple")]


def test_the_mover_resolves_first_then_the_others_in_seat_order_after_the_mover():
    pos = make_position(*ROUND, mover=2, seats={2: HAND, 0: {"cacao": 1}, 1: {"cacao": 1},
                                                3: {"cacao": 1}},
                        display=["market-3", "market-3"])
    pos.apply(place(2, "1111", 0, -1, 0, [(-1, -1, "market-3"), (0, -2, "market-3")]))
    order = []
    while pos.phase == "resolve":
        order.append(pos.to_act)
        assert resolutions(pos) == [(0, 1), (3, 0)]
        pos.apply(resolve(pos.to_act, 3, 0))
    assert order == [2, 3, 0, 1]
    assert [seat(pos, s)["gold"] for s in range(4)] == [3, 3, 3, 3]
    assert pos.mover == 3


def test_a_player_with_one_possible_result_is_not_asked():
    pos = make_position(*ROUND, mover=2, seats={2: HAND, 0: {"cacao": 1}, 1: {"cacao": 1},
                                                3: {"cacao": 0}},
                        display=["market-3", "market-3"])
    pos.apply(place(2, "1111", 0, -1, 0, [(-1, -1, "market-3"), (0, -2, "market-3")]))
    order = []
    while pos.phase == "resolve":
        order.append(pos.to_act)
        pos.apply(resolve(pos.to_act, 0, 1))
    assert order == [2, 0, 1]


# --- resolution ----------------------------------------------------------------------

C = (5, 0)  # a cell with four jungle neighbours, away from the start tiles


def resolve_at_c(tile, rot, cacao=0, **around):
    """Place ``tile`` on C for seat 0 with the given jungle around it; return the position."""
    pos = make_position(*cross(*C, **around), seats={0: {"hand": [tile], "cacao": cacao}})
    pos.apply(place(0, tile, *C, rot))
    return pos


@pytest.mark.parametrize("tile,rot,cacao,around,expected", [
    # take 1, then sell it or keep it
    ("1111", 0, 0, dict(n="plantation-1", e="market-3"), [(0, 1), (3, 0)]),
    # selling 1 at 4 before the plantation keeps the store under the cap of 5
    ("3001", 0, 4, dict(n="market-2", w="plantation-2"), [(2, 5), (4, 4), (6, 3)]),
    ("3001", 0, 2, dict(n="market-2", w="plantation-2"), [(0, 4), (2, 3), (4, 2), (6, 1)]),
    # selling at 2 is dominated by selling at 4
    ("1111", 0, 1, dict(n="market-2", e="market-4"), [(0, 1), (4, 0)]),
    # mines add their gold to every result
    ("1111", 0, 0, dict(n="market-3", e="market-3", s="plantation-1", w="gold-2"), [(2, 1), (5, 0)]),
    ("1111", 0, 0, dict(n="gold-1", e="plantation-1", s="market-2"), [(1, 1), (3, 0)]),
    # 3 workers at a market sell up to 3
    ("3001", 0, 5, dict(n="market-3"), [(0, 5), (3, 4), (6, 3), (9, 2)]),
    ("2101", 0, 0, dict(n="plantation-1", e="market-2", w="market-4"), [(0, 2), (4, 1), (6, 0)]),
])
def test_resolution_offers_exactly_the_pareto_results(tile, rot, cacao, around, expected):
    pos = resolve_at_c(tile, rot, cacao, **around)
    assert pos.phase == "resolve" and pos.to_act == 0
    assert resolutions(pos) == expected


@pytest.mark.parametrize("tile,cacao,around,gold_after,cacao_after", [
    # sell first, then the plantation tops the store up to 5: the one Pareto result
    ("1111", 4, dict(n="plantation-2", e="market-4"), 4, 5),
    ("1111", 5, dict(n="plantation-1"), 0, 5),
    ("1111", 0, dict(n="market-4"), 0, 0),
    ("1111", 0, dict(e="gold-1"), 1, 0),
])
def test_a_single_result_is_applied_without_asking(tile, cacao, around, gold_after, cacao_after):
    pos = resolve_at_c(tile, 0, cacao, **around)
    assert pos.phase == "turn" and pos.mover == 1
    assert (seat(pos, 0)["gold"], seat(pos, 0)["cacao"]) == (gold_after, cacao_after)


def test_a_dominated_resolution_is_illegal():
    pos = resolve_at_c("1111", 0, 0, n="plantation-1", e="market-3")
    with pytest.raises(IllegalActionError):
        pos.apply(resolve(0, 0, 0))
    with pytest.raises(IllegalActionError):
        pos.apply(resolve(1, 3, 0))


def test_a_turn_action_is_illegal_while_a_resolution_is_pending():
    pos = resolve_at_c("1111", 0, 0, n="plantation-1", e="market-3")
    assert all(a["type"] == "resolve" for a in legal(pos))
    with pytest.raises(IllegalActionError):
        pos.apply(place(0, "1111", -1, 0))


KINDS_OR_TEMPLE = st.sampled_from(JUNGLE_KINDS)


@settings(max_examples=150, deadline=None)
@given(tile=st.sampled_from(WORKER_ORDER), rot=st.integers(0, 3), cacao=st.integers(0, 5),
       around=st.tuples(KINDS_OR_TEMPLE, KINDS_OR_TEMPLE, KINDS_OR_TEMPLE, KINDS_OR_TEMPLE))
def test_resolution_results_match_the_reference_for_any_neighbours(tile, rot, cacao, around):
    counts = Counter(around) + Counter(["plantation-1", "market-2", "temple", "temple"])
    assume(all(n <= JUNGLE_COUNTS[k] for k, n in counts.items()))
    rot = 0 if tile == "1111" else rot
    pos = resolve_at_c(tile, rot, cacao, **dict(zip("nesw", around)))
    sides = [(kind, WORKER_SIDES[tile][(d - rot) % 4]) for d, kind in enumerate(around)
             if WORKER_SIDES[tile][(d - rot) % 4]]
    expected = resolution_results(cacao, sides)
    if len(expected) > 1:
        assert resolutions(pos) == expected
    else:
        assert pos.phase == "turn"
        gold, kept = expected[0]
        assert (seat(pos, 0)["gold"], seat(pos, 0)["cacao"]) == (gold, kept)


# --- storage caps --------------------------------------------------------------------


@pytest.mark.parametrize("kind,field,before,after", [
    ("plantation-2", "cacao", 3, 5),   # 6 more, capped at 5
    ("sun", "sun", 2, 3),              # 3 more, capped at 3
    ("water", "water", 7, 8),          # 3 steps, the track ends at index 8
    ("water", "water", 8, 8),
    ("gold-2", "gold", 0, 6),          # gold has no cap
])
def test_stores_are_capped(kind, field, before, after):
    pos = make_position(*cross(*C, n=kind), seats={0: {"hand": ["3001"], field: before}})
    pos.apply(place(0, "3001", *C, 0))  # 3 workers north
    assert seat(pos, 0)[field] == after


# --- overbuilding ----------------------------------------------------------------------

# Seat 0 owns a 1111 on C; market-4 north, plantation-2 east, temple south, water west.
OWN = [T(*C, "1111", 0)] + cross(*C, n="market-4", e="plantation-2", s="temple", w="water",
                                 occupied=True)


def overbuilds(pos, cells=None):
    return sorted((a["x"], a["y"], a["tile"], a["rot"]) for a in of_type(pos, "overbuild")
                  if cells is None or (a["x"], a["y"]) in cells)


def test_worked_example_overbuild_sells_the_fresh_cacao_and_moves_the_carrier():
    pos = make_position(*OWN, seats={0: {"hand": ["2101"], "sun": 1}}, deck_empty=True)
    pos.apply(overbuild(0, "2101", *C, 0))  # 2 workers north, 1 east, 1 west
    assert pos.phase == "resolve" and resolutions(pos) == [(0, 2), (4, 1), (8, 0)]
    pos.apply(resolve(0, 8, 0))
    s0 = seat(pos, 0)
    assert (s0["gold"], s0["cacao"], s0["sun"], s0["water"]) == (8, 0, 0, 1)
    top = board_at(pos, *C)
    assert (top["tile"], top["seat"], top["rot"]) == ("2101", 0, 0)
    assert top["covers"] == {"tile": "1111", "rot": 0}


def test_overbuild_is_offered_on_own_tiles_when_deck_and_display_are_empty():
    pos = make_position(*OWN, T(-1, 0, "1111", 1),
                        seats={0: {"hand": ["1111", "2101"], "hand_exact": True, "sun": 1}},
                        deck_empty=True)
    assert overbuilds(pos, [C]) == [(5, 0, "1111", 0)] + [(5, 0, "2101", r) for r in range(4)]
    own = {(t["x"], t["y"]) for t in pos.snapshot()["board"] if t.get("seat") == 0 and "covers" not in t}
    assert {(x, y) for x, y, _, _ in overbuilds(pos)} == own
    assert of_type(pos, "place"), "placing normally stays allowed"
    assert same_legal_actions_as_reference(pos)


@pytest.mark.parametrize("display,deck_empty", [(["temple"], True), (["sun", "water"], False)])
def test_overbuild_needs_both_deck_and_display_empty(display, deck_empty):
    own = [T(*C, "1111", 0)] + cross(*C, n="plantation-2", occupied=True)
    pos = make_position(*own, seats={0: {"hand": ["2101"], "sun": 1}}, display=display,
                        deck_empty=deck_empty)
    assert overbuilds(pos) == []
    with pytest.raises(IllegalActionError):
        pos.apply(overbuild(0, "2101", *C, 0))


def test_overbuild_needs_a_sun_token():
    pos = make_position(*OWN, seats={0: {"hand": ["2101"], "sun": 0}}, deck_empty=True)
    assert overbuilds(pos) == []


def test_a_tile_placed_by_an_overbuild_cannot_be_covered():
    covered = [T(*C, "2101", 0, 0, covers=("1111", 0))] + OWN[1:]
    pos = make_position(*covered, T(-1, 0, "1111", 0),
                        seats={0: {"hand": ["1111"], "hand_exact": True, "sun": 1}}, deck_empty=True)
    assert overbuilds(pos, [C, (-1, 0)]) == [(-1, 0, "1111", 0)]
    with pytest.raises(IllegalActionError):
        pos.apply(overbuild(0, "1111", *C))


def test_a_tile_can_be_overbuilt_only_once():
    pos = make_position(*OWN, seats={0: {"hand": ["1111", "1111"], "hand_exact": True, "sun": 2}},
                        deck_empty=True)
    pos.apply(overbuild(0, "1111", *C))
    while pos.mover != 0 or pos.phase != "turn":  # everyone else moves
        pos.apply(next(a for a in legal(pos) if a["type"] != "overbuild"))
    assert seat(pos, 0)["sun"] >= 1
    assert overbuilds(pos, [C]) == []
    with pytest.raises(IllegalActionError):
        pos.apply(overbuild(0, "1111", *C))


def test_the_overbuild_sun_is_paid_before_the_new_tile_activates():
    pos = make_position(T(*C, "1111", 0), *cross(*C, n="sun", occupied=True),
                        seats={0: {"hand": ["1111"], "sun": 3}}, deck_empty=True)
    pos.apply(overbuild(0, "1111", *C))
    assert seat(pos, 0)["sun"] == 3  # 3 - 1 + 1; paying after would leave 2


def test_overbuild_activates_only_the_new_tile():
    pos = make_position(T(*C, "1111", 0), *cross(*C, n="plantation-1", occupied=True),
                        seats={0: {"hand": ["1111"], "sun": 1}}, deck_empty=True)
    before = [seat(pos, s) for s in range(4)]
    pos.apply(overbuild(0, "1111", *C))
    assert seat(pos, 0)["cacao"] == 1
    assert [seat(pos, s)["cacao"] for s in (1, 2, 3)] == [before[s]["cacao"] for s in (1, 2, 3)]


def test_overbuilding_another_players_tile_is_illegal():
    pos = make_position(T(*C, "1111", 1), *cross(*C, n="sun", occupied=True), T(-1, 0, "1111", 0),
                        seats={0: {"hand": ["1111"], "sun": 1}}, deck_empty=True)
    assert overbuilds(pos, [C]) == []
    with pytest.raises(IllegalActionError):
        pos.apply(overbuild(0, "1111", *C))


# --- the discard fallback -----------------------------------------------------------

# Every cell next to the two start tiles is taken: no placement is left. (Legal play
# cannot reach this, so the deck still holds tiles: docs/rules.md, engine convention.)
SEALED = [T(0, -1), T(-1, 0), T(1, 0), T(0, 1), T(2, 1), T(1, 2)]


def test_a_player_without_placement_or_overbuild_discards_a_tile_of_its_choice():
    pos = make_position(*SEALED, seats={0: {"hand": ["1111", "2101", "2101"], "hand_exact": True,
                                            "pile": ["3001"], "sun": 1}},
                        display=["sun", "water"], sealed=True)
    assert sorted(canonical(a) for a in legal(pos)) == sorted(canonical(
        {"type": "discard", "seat": 0, "tile": t}) for t in ("1111", "2101"))
    display = pos.snapshot()["display"]
    pos.apply({"type": "discard", "seat": 0, "tile": "2101"})
    assert pos.mover == 1
    s0 = seat(pos, 0)
    assert s0["hand"] == ["1111", "2101", "3001"] and s0["discarded"] == ["2101"]
    assert pos.snapshot()["display"] == display


def test_discarding_is_illegal_when_a_placement_exists():
    pos = opening(hands={0: ["1111"]})
    with pytest.raises(IllegalActionError):
        pos.apply({"type": "discard", "seat": 0, "tile": "1111"})


# --- end of the game and scoring ---------------------------------------------------

LAST = place(0, "2101", -1, 0, facing("2101", 0, E))  # a last tile that gains nothing
TEMPLE = (4, 0)
AROUND = [(4, -1, S), (5, 0, W), (4, 1, N), (3, 0, E)]  # neighbour cell, direction to the temple


def final_result(*tiles, players=4, seats=None, deck_empty=False):
    """Seat 0 places its last tile (gaining nothing); every other seat is out of tiles."""
    overrides = {s: {"water": 3, "hand": [], "hand_exact": True} for s in range(players)}
    overrides[0].update(hand=["2101"], hand_exact=True)
    for s, extra in (seats or {}).items():
        overrides[s].update(extra)
    pos = make_position(*tiles, players=players, seats=overrides, deck_empty=deck_empty,
                        quiet_temples=True)
    assert all(seat(pos, s)["hand"] == [] for s in range(1, players))
    pos.apply(LAST)
    assert pos.is_over and pos.phase == "over" and pos.to_act is None
    assert legal(pos) == []
    r = pos.result()
    return list(r.gold), list(r.cacao), list(r.winners)


def temple_with(workers_by_seat):
    """A temple on TEMPLE with one tile per (seat, workers facing it) entry, and empty
    sides of other tiles facing it so that it has the 2 worker neighbours it needs."""
    tiles, used = [J(*TEMPLE, "temple")], Counter()
    entries = list(workers_by_seat) + [(None, 0)] * (2 - len(workers_by_seat))
    for (x, y, d), (s, k) in zip(AROUND, entries):
        tile = {0: "2101", 1: "1111", 2: "2101", 3: "3001" if not used[(s, "3001")] else "3100"}[k]
        used[(s, tile)] += 1
        tiles.append(T(x, y, tile, s, facing(tile, k, d)))
    return tiles


@pytest.mark.parametrize("entries,awards", [
    ([(0, 3)], [6, 0, 0, 0]),                          # a single participant takes 6 only
    ([(0, 3), (1, 2)], [6, 3, 0, 0]),
    ([(0, 2), (1, 2), (2, 1)], [3, 3, 0, 0]),          # worked example: tie for first, no second
    ([(0, 1), (1, 1), (2, 1)], [2, 2, 2, 0]),
    ([(0, 1), (1, 1), (2, 1), (3, 1)], [1, 1, 1, 1]),  # 6 // 4
    ([(0, 3), (1, 1), (2, 1)], [6, 1, 1, 0]),          # tie for second splits 3
    ([(0, 3), (1, 1), (2, 1), (3, 1)], [6, 1, 1, 1]),
    ([(0, 1), (0, 2), (1, 2)], [6, 3, 0, 0]),          # a seat's workers add up
    ([(0, 0), (1, 1)], [0, 6, 0, 0]),                  # no workers facing: no part
    ([(2, 2), (3, 3), (1, 1)], [0, 0, 3, 6]),
])
def test_temple_majorities_are_scored_as_in_the_rules(entries, awards):
    gold, _, _ = final_result(*temple_with(entries))
    assert gold == awards


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=4))
def test_temple_scoring_matches_the_reference(entries):
    tiles = Counter((s, {0: "2101", 1: "1111", 2: "2101", 3: "3xxx"}[k]) for s, k in entries)
    tiles[(0, "2101")] += 1  # seat 0's last tile
    assume(tiles[(0, "2101")] <= 4 and all(n <= 2 for (s, t), n in tiles.items() if t == "3xxx"))
    assume(all(n <= 3 for (s, t), n in tiles.items() if t == "1111"))
    gold, _, _ = final_result(*temple_with(entries))
    counts = Counter()
    for s, k in entries:
        counts[s] += k
    expected = [0] * 4
    for s, g in temple_awards(counts).items():
        expected[s] += g
    assert gold == expected


def test_only_the_top_tile_counts_for_temples():
    tiles = [J(*TEMPLE, "temple"),
             T(4, -1, "1111", 0, 0, covers=("3001", facing("3001", 3, S))),
             T(5, 0, "2101", 1, facing("2101", 2, W))]
    gold, _, _ = final_result(*tiles, deck_empty=True)
    assert gold == [3, 6, 0, 0]


def test_every_temple_is_scored():
    tiles = temple_with([(0, 3), (1, 1)]) + [J(8, 0, "temple"), T(8, 1, "2101", 1, facing("2101", 2, N)),
                                             T(8, -1, "2101", None, facing("2101", 0, S))]
    gold, _, _ = final_result(*tiles)
    assert gold == [6, 3 + 6, 0, 0]


@pytest.mark.parametrize("sun,water,gold", [(0, 0, -10), (2, 3, 2), (3, 8, 19), (1, 4, 3), (0, 1, -4)])
def test_sun_tokens_and_the_water_track_are_scored(sun, water, gold):
    scores, _, _ = final_result(players=2, seats={0: {"sun": sun, "water": water}})
    assert scores[0] == gold


@pytest.mark.parametrize("golds,cacaos,winners", [
    ((10, 8), (0, 5), [0]),
    ((8, 8), (2, 3), [1]),     # more cacao breaks the tie
    ((8, 8), (3, 3), [0, 1]),  # a shared win
])
def test_the_most_gold_wins_then_the_most_cacao(golds, cacaos, winners):
    seats = {s: {"gold": g, "cacao": c} for s, (g, c) in enumerate(zip(golds, cacaos))}
    gold, cacao, won = final_result(players=2, seats=seats)
    assert (gold, cacao, won) == (list(golds), list(cacaos), winners)


def test_the_game_goes_on_while_a_player_still_has_tiles():
    pos = make_position(players=2, seats={0: {"hand": ["2101"], "hand_exact": True},
                                          1: {"hand": ["1111"], "hand_exact": True}})
    pos.apply(LAST)
    assert not pos.is_over and pos.mover == 1 and pos.result() is None
    while pos.to_act == 1:
        pos.apply(legal(pos)[0])
    assert pos.is_over and pos.result() is not None
