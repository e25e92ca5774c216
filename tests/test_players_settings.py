"""Who plays each seat (`levels`) and the named search settings (`settings`)
of SuggestAction, AnalyzePosition and Analyze, through a real server on a
real port (the session's ``cacao_server``) and the Python client: the checks
name their fields, the win probabilities say whose play they assume and
follow the players named, and every evaluation echoes its settings."""

from __future__ import annotations

import pytest

from cacaoai.api import Limit
from cacaoai.client import CacaoClient, CacaoClientError, ErrorReason
from cacaoai.engine import Position
from cacaoai.search import PLAY
from cacaoai.search.calibration_map import choose_map
from cacaoai.search.model import load_model

pytestmark = pytest.mark.integration

BUDGET = Limit(iterations=300, threads=1)


@pytest.fixture(scope="module")
def game() -> Position:
    position = Position.new(players=2, seed=7)
    for _ in range(6):
        position.apply(position.legal_actions()[0])
    return position


@pytest.fixture
def client(cacao_server):
    with CacaoClient(cacao_server[1], timeout=20.0, retries=1, backoff=0.05) as c:
        yield c


def final(client: CacaoClient, game: Position, strength=BUDGET, **kwargs):
    return list(client.analyze(game.snapshot(), strength, seed=1, **kwargs))[-1].evaluation


def refusal(call, *args, **kwargs) -> CacaoClientError:
    with pytest.raises(CacaoClientError) as caught:
        result = call(*args, **kwargs)
        if not hasattr(result, "evaluation"):
            list(result)
    return caught.value


# --- who plays --------------------------------------------------------------------

@pytest.mark.parametrize("levels, field, reason", [
    (["strong"], "levels", ErrorReason.INVALID_REQUEST),
    (["strong", "beginner", "easy"], "levels", ErrorReason.INVALID_REQUEST),
    (["strong", "grandmaster"], "levels[1]", ErrorReason.UNKNOWN_LEVEL),
])
def test_levels_of_another_length_or_an_unknown_name_are_refused_naming_the_field(
        client, game, levels, field, reason):
    for call in (client.suggest, client.analyze):
        error = refusal(call, game.snapshot(), BUDGET, seed=1, levels=levels)
        assert error.code.name == "INVALID_ARGUMENT" and error.error_reason == reason
        assert [f for f, _ in error.field_violations] == [field]
    error = refusal(client.start_analysis(game.snapshot(), BUDGET, seed=1, levels=levels).wait)
    assert [f for f, _ in error.field_violations] == [f"start.{field}"]


def test_an_analysis_told_who_plays_assumes_their_play(client, game):
    unsaid = final(client, game)
    told = final(client, game, levels=["strong", "beginner"])
    unknown = final(client, game, levels=["strong", ""])
    assert unsaid.population == "strong" and unknown.population == "strong"
    assert told.population == "strong vs beginner"
    # the same search (seed and budget), its probabilities corrected for the players named:
    # strong's seat wins more often against a beginner than against strong play
    assert [c.visits for c in told.candidates] == [c.visits for c in unsaid.candidates]
    assert unknown.win_probability == unsaid.win_probability
    assert told.win_probability[0] > unsaid.win_probability[0] + 0.1
    # the other seat's view of the same players: the map of "strong vs beginner", from seat 1
    swapped = final(client, game, levels=["beginner", "strong"])
    assert swapped.population == "strong vs beginner"
    assert swapped.win_probability[1] > unsaid.win_probability[1] + 0.1


def test_a_suggestion_takes_levels_and_says_whose_play_it_assumes(client, game):
    levels = ["strong", "beginner"]
    told = client.suggest(game.snapshot(), BUDGET, seed=1, levels=levels).evaluation
    unsaid = client.suggest(game.snapshot(), BUDGET, seed=1).evaluation
    play_maps = load_model(PLAY.model).manifest["calibration"]
    assert told.population == choose_map(play_maps, "play", levels, 2).population
    assert unsaid.population == "strong" and told.best_action == unsaid.best_action


# --- the named settings ------------------------------------------------------------

def test_every_evaluation_echoes_the_settings_it_ran_with(client, game):
    assert final(client, game).settings == "analysis"
    assert final(client, game, seat=game.to_act).settings == "mcts"      # pondering plays
    assert client.suggest(game.snapshot(), BUDGET, seed=1).evaluation.settings == "mcts"
    assert client.suggest(game.snapshot(), "beginner", seed=1).evaluation.settings == "nomodel"
    assert client.suggest(game.snapshot(), "strong", seed=1).evaluation.settings == "mcts"


def test_a_request_with_limits_may_name_its_settings(client, game):
    nomodel = final(client, game, settings="nomodel")
    assert nomodel.settings == "nomodel" and nomodel.population == ""  # no map: the tree's own
    analysed = client.suggest(game.snapshot(), BUDGET, seed=1, settings="analysis").evaluation
    assert analysed.settings == "analysis"
    assert analysed.win_probability == final(client, game).win_probability  # the same search


@pytest.mark.parametrize("strength, settings", [
    (BUDGET, "play"), (BUDGET, "ANALYSIS"), ("strong", "analysis"), (None, "mcts"),
])
def test_unknown_settings_or_settings_with_a_level_are_refused_naming_the_field(
        client, game, strength, settings):
    error = refusal(client.suggest, game.snapshot(), strength, seed=1, settings=settings)
    assert error.code.name == "INVALID_ARGUMENT" and error.error_reason == ErrorReason.INVALID_REQUEST
    assert [f for f, _ in error.field_violations] == ["settings"]
