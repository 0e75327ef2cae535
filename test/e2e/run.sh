#!/usr/bin/env bash
# npm run test:e2e: ensures the runtime (cached in ~/.cache), builds, runs test/e2e/suite.js.
#   E2E_KEEP=1 keeps the work folder; E2E_ONLY=<regexp> runs the cases whose name matches
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# shellcheck source=../lib/prepare.sh
source "$ROOT/test/lib/prepare.sh"
prepare_suite e2e --npm-install-fallback
exec "$NODE24" test/e2e/suite.js "$@"
