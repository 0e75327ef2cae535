# Sourced by test/start/smoke.sh and test/ui/run.sh: `npm start` from this clone in its own process
# group (Ctrl-C reaches all it started), on free ports, its n8n folder in $WORK. The caller sets
# WORK and LOG_PREFIX, then:
#   npm_start_begin TIMEOUT   start and wait for the editor (output in START_LOG); sets EDITOR_URL,
#                             LOGIN_EMAIL, LOGIN_PASSWORD, N8N_PORT and EMULATOR_PORT
#   npm_start_stop            Ctrl-C, then wait up to 30 s for the group to exit (1 if it does not)
#   npm_start_kill            SIGKILL whatever is left of the group (for EXIT traps)

log() { printf '[%s] %s\n' "$LOG_PREFIX" "$*" >&2; }
# three distinct free ports: n8n's, the emulator's, and n8n's task broker's (5679 may be taken)
free_ports() { node -e 'const s=[0,1,2].map(()=>require("net").createServer().listen(0,"127.0.0.1"));Promise.all(s.map((x)=>new Promise((r)=>x.on("listening",r)))).then(()=>{console.log(s.map((x)=>x.address().port).join(" "));s.forEach((x)=>x.close())})'; }
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
group_alive() { [ -n "${PGID:-}" ] && [ -n "$(ps -o pid= -g "$PGID" 2>/dev/null)" ]; }

PGID=""
START_LOG="$WORK/start.log"
npm_start_begin() {
	local timeout="$1" started deadline
	read -r N8N_PORT EMULATOR_PORT N8N_RUNNERS_BROKER_PORT <<<"$(free_ports)"
	export N8N_PORT EMULATOR_PORT N8N_RUNNERS_BROKER_PORT DOCEX_LOCAL_DIR="$WORK/local"

	log "npm start (n8n on $N8N_PORT, emulator on $EMULATOR_PORT)"
	started=$(date +%s)
	setsid npm start >"$START_LOG" 2>&1 </dev/null &
	PGID=$!

	deadline=$((started + timeout))
	until grep -q 'Press Ctrl-C to stop' "$START_LOG"; do
		group_alive || { log "error: npm start exited before printing the editor URL"; return 1; }
		[ "$(date +%s)" -lt "$deadline" ] || { log "error: npm start printed no editor URL within $timeout s"; return 1; }
		sleep 2
	done
	log "ready after $(($(date +%s) - started)) s"

	EDITOR_URL="$(sed -n 's/^ *n8n editor: *//p' "$START_LOG" | head -1)"
	LOGIN_EMAIL="$(sed -n 's/^ *login: *//p' "$START_LOG" | head -1)"
	LOGIN_PASSWORD="$(sed -n 's/^ *password: *//p' "$START_LOG" | head -1)"
	[ "$EDITOR_URL" = "http://127.0.0.1:$N8N_PORT/" ] ||
		{ log "error: printed editor URL '$EDITOR_URL', expected http://127.0.0.1:$N8N_PORT/"; return 1; }
	[ -n "$LOGIN_EMAIL" ] && [ -n "$LOGIN_PASSWORD" ] || { log "error: npm start printed no login"; return 1; }
}

npm_start_stop() {
	log "Ctrl-C (SIGINT to the process group)"
	kill -INT -- "-$PGID" 2>/dev/null || true
	for _ in $(seq 1 60); do
		group_alive || return 0
		sleep 0.5
	done
	log "error: still running 30 s after Ctrl-C:"
	ps -o pid=,args= -g "$PGID" >&2 || true
	return 1
}

npm_start_kill() {
	group_alive || return 0
	log "killing what is left of the process group"
	kill -KILL -- "-$PGID" 2>/dev/null || true
}
