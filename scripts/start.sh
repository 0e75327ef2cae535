#!/usr/bin/env bash
# npm start: a local n8n with this package installed as a community package, talking to the
# Document Extraction emulator. Everything listens on 127.0.0.1 only; Ctrl-C stops it all.
#
#   N8N_PORT (5678)  EMULATOR_PORT (8790)  EMULATOR_PROCESSING_MS (3000)
#   START_RESET=1    wipe the local n8n's folder first (fresh database, owner and example workflows)
#   DOCEX_LOCAL_DIR  that folder (default: one per clone under ~/.cache/n8n-nodes-document-extraction/,
#                    outside the clone so that its files never reach the build, lint or tests)
#   DOCEX_MODE=queue (npm run start:queue) n8n in queue mode as it is deployed at scale: PostgreSQL and
#                    Redis (scripts/queue-services.sh), main, two `n8n worker` and one `n8n webhook`
#                    process, everything in a temporary folder removed on exit (a fresh database each
#                    run). Production webhooks are served by the webhook process on
#                    QUEUE_WEBHOOK_PORT (5680); editor runs go to the workers too.
#   QUEUE_WEBHOOK_PROCESSES=2  (queue mode) two webhook processes, on QUEUE_WEBHOOK_PORT and
#                    QUEUE_WEBHOOK_PORT2 (5681), behind Debian's nginx on QUEUE_PROXY_PORT (5690),
#                    round-robin; production webhook URLs then point at nginx.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

N8N_PORT="${N8N_PORT:-5678}"
EMULATOR_PORT="${EMULATOR_PORT:-8790}"
CLONE_ID="$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)"
LOCAL_DIR="${DOCEX_LOCAL_DIR:-${DOCEX_CACHE_DIR:-$HOME/.cache/n8n-nodes-document-extraction}/local-$CLONE_ID}"
QUEUE_MODE=""
[ "${DOCEX_MODE:-}" = "queue" ] && QUEUE_MODE=1
[ -z "$QUEUE_MODE" ] || LOCAL_DIR="$(mktemp -d "${TMPDIR:-/tmp}/docex-start-queue-XXXXXX")"
WEBHOOK_PORT="${QUEUE_WEBHOOK_PORT:-5680}"
WEBHOOK_PORT2="${QUEUE_WEBHOOK_PORT2:-5681}"
PROXY_PORT="${QUEUE_PROXY_PORT:-5690}"
WEBHOOK_PROCESSES="${QUEUE_WEBHOOK_PROCESSES:-1}"
CREDENTIAL_ID="DocExtrLocalEmu1"
API_KEY="vnd_test_key"

log() { printf '[start] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
case "$WEBHOOK_PROCESSES" in 1 | 2) ;; *) die "QUEUE_WEBHOOK_PROCESSES must be 1 or 2" ;; esac
POOL=""
[ -z "$QUEUE_MODE" ] || [ "$WEBHOOK_PROCESSES" = 1 ] || POOL=1

