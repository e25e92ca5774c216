#!/usr/bin/env bash
# Regenerates the Python modules of the cacao.v1 API from proto/cacao/v1/*.proto.
#
# The generated modules sit next to their .proto files and install as
# cacaoai.api.cacao.v1 (setup.py maps cacaoai.api -> proto/). The virtual include
# path "-Icacaoai/api=proto" makes protoc write imports under that name.
#
# - cacao_pb2.py, cacao_pb2.pyi, cacao_pb2_grpc.py: protobuf and gRPC (grpcio-tools);
# - cacao_connect.py: the Connect service, ASGI application and clients, written by
#   connectrpc's own plugin (protoc-gen-connectrpc, formerly protoc-gen-connect-python)
#   for Google's protobuf runtime (protobuf=google);
# - proto/error_details_pb.py: the google.rpc error details (BadRequest, ErrorInfo, ...)
#   for the protobuf-py runtime that connectrpc's errors are made of (protoc-gen-py),
#   from the googleapis file that clients/typescript/proto/ also generates from.
#
# The output is committed; CI regenerates and checks `git diff --exit-code`.
#
# Usage: .ci/gen_proto.sh [PYTHON]   (default: .venv/bin/python, else python3;
#        its environment has grpcio-tools, protoc-gen-connectrpc and protoc-gen-py:
#        pip install '.[dev]')
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-}"
if [[ -z "$PY" ]]; then
    if [[ -x .venv/bin/python ]]; then PY=.venv/bin/python; else PY=python3; fi
fi
BIN="$(dirname "$PY")"
for plugin in protoc-gen-connectrpc protoc-gen-py; do
    if [[ ! -x "$BIN/$plugin" ]]; then
        echo "$BIN/$plugin is missing: pip install '.[dev]' into that environment" >&2
        exit 1
    fi
done
OUT="$(mktemp -d)"; mkdir "$OUT/rpc"
trap 'rm -rf "$OUT"' EXIT
"$PY" -m grpc_tools.protoc \
    -Icacaoai/api=proto \
    --python_out="$OUT" --pyi_out="$OUT" --grpc_python_out="$OUT" \
    --plugin=protoc-gen-connectrpc="$BIN/protoc-gen-connectrpc" \
    --connectrpc_out="$OUT" --connectrpc_opt=protobuf=google \
    proto/cacao/v1/*.proto
"$PY" -m grpc_tools.protoc \
    -Iclients/typescript/proto \
    --plugin=protoc-gen-py="$BIN/protoc-gen-py" --py_out="$OUT/rpc" \
    google/rpc/error_details.proto
rm -f proto/cacao/v1/*_pb2.py proto/cacao/v1/*_pb2.pyi proto/cacao/v1/*_pb2_grpc.py \
    proto/cacao/v1/*_connect.py proto/error_details_pb.py
cp "$OUT"/cacaoai/api/cacao/v1/*.py "$OUT"/cacaoai/api/cacao/v1/*.pyi proto/cacao/v1/
cp "$OUT"/rpc/google/rpc/error_details_pb.py proto/error_details_pb.py
echo "generated: $(cd proto/cacao/v1 && ls *_pb2*.py* *_connect.py | tr '\n' ' ')proto/error_details_pb.py"
