"""What the project says about getting it agrees with what it ships: the
licence every package declares.

Files are read, nothing is built or installed (``npm`` need not be there).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "clients" / "typescript"
PACKAGES = [CLIENT / "package.json", ROOT / "web" / "package.json"]


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_licence_is_the_mit_licence_every_package_declares():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the cacaoai authors\n"), text[:80]
    assert "THE SOFTWARE IS PROVIDED \"AS IS\"" in text
    assert pyproject()["project"]["license"] == {"text": "MIT"}
    for path in PACKAGES:
        assert json.loads(path.read_text())["license"] == "MIT", path
