#!/usr/bin/env bash
# npm run test:ui: the package in n8n's editor, in Debian's Chromium. First test/ui/editor.js against
# `npm start` (started in its own process group on free ports, stopped with Ctrl-C, on failure
# too), then test/ui/ownMailbox.js on a fresh n8n of its own. The last line is "N passed, N failed".
#
#   UI_CHROMIUM (/usr/bin/chromium, installed by ensure-chromium.sh when missing)   the browser
#   UI_SCREENSHOTS_DIR (test/ui/out)   screenshots of the key steps and of failures, and logs
#   UI_START_TIMEOUT (900)             seconds to wait for npm start (a cold runtime included)
#   UI_WAIT_MS (60000)                 how long a step waits for something to appear
#   UI_ONLY=<regexp>                   only the scenarios whose title matches (after signing in)
#   UI_UPDATE_DOCS=1                   after a passing run, copy the README's screenshots to docs/
#   UI_COUNTS_FILE=<file>              where ownMailbox.js writes its counts
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
CHROMIUM="${UI_CHROMIUM:-/usr/bin/chromium}"
SHOTS="${UI_SCREENSHOTS_DIR:-$ROOT/test/ui/out}"
WORK="$(mktemp -d /tmp/docex-ui.XXXXXX)"
touch "$WORK/started" # the pictures taken after it are this run's
LOG_PREFIX=ui
# shellcheck source=../start/npm-start.sh
source "$ROOT/test/start/npm-start.sh"
export EMULATOR_PROCESSING_MS="${EMULATOR_PROCESSING_MS:-500}" UI_CHROMIUM="$CHROMIUM" UI_SCREENSHOTS_DIR="$SHOTS"

PASSED=0
FAILED=0
STARTED=$(date +%s)
finish() {
	local rc=$? pids
	trap - EXIT INT TERM
	# a browser left behind is found by its profile
	pids="$(pgrep -f -- "$WORK/profile" || true)"
	[ -z "$pids" ] || { log "stopping the browser it left running"; kill -KILL $pids 2>/dev/null || true; }
	if group_alive; then npm_start_stop || { FAILED=$((FAILED + 1)); npm_start_kill; }; fi
	[ "$rc" -eq 0 ] || [ "$FAILED" -gt 0 ] || FAILED=1
	if [ "$FAILED" -gt 0 ] && [ -s "$START_LOG" ]; then
		[ -n "${EDITOR_URL:-}" ] || { log "npm start's output:"; tail -40 "$START_LOG" >&2 || true; }
		mkdir -p "$SHOTS"
		for f in "$START_LOG" "$WORK/local/n8n.log" "$WORK/local/emulator.log"; do
			[ ! -f "$f" ] || cp "$f" "$SHOTS/"
		done
		log "screenshots and logs: $SHOTS"
	fi
	rm -rf "$WORK"
	log "took $(($(date +%s) - STARTED)) s"
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ] || exit 1
	exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash test/ui/ensure-chromium.sh
rm -f "$SHOTS"/*.log

# runs a node script that writes {"passed","failed"} to $WORK/summary.json, and adds them up
run_part() {
	local status=0 passed failed
	rm -f "$WORK/summary.json"
	UI_SUMMARY_FILE="$WORK/summary.json" "$@" || status=$?
	if [ -s "$WORK/summary.json" ]; then
		read -r passed failed < <(node -e 'const s=require(process.argv[1]);console.log(s.passed,s.failed)' "$WORK/summary.json")
		PASSED=$((PASSED + passed))
		FAILED=$((FAILED + failed))
		[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || FAILED=$((FAILED + 1))
	else
		FAILED=$((FAILED + 1))
	fi
}

# which parts UI_ONLY selects: the scenarios against npm start, and the one on a fresh n8n
matches() { [ -z "${UI_ONLY:-}" ] || node -e 'const r=new RegExp(process.argv[1],"i");process.exit(process.argv.slice(2).some((t)=>r.test(t))?0:1)' "$UI_ONLY" "$@"; }
START_PART=""
matches "first hour" "examples as imported" "production setup" "action node" "errors and hints" "trigger" && START_PART=1
OWN_PART=""
matches "mailbox to CRM on a fresh n8n" && OWN_PART=1
[ -n "$START_PART$OWN_PART" ] || { log "error: UI_ONLY=$UI_ONLY matches no scenario"; exit 1; }

if [ -n "$START_PART" ]; then
	npm_start_begin "${UI_START_TIMEOUT:-900}"
	# the production Intake's key, as npm start prints it for the docs' curl line ($INTAKE_KEY)
	INTAKE_KEY="$(sed -n 's/^ *intake key: *export INTAKE_KEY=\([^ ]*\).*/\1/p' "$START_LOG" | head -1)"
	export INTAKE_KEY
	UI_EDITOR_URL="$EDITOR_URL" UI_EMULATOR_URL="http://127.0.0.1:$EMULATOR_PORT" UI_EMAIL="$LOGIN_EMAIL" \
		UI_PASSWORD="$LOGIN_PASSWORD" UI_PROFILE_DIR="$WORK/profile" run_part node test/ui/editor.js
	npm_start_stop || { FAILED=$((FAILED + 1)); npm_start_kill; }
	for port in "$N8N_PORT" "$EMULATOR_PORT"; do
		if listening "$port"; then log "error: port $port still answers after Ctrl-C"; FAILED=$((FAILED + 1)); fi
	done
fi

if [ -n "$OWN_PART" ]; then
	OWN_STARTED=$(date +%s)
	RUNTIME="$(bash scripts/ensure-runtime.sh)" || { FAILED=$((FAILED + 1)); exit 1; }
	eval "$RUNTIME"
	mkdir -p "$WORK/own"
	NODE24="$NODE24" N8N_BIN="$N8N_BIN" UI_WORK="$WORK/own" UI_PROFILE_DIR="$WORK/profile-own" \
		run_part node test/ui/ownMailbox.js
	log "the fresh n8n part took $(($(date +%s) - OWN_STARTED)) s"
fi

if [ "${UI_UPDATE_DOCS:-}" = 1 ] && [ "$FAILED" -eq 0 ]; then
	# the pictures this run took (a part UI_ONLY left out took none)
	for name in node-panel project-list submit-and-wait-fields output schema-preview error-output hint-output trigger-fields document-type-hint production-canvas email-output; do
		if [ "$SHOTS/$name.png" -nt "$WORK/started" ]; then
			cp "$SHOTS/$name.png" docs/
			log "docs/$name.png updated"
		fi
	done
fi
