#!/usr/bin/env bash
# Idempotent set-up behind `npm run demo` and `npm test`: dependencies (only when the lock file
# changed), the TypeScript build, the workflow bundle, and a Temporal CLI where none is found.
# With --test, also the tests' system tools (install-test-tools.sh); with --cluster, the cluster
# tier's (install-cluster-tools.sh: PostgreSQL, openssl, Go, and the Temporal server built from Go).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi
npx tsc -p .
node lib/src/runtime/bundle-workflows.js
node lib/infra/install-temporal-cli.js
if [ "${1:-}" = "--test" ]; then bash infra/install-test-tools.sh; fi
if [ "${1:-}" = "--cluster" ]; then bash infra/install-cluster-tools.sh; fi
