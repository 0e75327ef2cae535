#!/usr/bin/env bash
# PostgreSQL and Redis for n8n's queue mode, on loopback, on free ports, in a data folder of the
# caller's (nothing system-wide is started or changed; PostgreSQL runs as the `postgres` user).
#
#   bash scripts/queue-services.sh start <dir>   starts both, prints the n8n environment
#                                                 (DB_*, QUEUE_BULL_REDIS_*) as shell assignments
#   bash scripts/queue-services.sh stop <dir>    stops both (safe to call twice, or after a failed start)
#   bash scripts/queue-services.sh nginx-conf <dir> <port> <upstream port>...
#                                                 writes <dir>/nginx.conf: Debian's nginx on 127.0.0.1:<port>,
#                                                 round-robin over n8n webhook processes on 127.0.0.1, its logs and
#                                                 temporary files in <dir>; prints the command that runs it in the
#                                                 foreground (stop it with SIGTERM to that process)
#
# What is missing is installed from Debian's packages (postgresql, redis-server) with apt-get.
set -euo pipefail

log() { printf '[queue-services] %s\n' "$*" >&2; }
fail() {
	printf '[queue-services] error: %s\n' "$*" >&2
	exit 1
}

free_port() {
	node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

pg_bin() {
	local dir
	dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
	[ -n "$dir" ] && [ -x "$dir/initdb" ] && printf '%s\n' "$dir"
}

ensure_packages() {
	local missing=()
	pg_bin >/dev/null || missing+=(postgresql)
	command -v redis-server >/dev/null || missing+=(redis-server)
	[ "${#missing[@]}" -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || fail "${missing[*]} not installed; install them (apt-get install ${missing[*]}) and run again"
	log "installing ${missing[*]} from Debian's packages"
	# one apt-get at a time: the browser suite may be installing its packages while this one runs
	flock /tmp/docex-apt.lock sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"' apt "${missing[@]}" >/tmp/queue-services-apt.log 2>&1 ||
		fail "apt-get install ${missing[*]} failed (log: /tmp/queue-services-apt.log); check that Debian's package mirror can be reached"
	pg_bin >/dev/null || fail "postgresql was installed but no initdb was found under /usr/lib/postgresql"
}

as_postgres() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

start() {
	local dir="$1" bin pg_port redis_port
	ensure_packages
	bin="$(pg_bin)"
	mkdir -p "$dir"
	dir="$(cd "$dir" && pwd)"
	# PostgreSQL refuses to run as root: its data folder belongs to `postgres`, which must be able
	# to reach it through the caller's folder
	chmod o+x "$dir"
	mkdir -p "$dir/postgres" "$dir/redis"
	[ "$(id -u)" -ne 0 ] || chown postgres: "$dir/postgres"
	pg_port="$(free_port)"
	redis_port="$(free_port)"
	while [ "$redis_port" = "$pg_port" ]; do redis_port="$(free_port)"; done

	log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port"
	as_postgres "$bin/initdb" -D "$dir/postgres/data" -U postgres --auth=trust -E UTF8 --no-sync \
		>"$dir/postgres/initdb.log" 2>&1 || fail "initdb failed (log: $dir/postgres/initdb.log)"
	as_postgres "$bin/pg_ctl" -D "$dir/postgres/data" -l "$dir/postgres/server.log" -w -t 60 start \
		-o "-p $pg_port -c listen_addresses=127.0.0.1 -k $dir/postgres -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
		>/dev/null || fail "PostgreSQL did not start (log: $dir/postgres/server.log)"
	as_postgres "$bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres n8n ||
		fail "could not create the n8n database"

	log "Redis $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') on 127.0.0.1:$redis_port"
	redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir/redis" --save '' --appendonly no \
		--daemonize yes --pidfile "$dir/redis/redis.pid" --logfile "$dir/redis/redis.log" >/dev/null ||
		fail "Redis did not start (log: $dir/redis/redis.log)"
	for _ in $(seq 1 50); do
		redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null | grep -q PONG && break
		sleep 0.1
	done
	redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null | grep -q PONG || fail "Redis does not answer (log: $dir/redis/redis.log)"

	cat <<EOF
DB_TYPE=postgresdb
DB_POSTGRESDB_HOST=127.0.0.1
DB_POSTGRESDB_PORT=$pg_port
DB_POSTGRESDB_DATABASE=n8n
DB_POSTGRESDB_USER=postgres
DB_POSTGRESDB_PASSWORD=
QUEUE_BULL_REDIS_HOST=127.0.0.1
QUEUE_BULL_REDIS_PORT=$redis_port
EOF
}

stop() {
	local dir="$1" bin pid
	bin="$(pg_bin || true)"
	if [ -n "$bin" ] && [ -f "$dir/postgres/data/postmaster.pid" ]; then
		as_postgres "$bin/pg_ctl" -D "$dir/postgres/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
	fi
	if [ -f "$dir/redis/redis.pid" ]; then
		pid="$(cat "$dir/redis/redis.pid")"
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	fi
}

nginx_conf() {
	local dir="$1" port="$2" nginx upstream user=""
	shift 2
	[ "$#" -gt 0 ] || fail "nginx-conf needs at least one upstream port"
	nginx="$(command -v nginx || ls /usr/sbin/nginx 2>/dev/null || true)"
	if [ -z "$nginx" ]; then
		[ "$(id -u)" -eq 0 ] || fail "nginx not installed; install it (apt-get install nginx-light or nginx) and run again"
		log "installing nginx from Debian's packages"
		flock /tmp/docex-apt.lock sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light' >/tmp/queue-services-apt.log 2>&1 ||
			fail "apt-get install nginx-light failed (log: /tmp/queue-services-apt.log)"
		nginx="$(command -v nginx || echo /usr/sbin/nginx)"
	fi
	mkdir -p "$dir"
	dir="$(cd "$dir" && pwd)"
	# as root the workers would switch to nobody, who cannot reach a private temporary folder
	[ "$(id -u)" -ne 0 ] || user="user root root;"
	{
		printf '# round-robin over the n8n webhook processes; everything on 127.0.0.1\n'
		printf '%s\nworker_processes 1;\ndaemon off;\npid %s/nginx.pid;\nerror_log %s/error.log warn;\n' "$user" "$dir" "$dir"
		printf 'events { worker_connections 1024; }\nhttp {\n'
		# which webhook process got each request, and the request (a delivery's task_id is in its body)
		printf '\tlog_format upstream escape=json '"'"'{"upstream":"$upstream_addr","status":"$status","uri":"$request_uri","body":"$request_body"}'"'"';\n'
		printf '\taccess_log %s/access.log upstream;\n' "$dir"
		for t in client_body proxy fastcgi uwsgi scgi; do printf '\t%s_temp_path %s/%s;\n' "$t" "$dir" "$t"; done
		printf '\tclient_max_body_size 64m;\n\tclient_body_buffer_size 1m;\n'
		printf '\tupstream n8n_webhooks {\n'
		for upstream in "$@"; do printf '\t\tserver 127.0.0.1:%s;\n' "$upstream"; done
		# idle connections closed by nginx before n8n closes them (Node's 5 s): otherwise a request
		# sent on a connection n8n is closing gets 502
		printf '\t\tkeepalive 32;\n\t\tkeepalive_timeout 4s;\n\t}\n'
		printf '\tserver {\n\t\tlisten 127.0.0.1:%s;\n\t\tlocation / {\n' "$port"
		printf '\t\t\tproxy_pass http://n8n_webhooks;\n\t\t\tproxy_http_version 1.1;\n'
		printf '\t\t\tproxy_set_header Connection "";\n\t\t\tproxy_set_header Host $host;\n'
		printf '\t\t\tproxy_read_timeout 120s;\n\t\t}\n\t}\n}\n'
	} >"$dir/nginx.conf"
	"$nginx" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" -t -q || fail "nginx refuses $dir/nginx.conf"
	printf '%s -p %s -e %s -c %s\n' "$nginx" "$dir" "$dir/error.log" "$dir/nginx.conf"
}

case "${1:-}" in
start) start "${2:?usage: queue-services.sh start <dir>}" ;;
stop) stop "${2:?usage: queue-services.sh stop <dir>}" ;;
nginx-conf) nginx_conf "${2:?usage: queue-services.sh nginx-conf <dir> <port> <upstream port>...}" "${3:?usage: queue-services.sh nginx-conf <dir> <port> <upstream port>...}" "${@:4}" ;;
*) fail "usage: queue-services.sh start|stop <dir> | nginx-conf <dir> <port> <upstream port>..." ;;
esac
