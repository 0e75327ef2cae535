#!/usr/bin/env bash
# npm run test:e2e: the package inside a real n8n (installed as a community package) against
# the emulator. Ensures the runtime (cached in ~/.cache), builds, then runs test/e2e/suite.js (node:test cases in test/e2e/cases/).
#   E2E_KEEP=1          keep the temporary n8n user folder and logs
#   E2E_ONLY=<regexp>   run only the cases whose name matches
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

if [ ! -d node_modules ]; then
	echo "[e2e] installing development dependencies (npm ci)" >&2
	npm ci --no-audit --no-fund || {
		echo "[e2e] npm ci failed (is package-lock.json in sync with package.json?); trying npm install --no-save" >&2
		npm install --no-audit --no-fund --no-save
	}
fi
# the installer says in one line what failed and what to do
RUNTIME="$(bash scripts/ensure-runtime.sh)" || exit 1
eval "$RUNTIME"
echo "[e2e] building the package" >&2
npm run build --silent >&2

export NODE24 N8N_DIR N8N_BIN
exec "$NODE24" test/e2e/suite.js "$@"
