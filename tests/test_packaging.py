"""What the project says about getting it agrees with what it ships: the
licence every package declares, the prerequisites at the top of the README,
and the TypeScript client's Node.js floor and tarball.

Files are read, nothing is built or installed (``npm`` need not be there).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "clients" / "typescript"
PACKAGES = [CLIENT / "package.json", ROOT / "web" / "package.json"]


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def client_package() -> dict:
    return json.loads((CLIENT / "package.json").read_text())


def words(text: str) -> str:
    """The text with every run of white space made one space (lines rejoined)."""
    return " ".join(text.split())


def floor(spec: str) -> tuple[int, ...]:
    """The lowest version a ``>=`` range allows: ``">=14.17"`` is (14, 17)."""
    match = re.fullmatch(r">=\s*v?(\d+(?:\.\d+)*)", spec.strip())
    assert match, f"{spec!r} is not a '>=' range"
    return tuple(int(n) for n in match.group(1).split("."))


def test_the_licence_is_the_mit_licence_every_package_declares():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the cacaoai authors\n"), text[:80]
    assert "THE SOFTWARE IS PROVIDED \"AS IS\"" in text
    assert pyproject()["project"]["license"] == {"text": "MIT"}
    for path in PACKAGES:
        assert json.loads(path.read_text())["license"] == "MIT", path


# Locked packages that declare a higher Node.js floor than the client's and work on the
# client's floor (its check, build, generator and tests pass there): npm warns EBADENGINE
# for them, and both READMEs name them.
DECLARED_ABOVE_FLOOR = {"@connectrpc/connect-node", "@bufbuild/protoc-gen-es"}


def test_the_typescript_clients_node_floor_is_the_highest_its_locked_packages_ask_for():
    """``engines.node`` of @cacaoai/client is the true minimum: the highest
    floor among the packages its lock file installs (today 20, from
    playwright-core), leaving out those that declare more and work on less
    (DECLARED_ABOVE_FLOOR, today 22), which the READMEs name."""
    lock = json.loads((CLIENT / "package-lock.json").read_text())
    asked = {name.removeprefix("node_modules/"): floor(entry["engines"]["node"])
             for name, entry in lock["packages"].items()
             if name and isinstance(entry.get("engines"), dict) and "node" in entry["engines"]}
    highest = max(v for name, v in asked.items() if name not in DECLARED_ABOVE_FLOOR)
    assert floor(client_package()["engines"]["node"]) == highest, \
        {name: ".".join(map(str, v)) for name, v in asked.items() if v == highest}
    for name in DECLARED_ABOVE_FLOOR:
        assert asked[name] > highest, f"{name} no longer declares more than {highest}"
        for readme in (ROOT / "README.md", CLIENT / "README.md"):
            assert f"`{name}`" in readme.read_text(), f"{readme.name} does not name {name}"


def test_the_readme_starts_with_the_prerequisites_the_packages_declare():
    readme = (ROOT / "README.md").read_text()
    top = words(readme.split("\n## ", 1)[0])  # before the first section
    python = floor(pyproject()["project"]["requires-python"])
    node = floor(client_package()["engines"]["node"])
    assert f"Prerequisites: Python {'.'.join(map(str, python))} or later" in top, top
    assert "a C compiler" in top
    assert f"Node.js {'.'.join(map(str, node))} or later is needed only for" in top, top


def test_the_typescript_clients_readme_installs_the_tarball_npm_pack_writes():
    package = client_package()
    assert package["private"] is True  # not on the registry: the tarball is the way
    tarball = f"{package['name'].removeprefix('@').replace('/', '-')}-{package['version']}.tgz"
    readme = (CLIENT / "README.md").read_text()
    assert f"npm ci && npm pack       # builds dist/ and writes {tarball}" in readme
    assert f"npm install path/to/cacaoai/clients/typescript/{tarball}" in readme
    node = ".".join(map(str, floor(package["engines"]["node"])))
    assert f"Node.js {node} or later" in words(readme)
    assert "*.tgz" in (CLIENT / ".gitignore").read_text().split()  # the tarball is not committed
