#!/usr/bin/env bash
# npm run test:e2e: the package inside a real n8n (installed as a community package) against
# the emulator. Ensures the runtime (cached in ~/.cache), builds, then runs test/e2e/suite.js (node:test cases in test/e2e/cases/).
#   E2E_KEEP=1          keep the temporary n8n user folder and logs
#   E2E_ONLY=<regexp>   run only the cases whose name matches
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# shellcheck source=../lib/prepare.sh
source "$ROOT/test/lib/prepare.sh"
prepare_suite e2e --npm-install-fallback
exec "$NODE24" test/e2e/suite.js "$@"
