#!/usr/bin/env bash
# npm test's end-to-end step: the e2e suite on n8n 2.41.1 and 1.123.81 side by side, built once,
# each on ports and in a work folder of its own; lines prefixed with the version; exits with the
# first failing suite's status.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# shellcheck source=../lib/prepare.sh
source "$ROOT/test/lib/prepare.sh"
# shellcheck source=../lib/counts.sh
source "$ROOT/test/lib/counts.sh"
prepare_suite e2e --npm-install-fallback
export E2E_BUILT=1

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

run_one() {
	local version="$1"
	N8N_VERSION="$version" bash test/e2e/run.sh 2>&1 | tee "$logs/$version.log" | sed -u "s/^/[$version] /"
	return "${PIPESTATUS[0]}"
}

run_one 2.41.1 &
first=$!
run_one 1.123.81 &
second=$!
status=0
wait "$first" || status=$?
wait "$second" || { rc=$?; [ "$status" -ne 0 ] || status=$rc; }
echo "e2e: both versions"
sum_counts "$logs"/*.log
exit "$status"
