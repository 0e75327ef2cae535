# Sourced by test/e2e/both.sh and test/ui-and-queue.sh.  sum_counts LOG...: "N passed, N failed"
# over the last such line of each log; a log without one (a suite ended early) is one failure.
sum_counts() {
	local passed=0 failed=0 log line
	for log in "$@"; do
		line="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)"
		[ -n "$line" ] || { failed=$((failed + 1)); continue; }
		passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
		failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
	done
	echo "$passed passed, $failed failed"
}
