"""docs/architecture.md's checklist "Adding an RPC", tested: for every method of
the service, each place the checklist names has it. A new RPC that misses one
fails here, naming the place (no server: reads the sources and the docs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cacaoai.api.methods import BY_NAME, SERVICE
from cacaoai.server import methods_docs
from cacaoai.server.methods import METHODS

ROOT = Path(__file__).resolve().parents[1]
NAMES = [method.name for method in SERVICE.methods]


def text(path: str) -> str:
    return (ROOT / path).read_text()


def camel(name: str) -> str:
    return name[0].lower() + name[1:]


def test_the_checklist_is_in_the_architecture_page():
    page = text("docs/architecture.md")
    section = page.split("**Adding an RPC**", 1)[1].split("\n\n", 2)
    checklist = "\n".join(section[:2])
    for place in ("cacao.proto", ".ci/gen_proto.sh", ".ci/gen_ts.sh", "proto/methods.py", "CacaoApi",
                  "methods_docs", "clients/client.py", "clients/aio.py", "docs/protocol.md",
                  "tests/test_roles.py", "web/src/api.ts"):
        assert place in checklist, f"the checklist lacks {place}"


@pytest.mark.parametrize("name", NAMES)
def test_every_rpc_has_each_place_of_the_checklist(name):
    missing = []
    rpc = BY_NAME.get(name)
    if rpc is None:
        missing.append("its row in proto/methods.py (RPCS)")
    else:
        from cacaoai.server.handlers import CacaoApi

        if not callable(getattr(CacaoApi, rpc.handler, None)):
            missing.append(f"its handler CacaoApi.{rpc.handler}")
        if rpc.admit and not callable(getattr(CacaoApi, rpc.admit, None)):
            missing.append(f"its admission CacaoApi.{rpc.admit}")
        if rpc.searches != (rpc.admit is not None):
            missing.append("an admission for a call that searches (and none for one that does not)")
    if name not in {m.name for m in METHODS}:
        missing.append("its binding in server/methods.py (METHODS)")
    for path in ("clients/client.py", "clients/aio.py"):
        if not re.search(rf"_stub\.{name}\b", text(path)):
            missing.append(f"a call of it in {path}")
    if f"  {name}: {{" not in text(str(methods_docs.TYPESCRIPT)):
        missing.append(f"its facts in {methods_docs.TYPESCRIPT} (.ci/gen_ts.sh)")
    if not re.search(rf"^### {name}$", text("docs/protocol.md").split("## Messages")[0], re.M):
        missing.append("its section under 'Calls' in docs/protocol.md")
    if f"| `{name}` |" not in text("docs/operations.md"):
        missing.append("its row of the role matrix in docs/operations.md (methods_docs)")
    if f'"{name}":' not in text("tests/test_roles.py"):
        missing.append("its request in tests/test_roles.py")
    assert not missing, f"{name} lacks: {'; '.join(missing)}"


def test_the_pages_client_speaks_only_calls_of_the_service():
    """The page calls the service through web/src/api.ts's generated client
    (``client.method(...)``): every call it makes is a method of the service,
    so a renamed or removed RPC fails here as well as in the page's build."""
    page = "".join(path.read_text() for path in sorted((ROOT / "web" / "src").rglob("*.ts")))
    calls = set(re.findall(r"\bclient\.(\w+)\(", page))
    assert calls, "the page calls no method through its client"
    assert calls <= {camel(name) for name in NAMES}, sorted(calls - {camel(name) for name in NAMES})
