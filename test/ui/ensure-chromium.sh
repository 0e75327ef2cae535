#!/usr/bin/env bash
# Makes sure the browser of npm run test:ui is there: Debian's chromium at /usr/bin/chromium,
# installed with apt-get (apt-get update first) when it is missing. Nothing is downloaded from
# elsewhere. Prints the browser's version, or one line saying why it cannot be installed.
#   UI_CHROMIUM (/usr/bin/chromium)   another browser binary to use instead (never installed)
set -euo pipefail

CHROMIUM="${UI_CHROMIUM:-/usr/bin/chromium}"
say() { printf '[ui] %s\n' "$*" >&2; }

if [ ! -x "$CHROMIUM" ]; then
	if [ "$CHROMIUM" != /usr/bin/chromium ]; then
		say "error: UI_CHROMIUM=$CHROMIUM is not an executable browser"
		exit 1
	fi
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
	if ! command -v apt-get >/dev/null || { [ -n "$SUDO" ] && ! sudo -n true 2>/dev/null; }; then
		say "error: /usr/bin/chromium is missing and cannot be installed here (needs apt-get as root): run 'apt-get install chromium'"
		exit 1
	fi
	say "installing Debian's chromium (apt-get update; apt-get install -y chromium)"
	APT_LOG="$(mktemp /tmp/docex-ui-apt.XXXXXX)"
	trap 'rm -f "$APT_LOG"' EXIT
	# one apt-get at a time: the queue suite may be installing its services while this suite runs
	if ! flock /tmp/docex-apt.lock sh -c "$SUDO apt-get update && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium" >"$APT_LOG" 2>&1 ||
		[ ! -x "$CHROMIUM" ]; then
		tail -5 "$APT_LOG" >&2 || true
		say "error: could not install chromium with apt-get (is a Debian package mirror reachable?); the browser test of the editor needs /usr/bin/chromium"
		exit 1
	fi
fi
say "browser: $("$CHROMIUM" --version 2>/dev/null | head -1)"
