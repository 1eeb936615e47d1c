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
