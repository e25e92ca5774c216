"""The exact endgame solver (search/_endgame.pyx) against a plain Python brute force.

The brute force is an exhaustive expectimax over ``CorePosition``: each draw
from the jungle deck is a chance event over the kinds left (weighted by count),
enumerated by rebuilding the game from its deal with the drawn kinds in front
and replaying the moves (a move that draws nothing is applied to a copy).
Values are (win share, gold margin) of the solving seat, compared
lexicographically; other seats minimise them (paranoid).
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from cacaoai.engine import Position
from cacaoai.engine.core import CorePosition
from cacaoai.search import endgame
from cacaoai.search._mcts import StopFlag, monotonic

Value = tuple[float, float]


class Game:
    """A deal (piles, deck) and the codes played since, rebuilt on demand."""

    def __init__(self, players: int, first: int, piles: list[list[int]], deck: list[int],
                 history: tuple[int, ...] = ()) -> None:
        self.players, self.first, self.piles, self.deck, self.history = players, first, piles, deck, history

    def core(self) -> CorePosition:
        core = CorePosition.start(self.players, self.first, self.piles, list(self.deck))
        for code in self.history:
            core.apply_code(code)
        return core

    def with_front(self, at: int, kinds: tuple[int, ...]) -> Game:
        """The same game with `kinds` drawn next from deck slot `at` (rest in any order)."""
        rest = Counter(self.deck[at:])
        rest.subtract(kinds)
        deck = self.deck[:at] + list(kinds) + sorted(rest.elements())
        return Game(self.players, self.first, self.piles, deck, self.history)


def terminal(core: CorePosition, seat: int) -> Value:
    gold, _cacao, winners = core.result()
    share = 1.0 / len(winners) if seat in winners else 0.0
    return share, float(gold[seat] - max(g for s, g in enumerate(gold) if s != seat))


def prefixes(kinds: list[int], k: int) -> list[tuple[Fraction, tuple[int, ...]]]:
    """Every distinct ordered draw of k kinds from the multiset, with its probability."""
    if k == 0 or not kinds:
        return [(Fraction(1), ())]
    out = []
    for kind, count in sorted(Counter(kinds).items()):
        rest = list(kinds)
        rest.remove(kind)
        for p, tail in prefixes(rest, k - 1):
            out.append((Fraction(count, len(kinds)) * p, (kind, *tail)))
    return out


def action_value(game: Game, core: CorePosition, code: int, seat: int) -> Value:
    """`code`'s value from `core` (the position `game` rebuilds), averaged over its draws."""
    at = len(core.full_deck()) - len(core.deck())
    after = core.clone()
    after.apply_code(code)
    history = (*game.history, code)
    k = len(core.deck()) - len(after.deck())
    if k == 0:  # nothing drawn: no chance event, and no need to rebuild the game
        return node_value(Game(game.players, game.first, game.piles, game.deck, history), after, seat)
    share = margin = 0.0
    for p, kinds in prefixes(core.deck(), k):
        g = game.with_front(at, kinds)
        g.history = history
        v = node_value(g, g.core(), seat)
        share += float(p) * v[0]
        margin += float(p) * v[1]
    return share, margin


def node_value(game: Game, core: CorePosition, seat: int) -> Value:
    if core.phase == 2:
        return terminal(core, seat)
    values = [action_value(game, core, code, seat) for code in core.legal_codes()]
    return max(values) if core.to_act == seat else min(values)


def root_values(game: Game, seat: int) -> dict[int, Value]:
    core = game.core()
    return {code: action_value(game, core, code, seat) for code in core.legal_codes()}


def check(game: Game, seat: int) -> endgame.EndgameResult:
    result = endgame.solve(Position(game.core()), seat, max_nodes=5_000_000)
    assert result.proved and result.stopped == "proved"
    expected = root_values(game, seat)
    got = {a.code: (a.share, a.margin) for a in result.actions}
    assert set(got) == set(expected)
    for code, (share, margin) in expected.items():
        assert got[code][0] == pytest.approx(share, abs=1e-9), code
        assert got[code][1] == pytest.approx(margin, abs=1e-9), code
    return result


@pytest.mark.parametrize(("piles", "deck"), [
    ([[0], [1]], [8, 9, 6, 1]),             # two placements, two draws left in the deck
    ([[2], [3]], [1, 3, 1, 6, 10]),         # a deck of three kinds: chance matters
    ([[0], [2], [3]], [1, 1, 9, 9]),        # three players, paranoid
])
def test_every_root_action_matches_brute_force(piles: list[list[int]], deck: list[int]) -> None:
    game = Game(len(piles), 0, piles, deck)
    for seat in range(len(piles)):
        check(game, seat)


