"""The client library's analysis: an analysis stopped from another thread
still answers, the asyncio client end to end, and the search request options
(MultiPV, allow/avoid, tree reuse, pondering), against a real server (the
``cacao_server`` fixture, a free port).

The asyncio tests run their coroutines with ``asyncio.run`` (no pytest plugin).
"""

from __future__ import annotations

import asyncio
import threading

import grpc
import pytest
from support import GUARD_S

from cacaoai.client import AsyncCacaoClient, CacaoClient, CacaoClientError, Limit
from cacaoai.engine import Position

LONG = Limit(time_s=60)  # stopped long before it ends


@pytest.fixture
def client(cacao_server):
    with CacaoClient(cacao_server[1], timeout=10.0, retries=1, backoff=0.05) as c:
        yield c


def test_stop_from_another_thread_gives_the_final_report_with_the_best_action(client,
                                                                             cacao_server):
    game = Position.new(players=2, seed=7)
    analysis = client.start_analysis(game.observation(game.to_act), LONG, report_interval=0.05)
    reports = []
    for report in analysis:
        reports.append(report)
        if len(reports) == 2:
            threading.Thread(target=analysis.stop).start()
    assert [r.evaluation.final for r in reports].count(True) == 1 and reports[-1].evaluation.final
    final = analysis.final
    assert final is reports[-1] and analysis.wait() is final
    assert final.evaluation.stopped_by == "stop" and final.evaluation.iterations > 0
    assert final.evaluation.best_action in game.legal_actions()
    assert cacao_server[0].cacao_api.gate.running == 0
    assert client.suggest(game, Limit(iterations=50), seed=1).action in game.legal_actions()


def test_stop_before_the_first_report_and_wait(client):
    game = Position.new(players=2, seed=9)
    analysis = client.start_analysis(game, LONG, report_interval=30)
    analysis.stop()
    analysis.stop()  # twice is harmless
    final = analysis.wait()
    assert final.evaluation.final and final.evaluation.stopped_by == "stop"
    assert final.evaluation.best_action in game.legal_actions()


def test_an_analysis_left_early_is_cancelled_and_frees_its_slot(client, cacao_server):
    game = Position.new(players=2, seed=7)
    with client.start_analysis(game, LONG, report_interval=0.05) as analysis:
        assert not next(analysis).evaluation.final
    assert analysis.final is None
    with pytest.raises(CacaoClientError) as caught:
        analysis.wait()
    assert caught.value.code == grpc.StatusCode.CANCELLED
    gate = cacao_server[0].cacao_api.gate
    # the server sees the cancellation a moment later: wait on the scheduler's changes
    assert gate.wait_for(lambda s: s.running == 0, timeout=GUARD_S), "the slot is still taken"


def test_a_refused_analysis_raises_the_servers_error_naming_the_field(client):
    game = Position.new(players=2, seed=7)
    with pytest.raises(CacaoClientError) as caught:
        client.start_analysis(game, "grandmaster").wait()
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.reason == "UNKNOWN_LEVEL"
    assert [f for f, _ in caught.value.field_violations] == ["start.level"]


def test_the_asyncio_client_end_to_end(cacao_server):
    game = Position.new(players=2, seed=7)
    observation = game.observation(game.to_act)

    async def main() -> None:
        async with AsyncCacaoClient(cacao_server[1], retries=1, backoff=0.05) as client:
            await client.wait_until_ready()
            info = await client.get_server_info()
            assert "casual" in info.levels
            deal = await client.new_game(2, seed=7)
            assert deal.position == game.snapshot()
            legal = await client.legal_actions(observation)
            assert set(legal.actions) == set(game.legal_actions())
            suggestion = await client.suggest(observation, "200", seed=3)
            assert suggestion.action in game.legal_actions()
            applied = await client.apply_action(game, suggestion.action)
            assert applied.action == suggestion.action
            assert (await client.validate_record(game.record())).valid
            reports = [r async for r in client.analyze(observation, Limit(iterations=2_000),
                                                        report_interval=0.05, seed=3)]
            assert reports[-1].evaluation.final and reports[-1].evaluation.iterations == 2_000

            analysis = await client.start_analysis(observation, LONG, report_interval=0.05)
            seen = []
            async for report in analysis:
                seen.append(report)
                if len(seen) == 2:
                    await analysis.stop()
            assert [r.evaluation.final for r in seen].count(True) == 1
            assert analysis.final is seen[-1] and (await analysis.wait()) is seen[-1]
            assert seen[-1].evaluation.stopped_by == "stop"
            assert seen[-1].evaluation.best_action in game.legal_actions()

            with pytest.raises(CacaoClientError) as caught:
                await client.suggest(observation, "grandmaster")
            assert [f for f, _ in caught.value.field_violations] == ["level"]

    asyncio.run(main())


