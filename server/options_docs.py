"""The docs' tables of server options, written from their one declaration
(:data:`cacaoai.server.options.OPTIONS`).

docs/operations.md's table of flags (between its two marker comments) is
written whole; docs/protocol.md's ``ServerLimits`` table gets its default
column written, and the flag each row names checked. Defaults that the prose
of the two pages repeats (`` `--grace` (5) ``) are checked too.

From the project root::

    python -m cacaoai.server.options_docs           # rewrite the tables
    python -m cacaoai.server.options_docs --check   # exit 1, saying what differs

tests/test_options.py runs the check.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from .options import OPTIONS, Option

OPERATIONS = Path("docs") / "operations.md"
PROTOCOL = Path("docs") / "protocol.md"
BEGIN = "<!-- options: written by python -m cacaoai.server.options_docs from cacaoai.server.options -->"
END = "<!-- end of options -->"

#: Words of a help text that the docs write as code: flags, status codes, "*".
_CODE = re.compile(r"(?<![\w`-])(--[a-z][a-z-]*|[A-Z]+(?:_[A-Z]+)+|\*)(?![\w`])")
_FLAG_IN_PROSE = re.compile(r"`--([a-z][a-z-]*)`(?: seconds)? \((\d[\d,]*(?:\.\d+)?)")


def ticked(text: str) -> str:
    """Plain help text as Markdown: flags and status codes as code."""
    return _CODE.sub(r"`\1`", text)


def operations_table() -> str:
    """docs/operations.md's table: one row per flag, in declaration order."""
    rows = ["| flag | variable | default | meaning |", "|---|---|---|---|"]
    for o in OPTIONS:
        if not o.flag:
            continue
        meaning = ticked(o.help)
        if o.see:
            meaning += f" ([{o.see[0]}](#{o.see[1]}))"
        rows.append(f"| `--{o.flag}` | `{o.env}` | {ticked(o.show(o.default))} | {meaning} |")
    return "\n".join(rows)


def limit_default(o: Option) -> str:
    """The default as docs/protocol.md's ServerLimits table writes it, in the
    unit of the field that reports it (seconds as a Duration, MiB as bytes)."""
    if o.shown:
        return ticked(o.shown)
    if isinstance(o.default, float):
        return f"{o.default:g} s"
    if isinstance(o.default, str):
        return f"`{o.default}`"
    if o.name.endswith("_mb"):
        return f"{o.default} MiB"
    return f"{o.default:,}"


def write_operations(text: str) -> str:
    """The page with its table between the markers written anew."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return f"{text[:start]}\n\n{operations_table()}\n\n{text[end:]}"


def write_protocol(text: str, problems: list[str]) -> str:
    """The page with the default cell of each declared ServerLimits row
    written anew; a row naming another flag, or a declared field without a
    row, goes to ``problems``."""
    limits = {o.limit: o for o in OPTIONS if o.limit}
    start = text.index("`ServerLimits` (")
    table_start = text.index("\n|", start) + 1
    table_end = text.find("\n\n", table_start)
    lines = text[table_start:table_end].split("\n")
    seen = set()
    for i, line in enumerate(lines[2:], start=2):
        cells = line.strip("|").split("|")
        name = cells[0].strip().strip("`")
        o = limits.get(name)
        if o is None:
            continue
        seen.add(name)
        flags = re.findall(r"\[`--([a-z-]+)`\]", cells[2])
        if flags != ([o.flag] if o.flag else []):
            problems.append(f"{PROTOCOL}: ServerLimits.{name} names {flags or 'no flag'}; "
                            f"its option {o.name} has {o.flag or 'none'}")
        cells[-1] = f" {limit_default(o)} "
        lines[i] = "|" + "|".join(cells) + "|"
    problems += [f"{PROTOCOL}: no row for ServerLimits.{name}, which reports {o.name}"
                 for name, o in limits.items() if name not in seen]
    return text[:table_start] + "\n".join(lines) + text[table_end:]


def prose_problems(path: Path, text: str) -> list[str]:
    """Defaults that the prose repeats after a flag, `` `--grace` (5) ``, that
    are not the declared ones."""
    text = text.replace(text[text.find(BEGIN):text.find(END)], "") if BEGIN in text else text
    flags = {o.flag: o for o in OPTIONS if o.flag}
    problems = []
    for match in _FLAG_IN_PROSE.finditer(text):
        flag, number = match.groups()
        o = flags.get(flag)
        if o is None:
            problems.append(f"{path}: {match.group(0)}: cacao-server has no --{flag}")
        elif float(number.replace(",", "")) != o.default:
            problems.append(f"{path}: {match.group(0)}...: its default is {o.show(o.default)}")
    return problems


def rewrite(root: Path) -> tuple[dict[Path, str], list[str]]:
    """(path -> its text with the tables written, problems the writing cannot fix)."""
    problems: list[str] = []
    written = {OPERATIONS: write_operations((root / OPERATIONS).read_text()),
               PROTOCOL: write_protocol((root / PROTOCOL).read_text(), problems)}
    for path, text in written.items():
        problems += prose_problems(path, text)
    return written, problems


def check(root: Path) -> list[str]:
    """What differs between the docs under ``root`` and the declaration (empty: nothing)."""
    written, problems = rewrite(root)
    stale = [f"{path}: its options table differs from cacaoai.server.options; run "
             "python -m cacaoai.server.options_docs" for path, text in written.items()
             if (root / path).read_text() != text]
    return stale + problems


def main(argv: list[str] | None = None) -> int:
    """Rewrites the tables (or, with --check, says what differs); returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m cacaoai.server.options_docs",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 on a difference")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the project's folder")
    args = parser.parse_args(argv)
    if args.check:
        problems = check(args.root)
    else:
        written, problems = rewrite(args.root)
        for path, text in written.items():
            (args.root / path).write_text(text)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
