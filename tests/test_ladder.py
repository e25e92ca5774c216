"""The rating ladder (cacaoai.lab.ladder) and its statistics (cacaoai.lab.ratings):
Bradley-Terry ratings and their bootstrap intervals on synthetic results with known
ratings, the SPRT on synthetic streams with known Elo, and small real runs that repeat
exactly for a seed.
"""

import json
import math
import os

import numpy as np
import pytest
from support import call_in_fresh_python

import cacaoai.search
from cacaoai.lab import arena, ladder
from cacaoai.lab.ratings import (
    PENTANOMIAL,
    SPRT,
    bootstrap_elo,
    elo_to_score,
    fit_bradley_terry,
    score_estimate,
    sprt_llr,
)

LADDER = ladder.__name__


def synthetic(true_elo, games_per_pair, rng):
    """Pairwise wins and games of bots with the given ratings, every pair playing."""
    n = len(true_elo)
    wins, games = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            k = rng.binomial(games_per_pair, elo_to_score(true_elo[i] - true_elo[j]))
            wins[i, j], wins[j, i] = k, games_per_pair - k
            games[i, j] = games[j, i] = games_per_pair
    return wins, games


# --- Bradley-Terry ----------------------------------------------------------------------------


def test_bradley_terry_recovers_known_ratings():
    true = np.array([0.0, 100.0, 200.0, 350.0, -150.0])
    wins, games = synthetic(true, 1500, np.random.default_rng(3))
    elo = fit_bradley_terry(wins, games, anchor=0, prior_draws=0)
    assert elo[0] == 0.0
    assert np.max(np.abs(elo - true)) < 25


def test_bradley_terry_holds_the_anchor_at_its_rating_and_fits_a_batch():
    true = np.array([0.0, 100.0, 200.0])
    rng = np.random.default_rng(4)
    batch = [synthetic(true, 400, rng) for _ in range(3)]
    wins, games = np.stack([b[0] for b in batch]), np.stack([b[1] for b in batch])
    together = fit_bradley_terry(wins, games, anchor=1, anchor_elo=1000.0)
    for k in range(3):
        alone = fit_bradley_terry(wins[k], games[k], anchor=1, anchor_elo=1000.0)
        np.testing.assert_allclose(together[k], alone, atol=1e-6)
        assert alone[1] == 1000.0


def test_a_perfect_score_gets_a_finite_rating_from_the_virtual_draw():
    wins = np.array([[0.0, 40.0], [0.0, 0.0]])
    games = np.array([[0.0, 40.0], [40.0, 0.0]])
    elo = fit_bradley_terry(wins, games, anchor=1, prior_draws=1.0)
    # 40.5 of 41 with the virtual draw: 400 log10(40.5 / 0.5)
    assert elo[0] == pytest.approx(400 * math.log10(81), abs=1e-6)


def test_bots_not_linked_by_games_are_refused():
    games = np.zeros((4, 4))
    games[0, 1] = games[1, 0] = games[2, 3] = games[3, 2] = 10
    with pytest.raises(ValueError, match="not linked"):
        fit_bradley_terry(games / 2, games)


def correlated_clusters(true_elo, deals, rng, repeat=0.5):
    """Per deal, two games per pair of bots; the second repeats the first's result with
    probability `repeat` (else it is drawn afresh), so games of a deal are correlated but
    each game's chance is the Bradley-Terry one."""
    n = len(true_elo)
    wins, games = np.zeros((deals, n, n)), np.zeros((deals, n, n))
    for d in range(deals):
        for i in range(n):
            for j in range(i + 1, n):
                p = elo_to_score(true_elo[i] - true_elo[j])
                first = rng.random() < p
                second = first if rng.random() < repeat else rng.random() < p
                wins[d, i, j] = int(first) + int(second)
                wins[d, j, i] = 2 - wins[d, i, j]
                games[d, i, j] = games[d, j, i] = 2
    return wins, games


def test_the_bootstrap_over_deals_covers_the_true_ratings_about_95_percent_of_the_time():
    true = np.array([0.0, 60.0, -90.0])
    rng = np.random.default_rng(11)
    covered = []
    for run in range(120):
        wins, games = correlated_clusters(true, 80, rng)
        _, low, high = bootstrap_elo(wins, games, anchor=0, resamples=400, seed=run, prior_draws=0)
        covered += [low[k] <= true[k] <= high[k] for k in (1, 2)]
    coverage = float(np.mean(covered))
    assert 0.88 <= coverage <= 0.99, coverage


