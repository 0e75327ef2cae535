#!/usr/bin/env bash
# npm run test:queue: ensures the runtime (cached in ~/.cache), builds, runs test/queue/suite.js.
#   QUEUE_KEEP=1 keeps the work folder; QUEUE_ONLY=<regexp> runs the cases whose name matches
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# shellcheck source=../lib/prepare.sh
source "$ROOT/test/lib/prepare.sh"
prepare_suite queue
exec "$NODE24" test/queue/suite.js "$@"
