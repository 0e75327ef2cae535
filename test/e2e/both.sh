#!/usr/bin/env bash
# npm test's end-to-end step: the e2e suite on n8n 2.41.1 and on 1.123.81, side by side (each
# suite is mostly one n8n process at a time, and the machine has two cores). The package is
# built once, before both; each suite then ensures its own n8n, packs the package and runs its
# cases in a work folder of its own, on ports of its own. Each suite's lines are prefixed with
# its version; the exit status is the first failing suite's, 0 when both pass.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# shellcheck source=../lib/prepare.sh
source "$ROOT/test/lib/prepare.sh"
# dependencies and the build, once for both suites
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
# one closing line for both suites
passed=0
failed=0
for log in "$logs"/*.log; do
	line="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)"
	[ -n "$line" ] || { failed=$((failed + 1)); continue; }
	passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
	failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
done
echo "e2e: both versions"
echo "$passed passed, $failed failed"
exit "$status"
