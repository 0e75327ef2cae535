#!/usr/bin/env bash
# npm test's last step: the browser suite and the queue-mode suite side by side (both mostly wait).
# Both pack dist/: the queue suite starts first, in the background, and has packed its tarball when
# it prints "# work folder"; then the browser suite, in the foreground (its `npm start` rebuilds
# dist/ and is stopped with Ctrl-C, which a background job could not receive). Exit status: the
# first failing suite's; the last line counts both suites.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=lib/counts.sh
source "$ROOT/test/lib/counts.sh"

logs="$(mktemp -d /tmp/docex-ui-queue.XXXXXX)"
queue_pid=""
cleanup() {
	{ [ -z "$queue_pid" ] || kill "$queue_pid" 2>/dev/null; } || true
	rm -rf "$logs"
}
trap cleanup EXIT

STARTED=$(date +%s)
(bash test/queue/run.sh 2>&1 | tee "$logs/queue.log" | sed -u 's/^/[queue] /'; exit "${PIPESTATUS[0]}") &
queue_pid=$!

# the queue suite's tarball is made (or the suite ended early)
while kill -0 "$queue_pid" 2>/dev/null && ! grep -q '^# work folder' "$logs/queue.log" 2>/dev/null; do
	sleep 1
done
echo "[ui-and-queue] the queue suite has packed the package ($(($(date +%s) - STARTED)) s in); the browser suite starts"

ui_status=0
bash test/ui/run.sh 2>&1 | tee "$logs/ui.log" || ui_status=$?
queue_status=0
wait "$queue_pid" || queue_status=$?
queue_pid=""

echo "[ui-and-queue] took $(($(date +%s) - STARTED)) s (browser suite: exit $ui_status, queue suite: exit $queue_status)"
echo "ui and queue"
sum_counts "$logs/ui.log" "$logs/queue.log"
[ "$ui_status" -eq 0 ] || exit "$ui_status"
exit "$queue_status"
