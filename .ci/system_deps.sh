#!/usr/bin/env bash
# The Debian packages the tests need, installed when missing (as root, with apt):
#   chromium     tests/test_browser.py drives the board page (Playwright downloads no browser)
#   nginx-light  tests/test_nginx.py puts nginx (grpc_pass) in front of server replicas
#   openssl      tests/test_security.py makes its TLS certificates with it
#   jq           the shell examples of README.md and docs/ (tests/test_docs.py runs them)
set -euo pipefail
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v nginx >/dev/null || missing+=(nginx-light)
command -v openssl >/dev/null || missing+=(openssl)
command -v jq >/dev/null || missing+=(jq)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
