#!/usr/bin/env bash
# Regenerates the Python modules of the cacao.v1 API from proto/cacao/v1/*.proto.
#
# The generated modules sit next to their .proto files and install as
# cacaoai.api.cacao.v1 (setup.py maps cacaoai.api -> proto/). The virtual include
# path "-Icacaoai/api=proto" makes protoc write imports under that name.
# The output is committed; CI regenerates and checks `git diff --exit-code`.
#
# Usage: .ci/gen_proto.sh [PYTHON]   (default: .venv/bin/python, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-}"
if [[ -z "$PY" ]]; then
    if [[ -x .venv/bin/python ]]; then PY=.venv/bin/python; else PY=python3; fi
fi
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
"$PY" -m grpc_tools.protoc \
    -Icacaoai/api=proto \
    --python_out="$OUT" --pyi_out="$OUT" --grpc_python_out="$OUT" \
    proto/cacao/v1/*.proto
rm -f proto/cacao/v1/*_pb2.py proto/cacao/v1/*_pb2.pyi proto/cacao/v1/*_pb2_grpc.py
cp "$OUT"/cacaoai/api/cacao/v1/*.py "$OUT"/cacaoai/api/cacao/v1/*.pyi proto/cacao/v1/
echo "generated: $(cd proto/cacao/v1 && ls *_pb2*.py* | tr '\n' ' ')"
