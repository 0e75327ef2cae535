#!/usr/bin/env bash
# `npm start` checked from outside: the emulator and n8n answer, n8n lists the package, and Ctrl-C
# (SIGINT to the whole group, as a terminal sends it) leaves no process and no port behind.
#   START_SMOKE_TIMEOUT (900)  seconds to wait for the editor (a cold runtime install included)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
TIMEOUT="${START_SMOKE_TIMEOUT:-900}"
WORK="$(mktemp -d /tmp/docex-start-smoke.XXXXXX)"
LOG_PREFIX=start-smoke
# shellcheck source=npm-start.sh
source "$ROOT/test/start/npm-start.sh"

finish() {
	local rc=$?
	npm_start_kill
	[ "$rc" -eq 0 ] || { log "npm start's output:"; tail -40 "$START_LOG" >&2 || true; }
	rm -rf "$WORK"
	exit "$rc"
}
trap finish EXIT

npm_start_begin "$TIMEOUT"
curl -fsS -o /dev/null "$EDITOR_URL" || { log "error: the editor at $EDITOR_URL does not answer"; exit 1; }
curl -fsS -o /dev/null "http://127.0.0.1:$EMULATOR_PORT/_emulator/health" || { log "error: the emulator does not answer"; exit 1; }
log "the editor and the emulator answer"
node test/start/listed.js "http://127.0.0.1:$N8N_PORT" "$LOGIN_EMAIL" "$LOGIN_PASSWORD"

npm_start_stop
for port in "$N8N_PORT" "$EMULATOR_PORT"; do
	if listening "$port"; then log "error: port $port still answers after Ctrl-C"; exit 1; fi
done
leftover="$(pgrep -af "$WORK" || true)"
[ -z "$leftover" ] || { log "error: processes left running after Ctrl-C:"; echo "$leftover" >&2; exit 1; }
log "stopped cleanly: no process and no port left"
