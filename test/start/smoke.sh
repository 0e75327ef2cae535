#!/usr/bin/env bash
# `npm start` as a user runs it, checked from outside: started in its own process group from this
# clone, it must bring up the emulator and n8n, print the editor URL and login, have n8n list the
# installed community package, stop on Ctrl-C (SIGINT to the whole group, as a terminal sends
# it) and leave no process and no listening port behind.
#   START_SMOKE_TIMEOUT (900)  seconds to wait for the editor (a cold runtime install included)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
TIMEOUT="${START_SMOKE_TIMEOUT:-900}"
WORK="$(mktemp -d /tmp/docex-start-smoke.XXXXXX)"
LOG="$WORK/start.log"

log() { printf '[start-smoke] %s\n' "$*" >&2; }
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
group_alive() { [ -n "$(ps -o pid= -g "$PGID" 2>/dev/null)" ]; }

N8N_PORT="$(free_port)"
EMULATOR_PORT="$(free_port)"
while [ "$EMULATOR_PORT" = "$N8N_PORT" ]; do EMULATOR_PORT="$(free_port)"; done
export N8N_PORT EMULATOR_PORT DOCEX_LOCAL_DIR="$WORK/local"

PGID=""
finish() {
	local rc=$?
	if [ -n "$PGID" ] && group_alive; then
		log "killing what is left of the process group"
		kill -KILL -- "-$PGID" 2>/dev/null || true
	fi
	[ "$rc" -eq 0 ] || { log "npm start's output:"; tail -40 "$LOG" >&2 || true; }
	rm -rf "$WORK"
	exit "$rc"
}
trap finish EXIT

log "npm start (n8n on $N8N_PORT, emulator on $EMULATOR_PORT)"
started=$(date +%s)
setsid npm start >"$LOG" 2>&1 </dev/null &
PGID=$!

deadline=$((started + TIMEOUT))
until grep -q 'Press Ctrl-C to stop' "$LOG"; do
	group_alive || { log "error: npm start exited before printing the editor URL"; exit 1; }
	[ "$(date +%s)" -lt "$deadline" ] || { log "error: npm start printed no editor URL within $TIMEOUT s"; exit 1; }
	sleep 2
done
log "ready after $(($(date +%s) - started)) s"

editor="$(sed -n 's/^ *n8n editor: *//p' "$LOG" | head -1)"
email="$(sed -n 's/^ *login: *//p' "$LOG" | head -1)"
password="$(sed -n 's/^ *password: *//p' "$LOG" | head -1)"
[ "$editor" = "http://127.0.0.1:$N8N_PORT/" ] || { log "error: printed editor URL '$editor', expected http://127.0.0.1:$N8N_PORT/"; exit 1; }
[ -n "$email" ] && [ -n "$password" ] || { log "error: npm start printed no login"; exit 1; }
curl -fsS -o /dev/null "$editor" || { log "error: the editor at $editor does not answer"; exit 1; }
curl -fsS -o /dev/null "http://127.0.0.1:$EMULATOR_PORT/_emulator/health" || { log "error: the emulator does not answer"; exit 1; }
log "the editor and the emulator answer"
node test/start/listed.js "http://127.0.0.1:$N8N_PORT" "$email" "$password"

log "Ctrl-C (SIGINT to the process group)"
kill -INT -- "-$PGID"
for _ in $(seq 1 60); do
	group_alive || break
	sleep 0.5
done
if group_alive; then
	log "error: still running 30 s after Ctrl-C:"
	ps -o pid=,args= -g "$PGID" >&2 || true
	exit 1
fi
for port in "$N8N_PORT" "$EMULATOR_PORT"; do
	if listening "$port"; then log "error: port $port still answers after Ctrl-C"; exit 1; fi
done
leftover="$(pgrep -af "$WORK" || true)"
[ -z "$leftover" ] || { log "error: processes left running after Ctrl-C:"; echo "$leftover" >&2; exit 1; }
log "stopped cleanly: no process and no port left"
