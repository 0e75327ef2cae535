#!/usr/bin/env bash
# A real IMAP mailbox for the email scenario: Debian's Dovecot (installed with apt-get when missing)
# with its own configuration in DIR, on 127.0.0.1 only, IMAP over TLS as a provider speaks it, with a
# certificate from a CA made for the run (DIR/tls/ca.crt, which the n8n under test trusts), so that
# n8n's IMAP credential keeps its defaults. The mail is owned by a system user of its own (Dovecot's
# login refuses root).
#
#   bash test/ui/mailbox.sh start DIR PORT USER PASSWORD   starts it; prints MAILBOX_* lines
#   bash test/ui/mailbox.sh stop DIR                       stops it (its own master process only)
set -euo pipefail

MAIL_OWNER=docexmail
log() { printf '[mailbox] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

ensure_dovecot() {
	command -v openssl >/dev/null || die "openssl is missing (apt-get install openssl)"
	command -v dovecot >/dev/null && [ -x /usr/lib/dovecot/imap-login ] && return 0
	[ "$(id -u)" -eq 0 ] || die "dovecot-imapd is not installed, and installing it needs root (apt-get install dovecot-imapd)"
	log "installing dovecot-imapd (apt-get)"
	# one apt-get at a time: the queue suite may be installing its services while this suite runs
	flock /tmp/docex-apt.lock sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends dovecot-imapd ||
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends dovecot-imapd; }' >&2 ||
		die "apt-get could not install dovecot-imapd"
	# the package starts the system's own Dovecot on all interfaces: this test needs none of it
	if command -v systemctl >/dev/null && systemctl is-active --quiet dovecot 2>/dev/null; then
		systemctl stop dovecot || true
	elif [ -f /run/dovecot/master.pid ]; then
		kill "$(cat /run/dovecot/master.pid)" 2>/dev/null || true
	fi
}

ensure_users() {
	local u
	# the mail's owner, and Dovecot's own unprivileged users (the package creates them)
	for u in "$MAIL_OWNER" dovecot dovenull; do
		id "$u" >/dev/null 2>&1 ||
			useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$u" ||
			id "$u" >/dev/null 2>&1 || # made meanwhile by the other suite (n8n 1.x and 2.x run side by side)
			die "could not create the system user $u"
	done
}

start() {
	local dir="$1" port="$2" user="$3" password="$4" uid
	ensure_dovecot
	ensure_users
	uid="$(id -u "$MAIL_OWNER")"
	mkdir -p "$dir/run" "$dir/state" "$dir/mail"
	# every folder up to the mail must be passable for the mail owner; the mail is its own
	local up="$dir"
	while [ "$up" != / ]; do
		chmod o+x "$up" 2>/dev/null || true
		up="$(dirname "$up")"
	done
	chown "$MAIL_OWNER:$MAIL_OWNER" "$dir/mail"
	mkdir -p "$dir/tls"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=Mailbox test CA' \
		-keyout "$dir/tls/ca.key" -out "$dir/tls/ca.crt" 2>/dev/null || die "openssl could not make the CA"
	openssl req -newkey rsa:2048 -nodes -subj '/CN=127.0.0.1' -keyout "$dir/tls/server.key" \
		-out "$dir/tls/server.csr" 2>/dev/null || die "openssl could not make the key"
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$dir/tls/ext.cnf"
	openssl x509 -req -in "$dir/tls/server.csr" -CA "$dir/tls/ca.crt" -CAkey "$dir/tls/ca.key" -CAcreateserial \
		-days 2 -extfile "$dir/tls/ext.cnf" -out "$dir/tls/server.crt" 2>/dev/null || die "openssl could not sign"
	printf '%s:{PLAIN}%s\n' "$user" "$password" >"$dir/users"
	chmod 644 "$dir/users"
	cat >"$dir/dovecot.conf" <<EOF
protocols = imap
listen = 127.0.0.1
base_dir = $dir/run
state_dir = $dir/state
log_path = $dir/dovecot.log
# the imap processes show their command (IDLE: a client waits for new mail)
verbose_proctitle = yes
ssl = required
ssl_cert = <$dir/tls/server.crt
ssl_key = <$dir/tls/server.key
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:$dir/mail/%n
first_valid_uid = $uid
last_valid_uid = $uid
passdb {
  driver = passwd-file
  args = scheme=PLAIN $dir/users
}
userdb {
  driver = static
  args = uid=$MAIL_OWNER gid=$MAIL_OWNER home=$dir/mail/%n
}
service imap-login {
  inet_listener imap {
    port = 0
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = $port
    ssl = yes
  }
}
EOF
	dovecot -c "$dir/dovecot.conf" || { tail -20 "$dir/dovecot.log" >&2 2>/dev/null; die "dovecot did not start"; }
	for _ in $(seq 1 50); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			log "Dovecot $(dovecot --version | cut -d' ' -f1) on 127.0.0.1:$port (IMAP over TLS), user $user (mail owned by $MAIL_OWNER)"
			printf 'MAILBOX_PORT=%s\nMAILBOX_USER=%s\nMAILBOX_PASSWORD=%s\nMAILBOX_DIR=%s\nMAILBOX_CA=%s\n' \
				"$port" "$user" "$password" "$dir" "$dir/tls/ca.crt"
			return 0
		fi
		sleep 0.2
	done
	tail -20 "$dir/dovecot.log" >&2 2>/dev/null || true
	die "dovecot does not answer on 127.0.0.1:$port"
}

stop() {
	local dir="$1" pid
	[ -f "$dir/run/master.pid" ] || return 0
	pid="$(cat "$dir/run/master.pid")"
	kill -TERM "$pid" 2>/dev/null || return 0
	for _ in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.2
	done
	kill -KILL "$pid" 2>/dev/null || true
}

case "${1:-}" in
start) shift; [ $# -eq 4 ] || die "usage: mailbox.sh start DIR PORT USER PASSWORD"; start "$@" ;;
stop) shift; [ $# -eq 1 ] || die "usage: mailbox.sh stop DIR"; stop "$1" ;;
*) die "usage: mailbox.sh start DIR PORT USER PASSWORD | stop DIR" ;;
esac
