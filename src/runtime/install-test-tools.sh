#!/usr/bin/env bash
# The tests' system tools, from Debian: chromium (the web app's browser test, driven by playwright-core)
# and docker-compose (the compose file is checked with `docker-compose config`, which needs no engine).
# Installed only when missing; as root, or with passwordless sudo.
set -euo pipefail
need=()
if [ -z "${BATON_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then need+=(chromium); fi
if ! command -v docker-compose >/dev/null 2>&1; then need+=(docker-compose); fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then sudo=(); elif sudo -n true 2>/dev/null; then sudo=(sudo -n); else
  echo "setup: the tests need ${need[*]} (Debian packages); install them, e.g. sudo apt-get install ${need[*]}" >&2
  exit 1
fi
echo "setup: apt-get install ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
install() { "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }
# A fresh machine may have no package lists yet: read them once and try again.
install || { "${sudo[@]}" apt-get update -qq >/dev/null && install; }
