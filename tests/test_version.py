"""Every installed command answers ``--version`` with its name and the release
the package's metadata reports, which is pyproject.toml's version and the
newest release of CHANGELOG.md.

The commands' ``main`` functions are called in this process, as the installed
scripts call them (``[project.scripts]``), so every command is checked without
starting thirteen interpreters.
"""

from __future__ import annotations

import importlib
import re
import tomllib
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
SCRIPTS: dict[str, str] = PROJECT["scripts"]


def entry_point(target: str) -> Callable[..., object]:
    """The function a ``[project.scripts]`` target names (``module:function``)."""
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)


def test_the_installed_release_is_pyprojects_version_and_the_changelogs_newest():
    releases = re.findall(r"^## (\d+\.\d+\.\d+)$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert metadata.version("cacaoai") == PROJECT["version"], \
        "reinstall the package (pip install -e .) after changing pyproject.toml's version"
    assert releases and releases[0] == PROJECT["version"], releases


@pytest.mark.parametrize("command", sorted(SCRIPTS))
def test_every_command_prints_its_name_and_the_installed_release(command, capsys):
    with pytest.raises(SystemExit) as ended:
        entry_point(SCRIPTS[command])(["--version"])
    out = capsys.readouterr()
    assert ended.value.code == 0, out.err
    assert out.out == f"{command} {metadata.version('cacaoai')}\n"
