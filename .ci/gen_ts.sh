#!/usr/bin/env bash
# Regenerates the TypeScript messages and service of the cacao.v1 API
# (clients/typescript/src/gen/) from proto/cacao/v1/*.proto and the google.rpc
# error details, with protoc-gen-es run by buf (both from npm; buf.gen.yaml there).
# Then the calls' facts (src/gen/cacao/v1/cacao_methods.ts) from the API's method table,
# with the project's Python ($PYTHON, default .venv/bin/python: the package installed).
# The output is committed; CI regenerates and checks `git diff --exit-code`.
#
# Usage: .ci/gen_ts.sh   (installs the package's npm dependencies first if missing)
set -euo pipefail
cd "$(dirname "$0")/../clients/typescript"
if [[ ! -x node_modules/.bin/buf || ! -x node_modules/.bin/protoc-gen-es ]]; then
    npm ci --no-audit --no-fund
fi
npm run --silent generate
(cd ../.. && "${PYTHON:-.venv/bin/python}" -m cacaoai.server.methods_docs --typescript)
echo "generated: $(cd src/gen && find . -name '*.ts' | sort | tr '\n' ' ')"
