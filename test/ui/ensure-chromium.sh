#!/usr/bin/env bash
# The browser of npm run test:ui: Debian's chromium at /usr/bin/chromium, installed with apt-get when
# missing (nothing is downloaded from elsewhere); UI_CHROMIUM names another, never installed.
set -euo pipefail

CHROMIUM="${UI_CHROMIUM:-/usr/bin/chromium}"
say() { printf '[ui] %s\n' "$*" >&2; }

if [ ! -x "$CHROMIUM" ]; then
	[ "$CHROMIUM" = /usr/bin/chromium ] || { say "error: UI_CHROMIUM=$CHROMIUM is not an executable browser"; exit 1; }
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
	say "installing Debian's chromium (apt-get update; apt-get install -y chromium)"
	APT_LOG="$(mktemp /tmp/docex-ui-apt.XXXXXX)"
	trap 'rm -f "$APT_LOG"' EXIT
	# one apt-get at a time: the queue suite may be installing its services while this suite runs
	flock /tmp/docex-apt.lock sh -c "$SUDO apt-get update && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium" >"$APT_LOG" 2>&1 || true
	[ -x "$CHROMIUM" ] || { tail -5 "$APT_LOG" >&2; say "error: could not install chromium with apt-get (needs root and a Debian mirror): the editor test needs /usr/bin/chromium"; exit 1; }
fi
say "browser: $("$CHROMIUM" --version 2>/dev/null | head -1)"
