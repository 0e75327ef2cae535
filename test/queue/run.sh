#!/usr/bin/env bash
# npm run test:queue: the package in n8n's queue mode (PostgreSQL, Redis, main, two workers, one
# webhook process) against the emulator. Ensures the runtime (cached in ~/.cache), builds, then
# runs test/queue/suite.js (node:test cases in test/queue/cases/).
#   QUEUE_KEEP=1          keep the work folder and logs
#   QUEUE_ONLY=<regexp>   run only the cases whose name matches
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

if [ ! -d node_modules ]; then
	echo "[queue] installing development dependencies (npm ci)" >&2
	npm ci --no-audit --no-fund
fi
RUNTIME="$(bash scripts/ensure-runtime.sh)" || exit 1
eval "$RUNTIME"
echo "[queue] building the package" >&2
npm run build --silent >&2

export NODE24 N8N_DIR N8N_BIN
exec "$NODE24" test/queue/suite.js "$@"
