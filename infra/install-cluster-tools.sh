#!/usr/bin/env bash
# The cluster tier's system tools, from Debian: PostgreSQL (the server's database), openssl (its
# certificates) and Go (to build the Temporal server from the module proxy). Installed only when
# missing; as root, or with passwordless sudo. Then the server binaries and MinIO (the artifact
# store tests' object store), built once per version.
set -euo pipefail
. "$(dirname "$0")/apt-install.sh"
cd "$(dirname "$0")/.."
need=()
if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then need+=(postgresql); fi
if ! command -v openssl >/dev/null 2>&1; then need+=(openssl); fi
if ! command -v go >/dev/null 2>&1; then need+=(golang); fi
apt_install "the cluster tier" "${need[@]}"
node -e "require('./lib/infra/cluster/server-binary').ensureServerBinaries(undefined, (l) => console.error('setup: ' + l))"
node -e "require('./lib/infra/cluster/minio').ensureMinioBinary(undefined, (l) => console.error('setup: ' + l))"