PIDS=()
cleanup() {
	trap - EXIT INT TERM
	if [ "${#PIDS[@]}" -gt 0 ]; then
		log "stopping"
		for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
		for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
	fi
	if [ -n "$QUEUE_MODE" ]; then
		bash scripts/queue-services.sh stop "$LOCAL_DIR/services" || true
		rm -rf "$LOCAL_DIR"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# 1. runtime (Node 24 + n8n, cached outside the clone); first, what this start will fetch
RUNTIME_PLAN="$(bash scripts/ensure-runtime.sh --plan)"
[ -z "$RUNTIME_PLAN" ] || log "first start: $RUNTIME_PLAN"
# the installer says in one line what failed and what to do
RUNTIME="$(bash scripts/ensure-runtime.sh)" || exit 1
eval "$RUNTIME"

PORTS=("$N8N_PORT" "$EMULATOR_PORT")
[ -z "$QUEUE_MODE" ] || PORTS+=("$WEBHOOK_PORT")
[ -z "$POOL" ] || PORTS+=("$WEBHOOK_PORT2" "$PROXY_PORT")
for port in "${PORTS[@]}"; do
	port_busy "$port" && die "port $port on 127.0.0.1 is already in use (set N8N_PORT / EMULATOR_PORT / QUEUE_WEBHOOK_PORT / QUEUE_WEBHOOK_PORT2 / QUEUE_PROXY_PORT)"
done

if [ "${START_RESET:-}" = "1" ]; then
	log "START_RESET=1: removing $LOCAL_DIR"
	rm -rf "$LOCAL_DIR"
fi
mkdir -p "$LOCAL_DIR/.n8n/nodes"

# 2. emulator
log "starting the emulator on 127.0.0.1:$EMULATOR_PORT"
EMULATOR_PORT="$EMULATOR_PORT" node emulator/server.js >"$LOCAL_DIR/emulator.log" 2>&1 &
PIDS+=("$!")
EMULATOR_PID=$!
node scripts/n8n-local.js wait-ready "http://127.0.0.1:$EMULATOR_PORT/_emulator/health" 30 ||
	{ kill -0 "$EMULATOR_PID" 2>/dev/null || tail -20 "$LOCAL_DIR/emulator.log" >&2; die "emulator did not start"; }

# 3. n8n environment (user folder inside the clone, quiet and offline)
ENCRYPTION_KEY_FILE="$LOCAL_DIR/encryption-key"
[ -s "$ENCRYPTION_KEY_FILE" ] || node -e "process.stdout.write(require('crypto').randomBytes(24).toString('hex'))" >"$ENCRYPTION_KEY_FILE"
export N8N_USER_FOLDER="$LOCAL_DIR"
export N8N_ENCRYPTION_KEY="$(cat "$ENCRYPTION_KEY_FILE")"
export N8N_HOST=127.0.0.1 N8N_LISTEN_ADDRESS=127.0.0.1 N8N_PORT N8N_PROTOCOL=http
export N8N_WEBHOOK_URL="http://127.0.0.1:$N8N_PORT/"
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
if [ -n "$QUEUE_MODE" ]; then
	log "starting PostgreSQL and Redis in $LOCAL_DIR/services"
	chmod 711 "$LOCAL_DIR"
	SERVICES="$(bash scripts/queue-services.sh start "$LOCAL_DIR/services")" || die "PostgreSQL and Redis did not start"
	set -a
	eval "$SERVICES"
	set +a
	export EXECUTIONS_MODE=queue OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true
	export N8N_WEBHOOK_URL="http://127.0.0.1:$WEBHOOK_PORT/"
	[ -z "$POOL" ] || export N8N_WEBHOOK_URL="http://127.0.0.1:$PROXY_PORT/"
	N8N_RUNNERS_BROKER_PORT="$(free_port)"
	export N8N_RUNNERS_BROKER_PORT
fi
export N8N_EDITOR_BASE_URL="http://127.0.0.1:$N8N_PORT/"
export N8N_SECURE_COOKIE=false
export N8N_DIAGNOSTICS_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false
export N8N_TEMPLATES_ENABLED=false N8N_PERSONALIZATION_ENABLED=false
export N8N_DISABLED_MODULES=mcp-registry
export N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1
export N8N_LOG_LEVEL="${N8N_LOG_LEVEL:-info}"
n8n() { "$NODE24" "$N8N_BIN" "$@"; }

# 4. the package, installed as Settings > Community Nodes does
# (built as the README's Installation builds it: npm run tarball, no npm ci needed)
log "building, packing and installing the package into $LOCAL_DIR/.n8n/nodes"
rm -f "$LOCAL_DIR"/*.tgz
TARBALL="$(TARBALL_DIR="$LOCAL_DIR" bash scripts/tarball.sh | tail -1)"
node scripts/n8n-local.js install-package "$LOCAL_DIR/$TARBALL" "$LOCAL_DIR/.n8n/nodes" >&2

# 5. credentials (re-imported every run: the emulator's, and the production Intake's
# key, a random value made once) and example workflows (imported once)
[ -s "$LOCAL_DIR/intake-key" ] ||
	node -e "process.stdout.write(require('crypto').randomBytes(24).toString('hex'))" >"$LOCAL_DIR/intake-key"
INTAKE_KEY="$(cat "$LOCAL_DIR/intake-key")"
node scripts/n8n-local.js write-credential "$LOCAL_DIR/credential.json" "$CREDENTIAL_ID" \
	"Document Extraction (local emulator)" "$API_KEY" "http://127.0.0.1:$EMULATOR_PORT" "$INTAKE_KEY"
log "importing the credential"
n8n import:credentials --input="$LOCAL_DIR/credential.json" >"$LOCAL_DIR/import.log" 2>&1 ||
	{ tail -20 "$LOCAL_DIR/import.log" >&2; die "n8n import:credentials failed"; }
if [ ! -f "$LOCAL_DIR/.examples-imported" ]; then
	log "importing the example workflows"
	# with the emulator's address and the local settings they need (scripts/local-examples.js)
	rm -rf "$LOCAL_DIR/examples"
	node scripts/local-examples.js "$LOCAL_DIR/examples" "http://127.0.0.1:$EMULATOR_PORT" >/dev/null
	for workflow in "$LOCAL_DIR"/examples/*.json; do
		n8n import:workflow --input="$workflow" >>"$LOCAL_DIR/import.log" 2>&1 ||
			{ tail -20 "$LOCAL_DIR/import.log" >&2; die "n8n import:workflow $workflow failed"; }
	done
	touch "$LOCAL_DIR/.examples-imported"
fi
DATABASE="$LOCAL_DIR/.n8n/database.sqlite"
[ -z "$QUEUE_MODE" ] || DATABASE=postgresdb
NODE_PATH="$N8N_DIR/node_modules" "$NODE24" scripts/n8n-local.js register-package \
	"$DATABASE" "$LOCAL_DIR/.n8n/nodes/node_modules/n8n-nodes-document-extraction" >/dev/null ||
	log "warning: could not list the package under Settings > Community Nodes (it is still loaded)"

# published triggers remember their registration; the emulator just started with none
RESTORED="$(NODE_PATH="$N8N_DIR/node_modules" "$NODE24" scripts/n8n-local.js restore-webhooks \
	"$DATABASE" "http://127.0.0.1:$EMULATOR_PORT" "$API_KEY")" ||
	log "warning: could not re-register the webhooks of published triggers with the emulator"
[ -z "$RESTORED" ] || log "re-registered with the emulator: $(echo "$RESTORED" | awk '{print $2}' | paste -sd ' ')"

# 6. n8n
log "starting n8n $("$NODE24" "$N8N_BIN" --version 2>/dev/null) on 127.0.0.1:$N8N_PORT (log: $LOCAL_DIR/n8n.log)${QUEUE_MODE:+ in queue mode}"
if [ -n "$QUEUE_MODE" ]; then
	# production webhooks are the webhook process's (started once main has migrated the database)
	N8N_DISABLE_PRODUCTION_MAIN_PROCESS=true "$NODE24" "$N8N_BIN" start >"$LOCAL_DIR/n8n.log" 2>&1 &
else
	"$NODE24" "$N8N_BIN" start >"$LOCAL_DIR/n8n.log" 2>&1 &
fi
PIDS+=("$!")
N8N_PID=$!
if ! node scripts/n8n-local.js wait-ready "http://127.0.0.1:$N8N_PORT/healthz/readiness" 180; then
	tail -30 "$LOCAL_DIR/n8n.log" >&2
	die "n8n did not become ready"
fi
QUEUE_PIDS=()
if [ -n "$QUEUE_MODE" ]; then
	# one user folder each (their own crash journal and event log), the package shared
	start_queue_process() {
		local name="$1" folder="$LOCAL_DIR/$1"
		shift
		mkdir -p "$folder/.n8n"
		ln -sfn "$LOCAL_DIR/.n8n/nodes" "$folder/.n8n/nodes"
		env N8N_USER_FOLDER="$folder" N8N_RUNNERS_BROKER_PORT="$(free_port)" "$@" \
			"$NODE24" "$N8N_BIN" "${QUEUE_ARGS[@]}" >"$LOCAL_DIR/$name.log" 2>&1 &
		PIDS+=("$!")
		QUEUE_PIDS+=("$!")
	}
	READY_URLS=()
	for n in 1 2; do
		HEALTH_PORT="$(free_port)"
		QUEUE_ARGS=(worker --concurrency=5)
		start_queue_process "worker$n" QUEUE_HEALTH_CHECK_ACTIVE=true QUEUE_HEALTH_CHECK_PORT="$HEALTH_PORT" \
			N8N_WORKER_SERVER_ADDRESS=127.0.0.1 N8N_PORT="$(free_port)"
		READY_URLS+=("http://127.0.0.1:$HEALTH_PORT/healthz/readiness")
	done
	QUEUE_ARGS=(webhook)
	start_queue_process webhook N8N_PORT="$WEBHOOK_PORT"
	READY_URLS+=("http://127.0.0.1:$WEBHOOK_PORT/healthz/readiness")
	if [ -n "$POOL" ]; then
		start_queue_process webhook2 N8N_PORT="$WEBHOOK_PORT2"
		READY_URLS+=("http://127.0.0.1:$WEBHOOK_PORT2/healthz/readiness")
	fi
	for url in "${READY_URLS[@]}"; do
		node scripts/n8n-local.js wait-ready "$url" 180 || {
			tail -20 "$LOCAL_DIR"/worker*.log "$LOCAL_DIR"/webhook*.log >&2
			die "a worker or a webhook process did not become ready"
		}
	done
	if [ -n "$POOL" ]; then
		log "starting nginx on 127.0.0.1:$PROXY_PORT in front of the webhook processes (round-robin)"
		NGINX_CMD="$(bash scripts/queue-services.sh nginx-conf "$LOCAL_DIR/nginx" "$PROXY_PORT" "$WEBHOOK_PORT" "$WEBHOOK_PORT2")" ||
			die "nginx could not be set up"
		# shellcheck disable=SC2086 # the command line queue-services.sh printed
		$NGINX_CMD >"$LOCAL_DIR/nginx.log" 2>&1 &
		PIDS+=("$!")
		QUEUE_PIDS+=("$!")
		node scripts/n8n-local.js wait-ready "http://127.0.0.1:$PROXY_PORT/healthz/readiness" 30 || {
			tail -20 "$LOCAL_DIR/nginx.log" "$LOCAL_DIR/nginx/error.log" >&2
			die "nginx did not start"
		}
	fi
fi
OWNER="$(node scripts/n8n-local.js setup-owner "http://127.0.0.1:$N8N_PORT" "$LOCAL_DIR/owner.json")" ||
	die "could not set up the n8n owner account"
eval "$OWNER"

cat <<EOF

  n8n editor:  http://127.0.0.1:$N8N_PORT/
  login:       $OWNER_EMAIL
  password:    $OWNER_PASSWORD
  emulator:    http://127.0.0.1:$EMULATOR_PORT  (API key $API_KEY, credential "Document Extraction (local emulator)")
  examples:    "Document Extraction: Submit and Wait": open it and run it (Execute workflow);
               "Document Extraction: Trigger to CRM record": publish it, then run the first one;
               "Document Extraction: tools for AI agents and MCP clients": an MCP server to publish;
               "Document Extraction: Production (intake, completion, catch-up)": publish it, then post the
               curl line of docs/production.md; its rows are under Overview → Data tables.
  intake key:  export INTAKE_KEY=$INTAKE_KEY   (its credential "Intake Key")
               How to run each, with its webhooks and curl lines: docs/development.md#the-examples
  logs:        $LOCAL_DIR/n8n.log, $LOCAL_DIR/emulator.log
EOF
[ -z "$QUEUE_MODE" ] || cat <<EOF
  queue mode:  PostgreSQL :$DB_POSTGRESDB_PORT and Redis :$QUEUE_BULL_REDIS_PORT, two workers; production webhooks on
               http://127.0.0.1:$WEBHOOK_PORT/ (webhook process); logs $LOCAL_DIR/{worker1,worker2,webhook}.log.
               Everything in $LOCAL_DIR is removed when you stop.
EOF
[ -z "$POOL" ] || cat <<EOF
  webhooks:    nginx http://127.0.0.1:$PROXY_PORT/ (round-robin) in front of the webhook processes on
               :$WEBHOOK_PORT and :$WEBHOOK_PORT2; access log $LOCAL_DIR/nginx/access.log
EOF
cat <<EOF

  Press Ctrl-C to stop n8n and the emulator.

EOF

# returns on Ctrl-C (the INT trap runs at once) or when n8n or the emulator exits
wait -n "$N8N_PID" "$EMULATOR_PID" ${QUEUE_PIDS[@]+"${QUEUE_PIDS[@]}"} || true
sleep 0.2
kill -0 "$N8N_PID" 2>/dev/null || { log "n8n exited"; tail -20 "$LOCAL_DIR/n8n.log" >&2; }
kill -0 "$EMULATOR_PID" 2>/dev/null || { log "the emulator exited"; tail -20 "$LOCAL_DIR/emulator.log" >&2; }
exit 1
