"""What is written from the API's method table (:mod:`cacaoai.api.methods`)
rather than by hand: docs/operations.md's role matrix (between its two
marker comments) and the TypeScript client's ``src/gen/cacao/v1/cacao_methods.ts``
(its retry policy's facts, as its messages are generated from the proto).

From the project root::

    python -m cacaoai.server.methods_docs           # rewrite both
    python -m cacaoai.server.methods_docs --check   # exit 1, saying what is stale

``.ci/gen_ts.sh`` runs it after the TypeScript messages (CI diffs the output);
tests/test_roles.py runs the check and tests the matrix against a real server.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cacaoai.api.methods import RETRY_ALWAYS, ROLES, RPCS, SEARCHES, Rpc

OPERATIONS = Path("docs") / "operations.md"
TYPESCRIPT = Path("clients") / "typescript" / "src" / "gen" / "cacao" / "v1" / "cacao_methods.ts"
BEGIN = "<!-- roles: written by python -m cacaoai.server.methods_docs from cacaoai.api.methods -->"
END = "<!-- end of roles -->"

#: What a call answers a caller with no token, or with one the server does not accept.
NO_TOKEN = "UNAUTHENTICATED"
#: The calls outside cacao.v1 (gRPC only) and who may make them: health is
#: open (probes carry no token), reflection needs any accepted token.
OTHER_SERVICES = (("grpc.health.v1.Health/*", True), ("grpc.reflection.*/*", False))


def answer(rpc: Rpc, role: str | None) -> str:
    """The documented answer of `rpc` to a token of `role` (None: no accepted
    token): "OK", "OK, background" (the search runs at background priority),
    PERMISSION_DENIED or UNAUTHENTICATED."""
    if role is None:
        return NO_TOKEN
    if not rpc.allows(role):
        return "PERMISSION_DENIED"
    return "OK, background" if rpc.priority_for(role) is not None else "OK"


def roles_table() -> str:
    """docs/operations.md's matrix: one row per call, one column per kind of caller."""
    header = ["call", "searches", "default priority", *[f"`{r}` token" for r in ROLES],
              "no token, unknown token", "clients retry on"]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for rpc in RPCS:
        cells = [f"`{rpc.name}`", "yes" if rpc.searches else "no",
                 rpc.priority.value if rpc.priority else "–",
                 *[answer(rpc, role) for role in ROLES], answer(rpc, None),
                 ", ".join(f"`{code}`" for code in rpc.retry_codes)]
        rows.append("| " + " | ".join(cells) + " |")
    for name, open_ in OTHER_SERVICES:
        ok = "OK"
        cells = [f"`{name}` (gRPC)", "no", "–", *[ok for _ in ROLES], ok if open_ else NO_TOKEN, "–"]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def typescript() -> str:
    """The TypeScript client's facts of each call."""
    def codes(names: tuple[str, ...]) -> str:
        return "[" + ", ".join("Code." + "".join(w.capitalize() for w in n.split("_")) for n in names) + "]"

    lines = [
        "// Written by `python -m cacaoai.server.methods_docs` from the API's method table",
        "// (cacaoai.api.methods) after `npm run generate`; do not edit: .ci/gen_ts.sh makes it.",
        'import { Code } from "@connectrpc/connect";',
        "",
        "/** What a client must know of one call of cacao.v1.CacaoService. */",
        "export interface MethodFacts {",
        "  /** It takes one of the server's search slots (a full server refuses it with ResourceExhausted). */",
        "  searches: boolean;",
        "  /** Codes on which the call may be sent again. */",
        "  retryCodes: Code[];",
        "  /** Token roles that may call it. */",
        "  roles: string[];",
        "}",
        "",
        "/** Every call of the service, by its name in the proto. */",
        "export const METHODS: Readonly<Record<string, MethodFacts>> = {",
    ]
    for rpc in RPCS:
        roles = ", ".join(f'"{r}"' for r in ROLES if rpc.allows(r))
        lines.append(f"  {rpc.name}: {{ searches: {str(rpc.searches).lower()}, "
                     f"retryCodes: {codes(rpc.retry_codes)}, roles: [{roles}] }},")
    lines += [
        "};",
        "",
        "/** The calls that search. */",
        "export const SEARCH_METHODS: readonly string[] = ["
        + ", ".join(f'"{rpc.name}"' for rpc in RPCS if rpc.name in SEARCHES) + "];",
        "",
        "/** Codes on which any call may be sent again. */",
        f"export const RETRY_ALWAYS: readonly Code[] = {codes(RETRY_ALWAYS)};",
        "",
    ]
    return "\n".join(lines)


def _with_table(text: str, table: str) -> str:
    try:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
    except ValueError:
        raise ValueError(f"{OPERATIONS} lacks the markers {BEGIN!r} ... {END!r}") from None
    return f"{head}{BEGIN}\n{table}\n{END}{tail}"


def stale(root: Path = Path(".")) -> list[str]:
    """The files that differ from what the table writes (empty: all current)."""
    found = []
    docs = (root / OPERATIONS).read_text()
    if _with_table(docs, roles_table()) != docs:
        found.append(str(OPERATIONS))
    ts = root / TYPESCRIPT
    if not ts.exists() or ts.read_text() != typescript():
        found.append(str(TYPESCRIPT))
    return found


def write(root: Path = Path("."), typescript_only: bool = False) -> None:
    """Writes the docs' matrix and the TypeScript facts."""
    if not typescript_only:
        path = root / OPERATIONS
        path.write_text(_with_table(path.read_text(), roles_table()))
    (root / TYPESCRIPT).write_text(typescript())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cacaoai.server.methods_docs", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a written file is stale")
    parser.add_argument("--typescript", action="store_true", help="write the TypeScript facts only")
    args = parser.parse_args(argv)
    if args.check:
        found = stale()
        for path in found:
            print(f"{path} is stale: run python -m cacaoai.server.methods_docs", file=sys.stderr)
        return 1 if found else 0
    write(typescript_only=args.typescript)
    return 0


if __name__ == "__main__":
    sys.exit(main())