def test_suggest_with_allow_avoid_and_ponder_through_the_client(client, cacao_server):
    import json
    from pathlib import Path

    record = json.loads((Path(__file__).parent / "data" / "records.jsonl").read_text()
                        .splitlines()[0])
    record.pop("result")
    game = Position.from_record(record, upto=7)
    actions = game.legal_actions()
    allowed = client.suggest(game, Limit(iterations=300), seed=1, allow=actions[:2])
    assert allowed.action in actions[:2]
    avoided = client.suggest(game, Limit(iterations=300), seed=1, avoid=[allowed.action])
    assert avoided.action != allowed.action
    with pytest.raises(CacaoClientError) as caught:
        client.suggest(game, Limit(iterations=300), avoid=actions)
    assert [f for f, _ in caught.value.field_violations] == ["avoid"]

    waiting = 1 - game.to_act
    cacao_server[0].cacao_api.trees.clear()  # the server is shared: no tree of other tests
    pondering = client.ponder(dict(record, actions=record["actions"][:7]),
                              Limit(iterations=2_000),
                              seat=waiting, report_interval=0.05)
    final = pondering.wait()
    assert final.evaluation.seat == waiting and final.evaluation.iterations == 2_000
    assert final.evaluation.root.reused_visits == 0
    following = dict(record, actions=record["actions"][:8])  # the seat to act has moved
    reply = client.suggest(following, Limit(iterations=200), seed=2, reuse_tree=True)
    assert reply.seat == waiting and reply.evaluation.root.reused_visits > 0
    with pytest.raises(ValueError):
        client.ponder(game)  # a complete position: whose turn to think on is not said


def test_the_analysis_example_runs_against_a_server(cacao_server):
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "clients" / "examples" / "analyze.py"
    out = subprocess.run([sys.executable, str(example), "--server", cacao_server[1]],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert '"stoppedBy": "stop"' in out and '"final": true' in out
    assert out.count('"principalVariation"') == 3  # two MultiPV lines and the result's own
    reused = int(out.rsplit("root.reused_visits ", 1)[1].split(",")[0])
    assert reused > 0


def test_the_stop_measurement_script_prints_its_figure():
    import re
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "measure_analysis.py"
    out = subprocess.run([sys.executable, str(script), "--analyses", "2"], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    assert re.search(r"^stop -> final report \(2 analyses\): p50 [\d.]+ ms, max [\d.]+ ms",
                     out), out


def test_an_analysis_nobody_reads_to_its_end_leaves_no_thread_behind(client):
    game = Position.new(players=2, seed=7)
    before = set(threading.enumerate())
    analyses = [client.start_analysis(game, Limit(iterations=200)) for _ in range(3)]
    for analysis in analyses:
        next(analysis)  # read a report, then forget the analysis
    del analyses, analysis
    left: list[threading.Thread] = []
    for _ in range(3):  # each call ends with its budget; its request thread then ends: join them
        left = [t for t in threading.enumerate() if t not in before]
        for thread in left:
            thread.join(GUARD_S)
    assert not [t for t in threading.enumerate() if t not in before], left


def test_evaluation_lines_show_the_confidence_bound_and_a_continued_tree(client, cacao_server):
    from cacaoai.client import evaluation_lines

    cacao_server[0].cacao_api.trees.clear()  # the server is shared: no tree of other tests
    game = Position.new(players=2, seed=5)
    first = client.suggest(game, Limit(iterations=300), seed=1, reuse_tree=True)
    again = client.suggest(game, Limit(iterations=300), seed=1, reuse_tree=True)
    assert not any("kept search tree" in line for line in evaluation_lines(first.evaluation))
    lines = evaluation_lines(again.evaluation, top=2)
    assert "visits" in lines[3] and "(at least " in lines[3]
    assert lines[-1].startswith("continued a kept search tree: ")
