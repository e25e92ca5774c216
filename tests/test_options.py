"""Server options are declared once (cacaoai.server.options.OPTIONS): the
flags, their help and the environment variables come from the declaration,
``ServerOptions()`` and a ``cacao-server`` without flags agree, the docs'
tables are the ones written from it, and each ``ServerLimits`` field it names
reports its option (over a real server). The deploy files are checked against
the same declaration in tests/test_deploy.py.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import fields
from pathlib import Path

import grpc
import pytest

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.server import ServerOptions, create_server
from cacaoai.server.handlers import CacaoApi
from cacaoai.server.info import COMPUTED_LIMITS
from cacaoai.server.options import HOST, OPTIONS, PORT, parse_args, switch
from cacaoai.server.options_docs import OPERATIONS, PROTOCOL, check, main

ROOT = Path(__file__).resolve().parents[1]


def test_every_field_is_declared_once_with_a_flag_or_as_library_only():
    names = [o.name for o in OPTIONS]
    assert names == ["host", "port", *(f.name for f in fields(ServerOptions))]
    flags = [o.flag for o in OPTIONS if o.flag]
    assert len(flags) == len(set(flags))
    assert {o.name for o in OPTIONS if not o.flag} == {"min_report_interval_s", "deadline_margin_s"}


def test_a_server_without_flags_runs_what_server_options_gives_from_python():
    """One default each: cacao-server's own, the HTTP side on 8080 included."""
    host, port, options = parse_args([], {})
    assert (host, port) == (HOST.default, PORT.default)
    assert options == ServerOptions()
    assert ServerOptions().http_port == 8080
    assert ServerOptions().worker_threads > ServerOptions().max_searches


def test_a_library_default_worker_count_leaves_two_threads_for_quick_calls():
    options = ServerOptions(max_searches=16, max_queue=3)
    assert options.worker_threads == 2 * 16 + 2 * 3 + 2
    with pytest.raises(ValueError, match="worker_threads"):
        ServerOptions(max_searches=4, worker_threads=4)


@pytest.mark.parametrize("option", [o for o in OPTIONS if o.flag and o.parse not in (str,)],
                         ids=lambda o: o.flag)
def test_every_flag_and_its_variable_are_read_and_refuse_nonsense(option, capsys):
    """Each flag's variable is read with the flag's own parser: a value it
    cannot parse stops the server with a line naming the variable (or, for a
    value that parses but is not allowed, the variable as well); a flag's, with
    a line naming the flag."""
    with pytest.raises(SystemExit):
        parse_args([], {option.env: "nonsense"})
    said = capsys.readouterr().err.splitlines()[-1]
    assert f"{option.env}='nonsense' is not a valid" in said or f"{option.env}: " in said, said
    with pytest.raises(SystemExit):
        parse_args([f"--{option.flag}", "nonsense"], {})
    said = capsys.readouterr().err.splitlines()[-1]
    assert f"--{option.flag}" in said and option.name not in said.replace(f"--{option.flag}", ""), said


def test_a_flag_wins_over_its_variable_and_the_help_names_both():
    _, _, options = parse_args(["--reflection", "on", "--max-time", "7"],
                               {"CACAO_REFLECTION": "off", "CACAO_MAX_TIME": "9", "CACAO_GRACE": "1.5"})
    assert options.reflection and options.max_time_s == 7.0 and options.grace_s == 1.5
    assert switch("yes") and not switch("0")


def test_the_help_shows_each_flag_with_its_variable_and_default(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"], {"CACAO_MAX_QUEUE": "6"})
    shown = re.sub(r"\s+", " ", capsys.readouterr().out)
    for o in OPTIONS:
        if o.flag:
            assert f"--{o.flag}" in shown and f"[{o.env}, default " in shown, o.flag
    assert "[CACAO_MAX_QUEUE, default 6]" in shown  # what this environment gives
    assert "[CACAO_HTTP_PORT, default 8080]" in shown
    assert "[CACAO_MAX_SEARCHES, default the usable cores]" in shown


def test_the_docs_tables_are_the_ones_written_from_the_declaration():
    assert check(ROOT) == []


def test_the_check_names_a_default_the_docs_got_wrong_and_the_writer_mends_it(tmp_path):
    (tmp_path / "docs").mkdir()
    for path in (OPERATIONS, PROTOCOL):
        shutil.copy(ROOT / path, tmp_path / path)
    operations = (tmp_path / OPERATIONS).read_text()
    (tmp_path / OPERATIONS).write_text(operations.replace(
        "| `--max-queue` | `CACAO_MAX_QUEUE` | 4 |", "| `--max-queue` | `CACAO_MAX_QUEUE` | 5 |"))
    protocol = (tmp_path / PROTOCOL).read_text()
    assert "[`--max-time`] | 60 s |" in protocol
    (tmp_path / PROTOCOL).write_text(protocol.replace("[`--max-time`] | 60 s |", "[`--max-tim`] | 90 s |"))
    problems = check(tmp_path)
    assert any(str(OPERATIONS) in p and "differs" in p for p in problems), problems
    assert any("ServerLimits.max_time names ['max-tim']" in p for p in problems), problems
    assert main(["--root", str(tmp_path)]) == 1  # the flag's name is for a person to mend
    assert "[`--max-tim`] | 60 s |" in (tmp_path / PROTOCOL).read_text()
    assert (tmp_path / OPERATIONS).read_text() == (ROOT / OPERATIONS).read_text()


def _away_from_defaults() -> dict:
    """Every option a ServerLimits field reports, set to a value other than its default (and not 0)."""
    changed = {}
    for o in OPTIONS:
        if o.limit:
            changed[o.name] = ("reduced" if o.name == "search_priority" else
                               o.default + 0.5 if isinstance(o.default, float) else o.default + 1)
    changed["max_searches"] = 2
    return changed


def test_every_server_limits_field_is_filled_from_an_option_or_a_named_computed_value():
    """One home per fact: a ServerLimits field is an option's (its declaration names the
    field) or one of the few the handler computes, and GetServerInfo fills every one."""
    declared = [o.limit for o in OPTIONS if o.limit]
    assert len(declared) == len(set(declared)), "two options report one field"
    assert set(declared).isdisjoint(COMPUTED_LIMITS)
    every = {f.name for f in pb.ServerLimits.DESCRIPTOR.fields}
    assert every - set(declared) - set(COMPUTED_LIMITS) == set(), "fields no option or computed value fills"
    assert set(declared) | set(COMPUTED_LIMITS) <= every
    limits = CacaoApi(ServerOptions(**_away_from_defaults())).get_server_info(pb.GetServerInfoRequest()).limits
    assert {f.name for f, _ in limits.ListFields()} == every


def test_every_server_limit_declared_reports_its_option():
    """Each option's ServerLimits field, as GetServerInfo answers it over gRPC,
    with every such option away from its default."""
    changed = _away_from_defaults()
    options = ServerOptions(**changed)
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            limits = cacao_pb2_grpc.CacaoServiceStub(channel).GetServerInfo(
                pb.GetServerInfoRequest(), timeout=30).limits
    finally:
        server.stop(None).wait()
    for o in OPTIONS:
        if o.limit:
            reported = getattr(limits, o.limit)
            if hasattr(reported, "ToTimedelta"):
                reported = reported.ToTimedelta().total_seconds()
            elif o.name.endswith("_mb"):
                reported /= 2**20
            assert reported == changed[o.name], o.limit