def test_the_bootstrap_repeats_for_a_seed_and_brackets_the_estimate():
    true = np.array([0.0, 60.0, -90.0])
    wins, games = correlated_clusters(true, 40, np.random.default_rng(5))
    first = bootstrap_elo(wins, games, anchor=0, resamples=300, seed=7)
    again = bootstrap_elo(wins, games, anchor=0, resamples=300, seed=7)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    elo, low, high = first
    assert np.all(low <= elo) and np.all(elo <= high)
    assert low[0] == high[0] == 0.0                 # the anchor


# --- SPRT ----------------------------------------------------------------------------------


def pair_stream(elo, pairs, rng):
    """Pentanomial categories (A's points in a game pair, doubled) of independent games."""
    p = elo_to_score(elo)
    return 2 * rng.binomial(2, p, size=pairs)


def test_the_llr_agrees_with_its_normal_approximation_near_the_bounds():
    counts = np.array([100, 300, 1000, 330, 120])       # mean score 0.509, between s0 and s1
    s0, s1 = elo_to_score(0), elo_to_score(5)
    a = np.array(PENTANOMIAL)
    n = counts.sum()
    mean = (counts * a).sum() / n
    var = (counts * (a - mean) ** 2).sum() / n
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert float(sprt_llr(counts, 0, 5)) == pytest.approx(approx, rel=0.005)