def late_game(players: int, seed: int, left: int) -> Game:
    """A seeded random game, played on until at most `left` worker tiles are left
    in all hands (so the piles are empty) and a placement is to be chosen."""
    core = CorePosition.start(players, 0, *_deal(players, seed))
    rng = random.Random(seed)
    game = Game(players, 0, *_deal(players, seed))
    history: list[int] = []
    while core.tiles_left()[0] > left or core.phase != 0:
        code = rng.choice(core.legal_codes())
        core.apply_code(code)
        history.append(code)
    game.history = tuple(history)
    return game


def _deal(players: int, seed: int) -> tuple[list[list[int]], list[int]]:
    """Piles and deck of Position.new's seeded deal."""
    core = Position.new(players, seed).core
    return [core.full_pile(s) for s in range(players)], core.full_deck()


@pytest.mark.parametrize(("players", "seed", "left"), [(2, 1, 3), (2, 5, 2), (3, 2, 3)])
def test_late_self_play_matches_brute_force(players: int, seed: int, left: int) -> None:
    game = late_game(players, seed, left)
    core = game.core()
    if core.phase == 2:
        pytest.fail("the game ended before the solver's turn: pick another seed")
    check(game, core.to_act)


def test_budget_stops_unproved_and_solves_are_deterministic() -> None:
    game = late_game(2, 3, left=3)
    position = Position(game.core())
    stopped = endgame.solve(position, max_nodes=10)
    assert not stopped.proved and stopped.stopped == "nodes" and stopped.actions == ()
    first, second = endgame.solve(position), endgame.solve(position)
    assert first.proved and first.actions == second.actions and first.nodes == second.nodes
    assert first.best and set(first.best) <= {a.code for a in first.actions}


def test_bad_input_names_the_field() -> None:
    position = Position.new(2, 7)
    with pytest.raises(ValueError, match="position"):
        endgame.solve(position)                 # the draw piles still hold tiles
    game = late_game(2, 3, left=3)
    with pytest.raises(ValueError, match="seat"):
        endgame.solve(Position(game.core()), seat=5)
    with pytest.raises(ValueError, match="max_nodes"):
        endgame.solve(Position(game.core()), max_nodes=0)


def test_time_and_stop_flag_end_a_solve_unproved() -> None:
    position = Position(late_game(2, 1, left=4).core())
    past = endgame.solve(position, deadline=monotonic() - 1.0, max_nodes=50_000_000)
    assert not past.proved and past.stopped == "time" and past.actions == ()
    flag = StopFlag()
    flag.set()
    stopped = endgame.solve(position, stop=flag, max_nodes=50_000_000)
    assert not stopped.proved and stopped.stopped == "stop"
    flag.clear()
    assert endgame.solve(position, stop=flag, max_nodes=50_000_000).proved


def test_threads_and_a_subset_of_codes_give_the_same_values() -> None:
    position = Position(late_game(2, 5, left=4).core())
    one = endgame.solve(position, max_nodes=20_000_000)
    two = endgame.solve(position, max_nodes=40_000_000, threads=2)
    assert one.proved and two.proved and one.actions == two.actions
    some = [a.code for a in one.actions[-3:]]
    part = endgame.solve(position, codes=some, max_nodes=20_000_000)
    assert {a.code: a for a in part.actions} == {a.code: one.value(a.code) for a in part.actions}
    low = endgame.solve(position, max_nodes=20_000_000, priority="low", threads=1)
    assert low.actions == one.actions
    with pytest.raises(ValueError, match="codes"):
        endgame.solve(position, codes=[12345678])
    with pytest.raises(ValueError, match="threads"):
        endgame.solve(position, threads=0)


@pytest.mark.parametrize("threads", [1, 2])
def test_some_values_keep_the_best_exact_and_prove_the_rest_worse(threads: int) -> None:
    position = Position(late_game(2, 1, left=4).core())
    every = endgame.solve(position, max_nodes=20_000_000)
    some = endgame.solve(position, max_nodes=20_000_000, values=2, threads=threads)
    assert some.proved and some.nodes < every.nodes
    assert some.best == every.best
    assert set(some.worse) | {a.code for a in some.actions} == {a.code for a in every.actions}
    assert len(some.actions) >= 2
    for value in some.actions:
        assert value == every.value(value.code)
    top = every.actions[0]
    for code in some.worse:
        exact = every.value(code)
        assert exact is not None and (exact.share, exact.margin) < (top.share, top.margin)
