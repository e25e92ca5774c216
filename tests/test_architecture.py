"""docs/architecture.md maps every module in one line: a module added to a
package folder (or to web/src) without its line fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
# the folders the page maps, and which files are modules
FOLDERS = {"engine_ext": r"\.(py|pyx|pxd|pxi|pyi)$", "search": r"\.(py|pyx|pxd|pxi|pyi)$",
           "lab": r"\.py$", "proto": r"\.(py|pyi)$", "server": r"\.py$", "clients": r"\.py$",
           "deploy": r"\.py$", "web/src": r"\.ts$"}


def _modules() -> list[tuple[str, str]]:
    """(folder, path inside it) of every module the page should map."""
    found = []
    for folder, pattern in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*")):
            inside = path.relative_to(ROOT / folder).as_posix()
            if (path.is_file() and re.search(pattern, path.name) and "__pycache__" not in inside
                    and not inside.startswith("typescript/") and not path.name.endswith(".d.ts")):
                found.append((folder, inside))
    return found


def test_every_module_has_its_line_in_the_architecture_page():
    page = ARCHITECTURE.read_text()
    sections = re.split(r"^\*\*`", page, flags=re.M)
    by_folder = {}
    for section in sections[1:]:
        folder = section.split("`", 1)[0].rstrip("/")
        by_folder[folder] = section
    missing = [f"{folder}/{inside}" for folder, inside in _modules()
               if f"`{inside}`" not in by_folder.get(folder, "")]
    assert not missing, f"docs/architecture.md, 'Every module in one line', lacks: {missing}"


def test_the_check_sees_the_modules():
    modules = _modules()
    assert ("server", "handlers.py") in modules and ("web/src", "main.ts") in modules