def test_the_sprt_accepts_h1_when_a_is_stronger_and_stops_early():
    test = SPRT(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    rng = np.random.default_rng(1)
    runs = [test.path(pair_stream(30, 6000, rng)) for _ in range(60)]
    decisions = [d for d, _, _ in runs]
    assert decisions.count("H1") >= 57
    taken = [n for _, n, _ in runs]
    assert max(taken) < 6000 and float(np.median(taken)) < 1500
    for decision, _, llr in runs:
        assert (llr >= test.upper) if decision == "H1" else (llr <= test.lower)


def test_the_sprt_rejects_when_a_is_no_stronger():
    test = SPRT(elo0=0, elo1=10)
    rng = np.random.default_rng(2)
    runs = [test.path(pair_stream(-10, 6000, rng)) for _ in range(60)]
    assert [d for d, _, _ in runs].count("H0") >= 57
    assert max(n for _, n, _ in runs) < 6000


def test_the_sprt_errs_about_as_often_as_alpha_and_beta_at_the_bounds():
    test = SPRT(elo0=0, elo1=30, alpha=0.05, beta=0.05)
    rng = np.random.default_rng(3)
    at_h0 = [test.path(pair_stream(0, 8000, rng))[0] for _ in range(200)]
    at_h1 = [test.path(pair_stream(30, 8000, rng))[0] for _ in range(200)]
    assert at_h0.count("H1") / 200 <= 0.10         # alpha = 0.05
    assert at_h1.count("H0") / 200 <= 0.10         # beta = 0.05
    assert "" not in at_h0 + at_h1


def test_the_trinomial_model_reads_single_games():
    test = SPRT(elo0=0, elo1=20, model="trinomial")
    assert test.scores == (0.0, 0.5, 1.0)
    decision, taken, _ = test.path([2, 2, 0, 2, 1, 2] * 200)
    assert decision == "H1" and taken < 1200


def test_the_score_estimate_gives_elo_with_an_interval():
    elo, low, high = score_estimate([0, 0, 10, 0, 0])
    assert elo == pytest.approx(0.0) and low == high == pytest.approx(0.0)
    elo, low, high = score_estimate([5, 30, 100, 50, 15])
    assert low < elo < high
    assert elo == pytest.approx(-400 * math.log10(1 / 0.55 - 1))


def test_sprt_settings_are_checked():
    for bad in ({"elo0": 5, "elo1": 5}, {"alpha": 0}, {"model": "binomial"}):
        with pytest.raises(ValueError):
            SPRT(**bad)
    assert SPRT().upper == pytest.approx(math.log(19)) and SPRT().lower == pytest.approx(-math.log(19))


# --- schedule, results and rating of games ------------------------------------------------------


def test_round_robin_plays_every_set_and_adjacent_only_neighbours():
    bots = ["a", "b", "c", "d"]
    assert len(ladder.match_list(bots, 2)) == 6
    assert ladder.match_list(bots, 2, "adjacent") == [("a", "b"), ("b", "c"), ("c", "d")]
    assert len(ladder.match_list(bots, 2, "adjacent", width=2)) == 5
    assert ladder.match_list(bots, 3, "adjacent") == [("a", "b", "c"), ("b", "c", "d")]
    assert ladder.match_list(["z", "a"], 2) == [("a", "z")]          # sorted within a match
    with pytest.raises(ValueError):
        ladder.match_list(["a", "a"], 2)
    with pytest.raises(ValueError):
        ladder.match_list(["a", "b"], 3)


def game(seats, gold, cacao=None, deal=0, rotation=0, seed=1):
    players = len(seats)
    return {"players": players, "seed": seed, "deal": deal, "rotation": rotation, "match": sorted(seats),
            "seats": list(seats), "gold": list(gold), "cacao": list(cacao or [0] * players), "winners": []}


def test_every_two_seats_give_a_result_by_gold_then_cacao():
    g = game(["a", "b", "c", "d"], [50, 60, 50, 50], [1, 0, 2, 1])
    results = {(a, b): s for a, b, s in ladder.pair_results(g)}
    assert results == {("a", "b"): 0.0, ("a", "c"): 0.0, ("a", "d"): 0.5, ("b", "c"): 1.0,
                       ("b", "d"): 1.0, ("c", "d"): 1.0}


def test_rating_games_gives_the_table_anchored_at_greedy():
    games = []
    for deal in range(30):
        games.append(game(["greedy", "random"], [60, 20], deal=deal))
        games.append(game(["random", "greedy"], [20, 60], deal=deal, rotation=1))
        games.append(game(["greedy", "mcts"], [50, 60] if deal % 4 else [60, 50], deal=deal))
        games.append(game(["mcts", "greedy"], [60, 50], deal=deal, rotation=1))
    summary = ladder.rate(games, resamples=200)
    assert [r["bot"] for r in summary["bots"]] == ["mcts", "greedy", "random"]
    rows = {r["bot"]: r for r in summary["bots"]}
    assert rows["greedy"]["elo"] == 0.0 and rows["greedy"]["games"] == 120
    assert rows["mcts"]["score"] == pytest.approx(52 / 60)
    assert rows["random"]["elo"] < rows["greedy"]["elo"] < rows["mcts"]["elo"]
    assert summary["deals"] == 30 and summary["pairwise"]["mcts"]["greedy"]["pairs"] == 60
    assert ladder.rate(games, anchor="random", anchor_elo=100)["bots"][-1]["elo"] == 100


def test_each_bot_leads_the_next_weaker_with_an_interval_of_the_difference_itself(capsys):
    """Far from the anchor, two neighbours' anchored intervals are wide; the interval
    of their difference is not, and it is what says whether two levels are apart."""
    rng = np.random.default_rng(3)
    games = []
    for deal in range(60):
        for a, b, p in (("random", "greedy", 0.15), ("greedy", "mcts", 0.2), ("mcts", "max", 0.2)):
            games.append(game([a, b], [60, 50] if rng.random() < p else [50, 60], deal=deal))
    summary = ladder.rate(games, anchor="random", resamples=300)
    rows = summary["bots"]
    assert [r["bot"] for r in rows] == ["max", "mcts", "greedy", "random"]
    for above, below in zip(rows, rows[1:]):
        assert above["lead"] == pytest.approx(above["elo"] - below["elo"])
        lo, hi = above["lead_ci95"]
        assert 0 < lo < above["lead"] < hi
    assert "lead" not in rows[-1]
    top_lo, top_hi = rows[0]["ci95"]
    lead_lo, lead_hi = rows[0]["lead_ci95"]
    assert lead_hi - lead_lo < top_hi - top_lo
    ladder.print_table(summary)
    table = capsys.readouterr().out
    assert "lead over next" in table and f"{rows[0]['lead']:+.1f}" in table


def test_results_files_keep_each_game_once_and_skip_broken_lines(tmp_path):
    path = tmp_path / "results.jsonl"
    a = game(["greedy", "random"], [60, 20])
    b = game(["random", "greedy"], [20, 60], rotation=1)
    other = dict(a, gold=[10, 70])
    path.write_text(json.dumps(a) + "\n" + json.dumps(b) + "\n" + json.dumps(a) + "\n" + '{"players": 2, "se')
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps(other) + "\n")
    games, warnings = ladder.read_results([str(path), str(more), str(tmp_path / "missing.jsonl")])
    assert [g["gold"] for g in games] == [[60, 20], [20, 60]]
    assert len(warnings) == 2 and "not a game" in warnings[0] and "another result" in warnings[1]


# --- real games --------------------------------------------------------------------------------


def strip(summary):
    return {k: v for k, v in summary.items() if k not in ("elapsed_s", "results")}


