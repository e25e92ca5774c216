#!/usr/bin/env bash
# Checked build of the engine's C: compile the Cython modules with
# AddressSanitizer and UndefinedBehaviorSanitizer (and Cython's bounds checks,
# CACAO_CHECKED_BUILD=1) into their own build dir and venv, then run the engine,
# search and input-hardening tests and a fuzz slice under it. Any out-of-bounds
# access, use after free, overflow or other undefined behaviour aborts the run.
#
#   .ci/asan_check.sh [venv dir, default .venv-asan] [extra pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-.venv-asan}
shift || true
SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
LIBASAN=$(gcc -print-file-name=libasan.so)
[ -e "$LIBASAN" ] || { echo "asan_check: libasan not found (apt-get install gcc)" >&2; exit 2; }

if [ ! -x "$VENV/bin/python" ]; then  # the dependencies (and a first, plain build)
    python3 -m venv "$VENV" && "$VENV/bin/pip" install -q '.[test]'
fi
CACAO_BUILD_DIR=build-asan CACAO_CHECKED_BUILD=1 CFLAGS="$SANITIZE -O1" LDFLAGS="$SANITIZE" \
    "$VENV/bin/pip" install -q --no-deps --force-reinstall --no-cache-dir .
# the extension modules must carry the sanitizer runtime, or the run proves nothing
export LD_PRELOAD="$LIBASAN"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1"
for module in cacaoai.engine.core cacaoai.engine.snapshot cacaoai.search._mcts cacaoai.search._endgame; do
    SO=$("$VENV/bin/python" -c "import importlib, sys; print(importlib.import_module(sys.argv[1]).__file__)" $module)
    ldd "$SO" | grep libasan > /dev/null || { echo "asan_check: $SO is not instrumented" >&2; exit 2; }
done
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export CACAO_FUZZ_CASES=${CACAO_FUZZ_CASES:-600}
# no test depends on speed, so the slower instrumented build runs them all
"$VENV/bin/python" -m pytest -q -p no:cacheprovider \
    tests/test_rules.py tests/test_engine_api.py tests/test_conformance.py tests/test_features.py tests/test_search.py \
    tests/test_search_analysis.py tests/test_search_reuse.py \
    tests/test_bad_input.py tests/test_fuzz_server.py tests/test_snapshot_outcomes.py tests/test_endgame.py "$@"
echo "asan_check: no sanitizer report"
