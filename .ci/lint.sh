#!/usr/bin/env bash
# Static checks: ruff on the sources, then import-linter's layer contracts and
# mypy on the installed package (both read pyproject.toml).
# Usage: .ci/lint.sh [venv dir, default .venv]   (the venv has '.[lint]' installed)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv}"
"$VENV/bin/ruff" check .
"$VENV/bin/lint-imports"
"$VENV/bin/mypy" -p cacaoai.server -p cacaoai.engine -p cacaoai.search -p cacaoai.lab -p cacaoai.api -p cacaoai.client -p cacaoai.deploy
