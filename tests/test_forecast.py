"""A forecast of every temple and score part: the rules of first and second
place, playouts from the searching seat's view only, determinism, and the
forecast through a search, over gRPC and Connect, and in the Python client."""

from __future__ import annotations

import asyncio
import itertools
import json
import math
from pathlib import Path

import grpc
import pytest
from connectrpc.compat import google_protobuf_binary_codec
from pyqwest import Client, HTTPTransport, HTTPVersion

from cacaoai.api import Forecast, convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_connect import CacaoServiceClient
from cacaoai.client import CacaoClient, Limit
from cacaoai.engine import Position
from cacaoai.search import Question, search
from cacaoai.search.forecast import MAPS, calibrate, forecast, temple_places
from cacaoai.server.http import start_http

RECORD = json.loads((Path(__file__).parent / "data" / "records.jsonl").read_text().splitlines()[0])


def test_first_and_second_place_follow_the_rules():
    assert temple_places([3, 1, 0]) == ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    assert temple_places([2, 2, 1]) == ([0.5, 0.5, 0.0], [0.0, 0.0, 0.0])  # a tie for first cancels second
    assert temple_places([3, 1, 1, 0]) == ([1.0, 0.0, 0.0, 0.0], [0.0, 0.5, 0.5, 0.0])
    assert temple_places([0, 2]) == ([0.0, 1.0], [0.0, 0.0])  # alone: 6 gold, nobody second
    assert temple_places([0, 0]) == ([0.0, 0.0], [0.0, 0.0])


def test_the_maps_correct_the_playouts_shares_and_keep_a_place_whole():
    knots = MAPS[2][0]
    likely, unlikely = calibrate([0.9, 0.1], knots)
    assert 0.5 < likely < 0.9 and 0.1 < unlikely < 0.5  # playouts are surer than strong play bears out
    shares = calibrate([0.7, 0.2, 0.1], MAPS[3][0])
    assert shares[0] > shares[1] > shares[2]  # order kept
    assert calibrate([0.3, 0.2], None) == (0.3, 0.2)
    for first, second in MAPS.values():  # monotone maps of shares
        for knots in (first, second):
            assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(knots, knots[1:]))
            assert all(0.0 <= x <= 1.0 and 0.0 <= y <= 1.0 for x, y in knots)


def test_a_forecast_covers_every_temple_on_the_board_and_every_seat_from_the_seats_view_only():
    position = Position.from_record(RECORD, 25)
    seat = position.to_act
    made = forecast(position, seat, seed=7, playouts=64)
    assert made.playouts == 64
    assert [(t.x, t.y) for t in made.temples] == sorted((t.x, t.y) for t in position.temples())
    raw = forecast(position, seat, seed=7, playouts=64, calibrated=False)
    for temple, uncorrected in zip(made.temples, raw.temples):
        assert math.isclose(sum(uncorrected.first), 1.0) or sum(uncorrected.first) == 0.0
        assert all(0.0 <= p <= 1.0 for p in (*temple.first, *temple.second))
        for a, b in itertools.permutations(range(len(temple.first)), 2):  # the map keeps the order
            assert uncorrected.first[a] <= uncorrected.first[b] or temple.first[a] >= temple.first[b]
    for s in made.seats:
        parts = s.temples.mean + s.water.mean + s.sun.mean + s.gold.mean
        assert math.isclose(parts, s.total.mean, abs_tol=1e-9) and s.total.spread >= 0.0
    assert forecast(position, seat, seed=7, playouts=64) == made
    assert forecast(position, seat, seed=8, playouts=64) != made
    # a position that differs only in what the seat cannot see forecasts the same
    other = Position.from_observation(position.observation(seat), seed=99)
    assert forecast(other, seat, seed=7, playouts=64) == made
    assert raw.seats == made.seats and raw.temples != made.temples
    with pytest.raises(ValueError, match="playouts"):
        forecast(position, seat, seed=7, playouts=0)


def test_a_search_asked_for_a_forecast_carries_one_and_it_crosses_the_wire():
    position = Position.from_record(RECORD, 25)
    result = search(position, Limit(iterations=100), seed=3, question=Question(forecast=32))
    assert isinstance(result.forecast, Forecast) and result.forecast.playouts == 32
    assert search(position, Limit(iterations=100), seed=3).forecast is None
    assert convert.evaluation_from_proto(convert.evaluation_to_proto(result)).forecast == result.forecast


@pytest.mark.integration
def test_suggestions_and_analyses_send_a_forecast_on_request_over_grpc_and_connect(cacao_server, cacao_stub):
    record = convert.record_from_json(Position.from_record(RECORD, 25).record())
    asked = pb.SuggestActionRequest(record=record, seed=2, limits=pb.SearchLimits(iterations=100), forecast=48)
    over_grpc = cacao_stub.SuggestAction(asked)
    assert over_grpc.evaluation.forecast.playouts == 48 and over_grpc.evaluation.forecast.temples
    plain = cacao_stub.SuggestAction(pb.SuggestActionRequest(record=record, seed=2,
                                                             limits=pb.SearchLimits(iterations=100)))
    assert not plain.evaluation.HasField("forecast")
    with pytest.raises(grpc.RpcError) as caught:
        cacao_stub.SuggestAction(pb.SuggestActionRequest(record=record, limits=pb.SearchLimits(iterations=10),
                                                         forecast=-1))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "forecast" in caught.value.details()
    analysis = pb.AnalyzePositionRequest(record=record, seed=2, limits=pb.SearchLimits(iterations=200), forecast=16)
    reports = list(cacao_stub.AnalyzePosition(analysis))
    assert reports[-1].evaluation.final and reports[-1].evaluation.forecast.playouts == 16

    http = start_http(cacao_server[0].cacao_api, "127.0.0.1", 0)

    async def over_connect() -> tuple[pb.SuggestActionResponse, list[pb.AnalyzePositionResponse]]:
        transport = Client(HTTPTransport(http_version=HTTPVersion.HTTP1))
        async with CacaoServiceClient(f"http://127.0.0.1:{http.server_address[1]}",
                                      codec=google_protobuf_binary_codec(), http_client=transport) as cacao:
            return (await cacao.suggest_action(asked),
                    [report async for report in cacao.analyze_position(analysis)])

    try:
        suggested, analysed = asyncio.run(over_connect())
        assert suggested.evaluation.forecast == over_grpc.evaluation.forecast
        assert analysed[-1].evaluation.final and analysed[-1].evaluation.forecast.playouts == 16
        assert analysed[-1].evaluation.forecast == reports[-1].evaluation.forecast  # a seed, a budget: one answer
    finally:
        http.shutdown()
    with CacaoClient(cacao_server[1], retries=0) as client:
        suggestion = client.suggest(Position.from_record(RECORD, 25).record(), Limit(iterations=100), seed=2,
                                    forecast=48)
    assert suggestion.evaluation.forecast == convert.forecast_from_proto(over_grpc.evaluation.forecast)
