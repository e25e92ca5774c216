"""Puzzles (cacaoai.search.puzzles, made by cacaoai.lab.puzzles): generation
on a tiny budget finds puzzles whose solution and gap hold, themes follow
their rule, the shipped set loads and covers every theme and player count,
``check`` and ``pick`` do what they say, bad input names its field, and a
puzzle's view holds only what its seat may see."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from cacaoai.engine import Action, Position, derive_seed
from cacaoai.lab import puzzles as lab_puzzles
from cacaoai.lab.puzzles import Budget, deal_seed, deep_check, play_game
from cacaoai.search import endgame
from cacaoai.search.bots import parse_bot
from cacaoai.search.explain import Explanation, Part, TempleChange
from cacaoai.search.puzzles import (
    LEVEL_ORDER,
    MIN_GAP,
    THEMES,
    UNSOLVED_RATING,
    Puzzle,
    by_id,
    check,
    load,
    pick,
    rating_for,
    solves,
    theme_counts,
    themes_of,
)

#: 2-player club self-play, game 6 of seed 1: searched and exact puzzles at
#: this budget (found by running it; another game when `club` changes).
TINY = Budget(rate=False, deep_iterations=400, exact_placements=3)
GAME = (2, "club", 6, 1, TINY)


@pytest.fixture(scope="module")
def generated() -> list[Puzzle]:
    return [Puzzle.from_json(p) for p in play_game(GAME)["puzzles"]]


@pytest.fixture(scope="module")
def shipped() -> tuple[Puzzle, ...]:
    return load()


def _replayed(puzzle: Puzzle) -> Position:
    """The game's position at the puzzle's decision, replayed as play_game plays it."""
    players, level, game, seed, _ = GAME
    deal = deal_seed(seed, players, level, game)
    bot = parse_bot(f"level:{level}")
    position = Position.new(players, deal)
    for ply in range(int(puzzle.id.rsplit("-", 1)[1])):
        position.apply(bot.choose(position, derive_seed(deal, ply)))
    return position


# --- generation ---

def test_a_tiny_generation_finds_an_exact_and_a_searched_puzzle(generated):
    assert {p.exact for p in generated} == {True, False}
    for puzzle in generated:
        assert puzzle.gap >= MIN_GAP and puzzle.themes and set(puzzle.themes) <= set(THEMES)
        assert ("exact endgame" in puzzle.themes) == puzzle.exact
        assert puzzle.id.startswith("2p-club-0006-") and puzzle.sentence and puzzle.rating == 0


def test_an_exact_puzzles_solutions_and_gap_are_the_solvers(generated):
    puzzle = next(p for p in generated if p.exact)
    position = puzzle.position(seed=3)        # any determinization: nothing but the deck order is hidden
    assert endgame.fully_known(position)
    solved = endgame.solve(position, max_nodes=TINY.exact_nodes)
    assert solved.proved
    assert {position.decode(c) for c in solved.best} == set(puzzle.solutions)
    runner = next(a for a in solved.actions if a.code not in solved.best)
    assert solved.actions[0].share - runner.share == pytest.approx(puzzle.gap, abs=1e-4) and puzzle.gap >= MIN_GAP


def test_a_searched_puzzle_holds_when_checked_again(generated):
    puzzle = next(p for p in generated if not p.exact)
    position = _replayed(puzzle)
    assert len(puzzle.solutions) == 1
    # the deep check again, from a determinization of the view: the search sees the view only
    found = deep_check(Position.from_observation(puzzle.view, 9), [(400, 1), (800, 2)])
    assert found is not None and found.best == puzzle.solutions[0] and found.gap >= MIN_GAP
    assert puzzle.solutions[0] in position.legal_actions()


def test_generation_is_the_same_for_a_seed(generated):
    assert [p.to_json() for p in generated] == play_game(GAME)["puzzles"]


# --- themes ---

def _explanation(action: Action, **changes) -> Explanation:
    values = dict(seat=0, line=(action,), other_line=(Action.discard(0, "1111"),), plies=1, other_plies=1, turn=9)
    values.update(changes)
    return Explanation(**values)


def test_themes_follow_the_rule_on_a_hand_checked_case():
    place = Action.place(0, "2101", 1, -2, 0)
    # the line takes the temple at (0,1) from seat 1 and moves the water carrier
    # up: +3 for seat 0, -6 for seat 1 at the end, so it denies more than it gains
    explanation = _explanation(place, parts=(Part("water_space", 4, 2), Part("water", 3, 0)),
                               temples=(TempleChange(0, 1, (6, 0), (0, 6)),),
                               totals=(40, 30), other_totals=(37, 36))
    assert themes_of(explanation, place, exact=False) == ("temple majority", "water", "denying an opponent")
    assert themes_of(explanation, place, exact=True)[-1] == "exact endgame"
    # own gain above the other seat's loss: not denying; the parts that do not gain say nothing
    gaining = _explanation(place, parts=(Part("markets", 2, 0), Part("water", 0, 3)),
                           totals=(45, 34), other_totals=(37, 36))
    assert themes_of(gaining, place, exact=False) == ("market timing",)
    overbuild = Action.overbuild(0, "3001", 2, 0, 1)
    assert themes_of(_explanation(overbuild), overbuild, exact=False) == ("overbuilding with sun",)
    resolve = Action.resolve(0, 4, 1)
    assert themes_of(_explanation(resolve), resolve, exact=False) == ("market timing",)
    assert themes_of(_explanation(place), place, exact=False) == ()


def test_ratings_go_up_a_level_at_a_time():
    assert [rating_for(level) for level in LEVEL_ORDER] == [600, 800, 1000, 1200, 1400, 1600, 1800]
    assert rating_for(None) == UNSOLVED_RATING == 2200
    with pytest.raises(ValueError, match="^level:"):
        rating_for("grandmaster")


# --- the shipped set ---

def test_the_shipped_set_loads_with_every_theme_and_player_count(shipped):
    assert len(shipped) >= 1000
    ids = [p.id for p in shipped]
    assert len(set(ids)) == len(ids) and ids == sorted(ids)
    assert all(count > 0 for count in theme_counts(shipped).values())
    assert {p.players for p in shipped} == {2, 3, 4}
    assert len({p.id.split("-")[1] for p in shipped}) >= 2       # several levels as sources
    allowed = {rating_for(level) for level in LEVEL_ORDER} | {UNSOLVED_RATING}
    for p in shipped:
        assert p.gap >= MIN_GAP and p.rating in allowed and set(p.themes) <= set(THEMES)
        assert ("exact endgame" in p.themes) == p.exact


def test_a_puzzle_round_trips_through_its_json_form(shipped):
    for puzzle in shipped[:50]:
        assert Puzzle.from_json(json.loads(json.dumps(puzzle.to_json()))) == puzzle


def test_a_view_holds_only_what_its_seat_may_see(generated, shipped):
    for puzzle in generated:
        position = _replayed(puzzle)
        assert position.to_act == puzzle.seat
        assert puzzle.view == position.observation(puzzle.seat) != position.snapshot()
    for puzzle in shipped:
        view = puzzle.view
        assert view["view"] == puzzle.seat and view["to_act"] == puzzle.seat and "jungle_deck" not in view
        for s, seat in enumerate(view["seats"]):
            assert "pile" not in seat and ("hand" in seat) == (s == puzzle.seat)
    # and it is an observation the engine takes back unchanged
    for puzzle in shipped[::97]:
        assert puzzle.position(1).observation(puzzle.seat) == puzzle.view


# --- check, pick, by_id ---

def test_check_accepts_a_solution_and_refuses_another_legal_action(shipped):
    for puzzle in shipped[::150]:
        solution = puzzle.solutions[0]
        assert check(puzzle, solution) and check(puzzle, solution.to_json())
        other = next(a for a in puzzle.position(0).legal_actions() if a not in puzzle.solutions)
        assert not check(puzzle, other) and not check(puzzle, other.to_json())
    with pytest.raises(ValueError, match="^type:"):
        check(shipped[0], {"type": "jump", "seat": 0})


def test_pick_honours_its_filters_and_is_deterministic(shipped):
    for theme in THEMES:
        chosen = pick(shipped, theme=theme, seed=4)
        assert chosen is not None and theme in chosen.themes
    chosen = pick(shipped, min_rating=800, max_rating=1000, players=3, seed=2)
    assert chosen is not None and 800 <= chosen.rating <= 1000 and chosen.players == 3
    assert pick(shipped, seed=7) == pick(list(reversed(shipped)), seed=7)
    assert len({pick(shipped, seed=s).id for s in range(20)}) > 1
    few = [p for p in shipped if p.players == 4][:3]
    assert pick(few, exclude=[p.id for p in few[:2]], seed=1) == few[2]
    assert pick(few, exclude=[p.id for p in few], seed=1) is None
    assert pick(shipped, min_rating=10_000) is None
    assert by_id(shipped, few[0].id) == few[0] and by_id(shipped, "nope") is None


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"theme": "tempo"}, "theme"),
    ({"min_rating": 1400, "max_rating": 1000}, "min_rating"),
    ({"players": 5}, "players"),
    ({"min_rating": "low"}, "min_rating"),
    ({"seed": 1.5}, "seed"),
])
def test_bad_input_names_the_field(shipped, kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        pick(shipped, **kwargs)


def test_a_bad_puzzle_names_its_field_and_a_bad_file_its_line(shipped, tmp_path):
    good = shipped[0].to_json()
    for change, field in (({"players": 7}, "players"), ({"themes": ["luck"]}, "themes"),
                          ({"solutions": [{"type": "resolve"}]}, "solutions"), ({"seat": 3}, "seat")):
        with pytest.raises(ValueError, match=f"^{field}"):
            Puzzle.from_json({**good, **change})
    with pytest.raises(ValueError, match="^rating: missing"):
        Puzzle.from_json({k: v for k, v in good.items() if k != "rating"})
    path = tmp_path / "puzzles.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "gap": 2}) + "\n")
    with pytest.raises(ValueError, match=r"puzzles\.jsonl:2: gap:"):
        load(path)
    path.write_text((json.dumps(good) + "\n") * 2)
    with pytest.raises(ValueError, match=r"puzzles\.jsonl:2: id:"):
        load(path)


# --- the journal ---

def _fake_game(task):
    players, level, game, seed, _ = task
    PLAYED.append((players, level, game))
    return {"task": [players, level, game], "decisions": 1,
            "puzzles": [{"id": f"{players}p-{level}-{game:04d}-000", "seed": seed}]}


PLAYED: list[tuple[int, str, int]] = []


def test_a_journal_resumes_a_run_and_adds_games_to_it(tmp_path, monkeypatch):
    monkeypatch.setattr(lab_puzzles, "play_game", _fake_game)
    journal = tmp_path / "journal.jsonl"
    PLAYED.clear()
    first = lab_puzzles.generate([2], ["club"], 2, 7, TINY, journal=journal)
    assert PLAYED == [(2, "club", 0), (2, "club", 1)] and len(first) == 2
    with open(journal, "a") as f:
        f.write('{"task": [2, "club", 2], "decis')          # a run killed while writing
    PLAYED.clear()
    more = lab_puzzles.generate([2, 3], ["club"], 3, 7, TINY, journal=journal)
    assert sorted(PLAYED) == [(2, "club", 2), (3, "club", 0), (3, "club", 1), (3, "club", 2)]
    assert [p["id"] for p in more] == sorted(p["id"] for p in more) and len(more) == 6
    PLAYED.clear()
    assert lab_puzzles.generate([2], ["club"], 3, 7, TINY, journal=journal) == more[:3] and PLAYED == []
    with pytest.raises(ValueError, match="^--journal: .* another seed or budget"):
        lab_puzzles.generate([2], ["club"], 3, 8, TINY, journal=journal)


def test_rate_rates_again_by_the_levels_keeping_all_else(shipped, tmp_path, capsys):
    """`cacao-puzzles rate` (after a model or a level changed): the rating is
    the weakest level's that solves the puzzle at seeds of the puzzle's id, so
    it does not depend on the file's order; nothing else of a puzzle moves."""
    chosen = [p for p in shipped if p.players == 2][:6]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({**p.to_json(), "rating": 0}) + "\n" for p in chosen))
    out = tmp_path / "out.jsonl"
    assert lab_puzzles.main(["rate", "--in", str(source), "--out", str(out), "--quiet"]) == 0
    assert "6 of 6 ratings changed" in capsys.readouterr().out
    rated = load(out)
    assert [replace(p, rating=0) for p in rated] == [replace(p, rating=0) for p in chosen]
    for p in rated:
        levels = [level for level in LEVEL_ORDER
                  if all(solves(p, level, derive_seed(lab_puzzles.rate_seed(1, p.id), 100 + k))
                         for k in range(lab_puzzles.SEEDS))]
        assert p.rating == rating_for(levels[0] if levels else None)
    # the same ratings from the file reversed
    source.write_text("".join(json.dumps(p.to_json()) + "\n" for p in reversed(chosen)))
    lab_puzzles.main(["rate", "--in", str(source), "--out", str(out), "--quiet"])
    assert {p.id: p.rating for p in load(out)} == {p.id: p.rating for p in rated}


def test_rate_names_a_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    with pytest.raises(SystemExit):
        lab_puzzles.main(["rate", "--in", str(bad), "--out", str(tmp_path / "out.jsonl")])
    assert "--in: " in capsys.readouterr().err