def test_a_tiny_ladder_repeats_exactly_and_resumes_to_the_same_games(tmp_path):
    kwargs = {"players": 2, "seed": 5, "processes": 1, "resamples": 100}
    first = ladder.run_ladder(["greedy", "random", "mcts:iterations=20"], deals=2,
                              results=str(tmp_path / "a.jsonl"), **kwargs)
    again = ladder.run_ladder(["greedy", "random", "mcts:iterations=20"], deals=2,
                              results=str(tmp_path / "b.jsonl"), **kwargs)
    assert strip(first) == strip(again)
    assert first["games"] == first["played"] == 12
    # half the deals, then the rest: the same games, none played twice
    ladder.run_ladder(["greedy", "random", "mcts:iterations=20"], deals=1, results=str(tmp_path / "c.jsonl"),
                      **kwargs)
    resumed = ladder.run_ladder(["mcts:iterations=20", "random", "greedy"], deals=2,
                                results=str(tmp_path / "c.jsonl"), **kwargs)
    assert resumed["played"] == 6
    assert strip(resumed) == dict(strip(first), played=6)
    # rate only, from the files
    merged = ladder.run_ladder([], merge=[str(tmp_path / "a.jsonl")], **kwargs)
    assert merged["bots"] == first["bots"] and merged["played"] == 0


def test_a_two_bot_match_plays_the_arenas_games():
    ours = ladder.play_ladder_game({"players": 2, "seed": 3, "deal": 1, "rotation": 1,
                                    "match": ("greedy", "random")})
    theirs = arena.play_game((3, 2, 3, ["greedy", "random"]))          # game 3 = deal 1, rotation 1
    assert ours["gold"] == theirs["gold"] and ours["winners"] == theirs["winners"]
    assert ours["seats"] == ["random", "greedy"]


def test_a_tiny_sprt_decides_and_repeats_in_any_number_of_processes(tmp_path):
    test = SPRT(elo0=0, elo1=100)
    one = ladder.run_sprt("greedy", "random", test, seed=2, results=str(tmp_path / "a.jsonl"), processes=1)
    two = ladder.run_sprt("greedy", "random", test, seed=2, results=str(tmp_path / "b.jsonl"), processes=2)
    assert one["result"] == "H1" and one["games"] < 40
    for key in ("result", "games", "counts", "llr", "elo"):
        assert one[key] == two[key]
    assert one["llr"] >= one["upper"]
    # resumed from its own results it plays nothing and says the same
    again = ladder.run_sprt("greedy", "random", test, seed=2, results=str(tmp_path / "a.jsonl"), processes=1)
    assert again["played"] == 0 and again["counts"] == one["counts"]


def test_an_old_build_bot_plays_from_a_worker_process_the_same_games(tmp_path):
    site = os.path.dirname(os.path.dirname(os.path.dirname(cacaoai.search.__file__)))  # this build, as another
    kwargs = {"players": 2, "deals": 1, "processes": 1, "resamples": 0}
    here = ladder.run_ladder(["greedy", "random"], results=str(tmp_path / "a.jsonl"), **kwargs)
    worker = ladder.run_ladder(["greedy", "old:random"], results=str(tmp_path / "b.jsonl"), old_path=site, **kwargs)
    assert [r["score"] for r in here["bots"]] == [r["score"] for r in worker["bots"]]
    games_here = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    games_worker = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert sorted(g["gold"] for g in games_here) == sorted(g["gold"] for g in games_worker)
    with pytest.raises(ValueError, match="old-path"):
        ladder.run_ladder(["greedy", "old:random"], **kwargs)


@pytest.mark.e2e
@pytest.mark.timeout(180)
def test_a_ladder_and_an_sprt_on_ray_give_the_same_results_as_local_processes(tmp_path):
    kwargs = {"players": 2, "deals": 2, "seed": 5, "resamples": 100}
    bots = ["greedy", "random", "mcts:iterations=20"]
    local = ladder.run_ladder(bots, results=str(tmp_path / "local.jsonl"), processes=2, **kwargs)
    on_ray = call_in_fresh_python(LADDER, "run_ladder", bots, results=str(tmp_path / "ray.jsonl"),
                                  ray_address="local", **kwargs)
    assert strip(on_ray) == strip(local)
    test = SPRT(elo0=0, elo1=100)
    sprt_local = ladder.run_sprt("greedy", "random", test, results=str(tmp_path / "s1.jsonl"), processes=2)
    sprt_ray = call_in_fresh_python(LADDER, "run_sprt", "greedy", "random", test, results=str(tmp_path / "s2.jsonl"),
                                    ray_address="local")
    assert (sprt_ray["result"], sprt_ray["counts"]) == (sprt_local["result"], sprt_local["counts"])
    assert sprt_ray["result"] == "H1" and sprt_ray["counts"][:4] == [0, 0, 0, 0]
