#!/usr/bin/env bash
# npm run test:queue: the package in n8n's queue mode (PostgreSQL, Redis, main, two workers, one
# webhook process) against the emulator. Ensures the runtime (cached in ~/.cache), builds, then
# runs test/queue/suite.js (node:test cases in test/queue/cases/).
#   QUEUE_KEEP=1          keep the work folder and logs
#   QUEUE_ONLY=<regexp>   run only the cases whose name matches
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# shellcheck source=../lib/prepare.sh
source "$ROOT/test/lib/prepare.sh"
prepare_suite queue
exec "$NODE24" test/queue/suite.js "$@"
