#!/usr/bin/env bash
# Installs Node 24 and n8n into a cache folder outside the clone, once per version, and prints
# the paths as shell assignments (NODE24=..., N8N_DIR=..., N8N_BIN=...).
#
# Each part is installed into a staging folder, checked (the Node binary runs, n8n's binary runs,
# its native modules load) and only then moved into place with a `.complete` marker. A run that
# fails or is interrupted leaves nothing marked complete, and every run re-checks what is marked
# complete, so a broken cache is repaired by the next run without anyone deleting a folder.
# Every failure ends with one line: what failed and what to do.
#
#   N8N_VERSION      (2.41.1)  the n8n version to run
#   NODE_RANGE       (24)      the Node version range for n8n (n8n 2.36 and later need Node 24)
#   DOCEX_CACHE_DIR  (~/.cache/n8n-nodes-document-extraction)
#
#   ensure-runtime.sh --plan   prints, without installing anything, one line saying what a run would
#                              download and how big it is (nothing when everything is cached)
set -euo pipefail

N8N_VERSION="${N8N_VERSION:-2.41.1}"
NODE_RANGE="${NODE_RANGE:-24}"
CACHE_DIR="${DOCEX_CACHE_DIR:-$HOME/.cache/n8n-nodes-document-extraction}"
NODE_DIR="$CACHE_DIR/node-$NODE_RANGE"
N8N_DIR="$CACHE_DIR/n8n-$N8N_VERSION"
# what an n8n install needs on disk, with room for npm's temporary files
N8N_DISK_MB=4000
NODE_DISK_MB=300

log() { printf '[runtime] %s\n' "$*" >&2; }
fail() {
	printf '[runtime] error: %s\n' "$*" >&2
	exit 1
}

# shellcheck source=scripts/lib/clean-npm.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/clean-npm.sh"

# Turns a failed npm call's log into one line that names the cause and the fix.
explain_npm_failure() {
	local what="$1" logfile="$2"
	if grep -qE 'ENOSPC|no space left on device' "$logfile"; then
		fail "$what: the disk is full ($(df -h "$CACHE_DIR" 2>/dev/null | awk 'NR==2{print $4}') free under $CACHE_DIR). Free some space (about ${N8N_DISK_MB} MB) and run the command again. Log: $logfile"
	elif grep -qE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network request to .* failed|request to .* failed' "$logfile"; then
		fail "$what: the npm registry ($(npm config get registry 2>/dev/null || echo 'see npm config get registry')) could not be reached. Check the network or the registry setting in ~/.npmrc, then run the command again. Log: $logfile"
	elif grep -qE 'E404|404 Not Found|No matching version|ETARGET' "$logfile"; then
		fail "$what: the registry has no such package or version. Check N8N_VERSION / NODE_RANGE, then run the command again. Log: $logfile"
	else
		fail "$what failed: $(grep -E 'npm (ERR!|error)' "$logfile" | grep -v 'A complete log' | head -1 | sed 's/^npm \(ERR!\|error\) *//' | cut -c1-200). Run the command again; if it fails the same way, read $logfile"
	fi
}

check_disk() {
	local need_mb="$1" free_mb
	free_mb="$(df -Pm "$CACHE_DIR" 2>/dev/null | awk 'NR==2{print $4}')" || return 0
	[ -n "$free_mb" ] || return 0
	[ "$free_mb" -ge "$need_mb" ] ||
		fail "not enough disk space under $CACHE_DIR: ${free_mb} MB free, about ${need_mb} MB needed. Free some space (or set DOCEX_CACHE_DIR to a roomier folder) and run the command again."
}

# What a first install fetches from the npm registry and leaves on disk (measured on Linux x64).
download_sizes() {
	case "$N8N_VERSION" in
	2.41.1) echo "about 390 MB; 2.8 GB on disk" ;;
	1.123.81) echo "about 245 MB; 1.8 GB on disk" ;;
	*) echo "a few hundred MB; about 3 GB on disk" ;;
	esac
}
if [ "${1:-}" = "--plan" ]; then
	parts=() build=""
	[ -f "$NODE_DIR/.complete" ] || parts+=("Node $NODE_RANGE (about 55 MB; 190 MB on disk)")
	if [ ! -f "$N8N_DIR/.complete" ]; then
		parts+=("n8n $N8N_VERSION ($(download_sizes))")
		build=", then builds n8n's native modules for Node $NODE_RANGE (python3, make and g++ needed)"
	fi
	[ "${#parts[@]}" -eq 0 ] ||
		printf 'downloads %s from the npm registry into %s%s: a few minutes, once\n' \
			"$(printf '%s and ' "${parts[@]}" | sed 's/ and $//')" "$CACHE_DIR" "$build"
	exit 0
fi

mkdir -p "$CACHE_DIR" 2>/dev/null || fail "cannot create the cache folder $CACHE_DIR. Set DOCEX_CACHE_DIR to a writable folder and run the command again."
[ -w "$CACHE_DIR" ] || fail "the cache folder $CACHE_DIR is not writable. Set DOCEX_CACHE_DIR to a writable folder and run the command again."
command -v npm >/dev/null || fail "npm is not on PATH. Install Node.js 20 or later with npm, then run the command again."

# one installer at a time (npm start and npm run test:e2e may run side by side on a fresh machine)
if command -v flock >/dev/null 2>&1; then
	exec 9>"$CACHE_DIR/.install.lock"
	flock 9
fi

# --- Node ------------------------------------------------------------------------------------

node_binary() { # the Node binary inside an installed `node` package folder
	local dir="$1" bin
	for bin in "$dir/node_modules/node/bin/node" "$dir/node_modules/.bin/node"; do
		[ -x "$bin" ] && { printf '%s\n' "$bin"; return 0; }
	done
	return 1
}

# Succeeds when the Node in `dir` runs and is of the wanted major version, and its headers (for
# native modules) are there.
node_ok() {
	local dir="$1" bin version
	bin="$(node_binary "$dir")" || return 1
	version="$("$bin" -v 2>/dev/null)" || return 1
	[[ "$version" == "v${NODE_RANGE%%.*}."* ]] || return 1
	[ -n "$(find "$dir/node_modules" -path '*/include/node/node.h' -print -quit 2>/dev/null)" ]
}

install_node() {
	local staging="$NODE_DIR.staging" logfile="$CACHE_DIR/install-node-$NODE_RANGE.log" bin version
	log "installing Node $NODE_RANGE into $NODE_DIR"
	check_disk "$NODE_DISK_MB"
	rm -rf "$staging" "$NODE_DIR"
	mkdir -p "$staging"
	printf '{"name":"node-runtime","private":true}\n' >"$staging/package.json"
	# the `node` package brings its binary from an install script: scripts must run here
	(cd "$staging" && clean_npm install --no-audit --no-fund --loglevel=error --ignore-scripts=false \
		"node@$NODE_RANGE") >"$logfile" 2>&1 || explain_npm_failure "installing Node $NODE_RANGE from the npm registry" "$logfile"
	bin="$(node_binary "$staging")" ||
		fail "installing Node $NODE_RANGE: npm finished but no Node binary arrived (was the package's install script skipped?). Run the command again; log: $logfile"
	version="$("$bin" -v 2>>"$logfile")" ||
		fail "the Node $NODE_RANGE binary that was installed does not run on this machine ($(uname -m), $(uname -s)). Log: $logfile"
	node_ok "$staging" ||
		fail "the installed Node is $version, not $NODE_RANGE, or came without its headers. Run the command again; log: $logfile"
	mv "$staging" "$NODE_DIR"
	printf '%s\n' "$version" >"$NODE_DIR/.complete"
	log "Node $version is ready"
}

if [ -f "$NODE_DIR/.complete" ] && ! node_ok "$NODE_DIR"; then
	log "the cached Node in $NODE_DIR does not run: installing it again"
	rm -f "$NODE_DIR/.complete"
fi
[ -f "$NODE_DIR/.complete" ] || install_node
NODE24="$(node_binary "$NODE_DIR")"
NODE24_VERSION="$("$NODE24" -v)"
# the headers native modules are built against ship inside the node package
NODE24_HOME="$(dirname "$(dirname "$(dirname "$(find "$NODE_DIR/node_modules" -path '*/include/node/node.h' -print -quit)")")")"

# --- n8n -------------------------------------------------------------------------------------

# Native modules n8n loads; those the installed version has are rebuilt for Node 24 and checked.
NATIVE_MODULES=(sqlite3 isolated-vm)

native_present() {
	local dir="$1" module
	for module in "${NATIVE_MODULES[@]}"; do
		[ -f "$dir/node_modules/$module/package.json" ] && printf '%s\n' "$module"
	done
	return 0
}

# Succeeds when every native module n8n has loads in Node 24, from inside n8n's folder.
native_ok() {
	local dir="$1" modules
	modules="$(native_present "$dir" | paste -sd, -)"
	[ -n "$modules" ] || return 1
	(cd "$dir" && "$NODE24" -e '
		for (const name of process.argv[1].split(",")) {
			try { require(name); } catch (error) { console.error(name + ": " + error.message.split("\n")[0]); process.exit(1); }
		}' "$modules")
}

n8n_ok() {
	local dir="$1"
	[ -f "$dir/node_modules/n8n/bin/n8n" ] || return 1
	[ "$("$NODE24" -p 'require(process.argv[1]).version' "$dir/node_modules/n8n/package.json" 2>/dev/null)" = "$N8N_VERSION" ] || return 1
	native_ok "$dir" 2>/dev/null
}

install_n8n() {
	local staging="$N8N_DIR.staging" logfile="$CACHE_DIR/install-n8n-$N8N_VERSION.log" overrides modules version
	log "installing n8n@$N8N_VERSION into $N8N_DIR ($(download_sizes); a few minutes, once)"
	check_disk "$N8N_DISK_MB"
	rm -rf "$staging" "$N8N_DIR"
	mkdir -p "$staging"
	# Versions whose own dependency tree does not resolve from the npm registry alone:
	# n8n 2.x pulls a linkedom release that is not published; n8n 1.x fetches xlsx from a CDN.
	case "$N8N_VERSION" in
	1.*) overrides='{ "xlsx": "0.18.5" }' ;;
	*) overrides='{ "linkedom": "0.18.14" }' ;;
	esac
	cat >"$staging/package.json" <<JSON
{
  "name": "n8n-runtime",
  "private": true,
  "dependencies": { "n8n": "$N8N_VERSION" },
  "overrides": $overrides
}
JSON
	# install scripts stay off: one of n8n's Kafka dependencies downloads from the internet in its own
	# --prefer-offline: what npm's cache already holds is used without asking the registry again
	# (an empty cache fetches everything as usual)
	(cd "$staging" && clean_npm install --no-audit --no-fund --loglevel=error --ignore-scripts --prefer-offline) \
		>"$logfile" 2>&1 || explain_npm_failure "installing n8n@$N8N_VERSION from the npm registry" "$logfile"
	[ -f "$staging/node_modules/n8n/bin/n8n" ] ||
		fail "installing n8n@$N8N_VERSION: npm finished but node_modules/n8n/bin/n8n is missing. Run the command again; log: $logfile"

	mapfile -t modules < <(native_present "$staging")
	[ "${#modules[@]}" -gt 0 ] ||
		fail "installing n8n@$N8N_VERSION: none of its native modules (${NATIVE_MODULES[*]}) was installed. Run the command again; log: $logfile"
	log "building native modules (${modules[*]}) for Node $NODE24_VERSION"
	# JOBS=max: node-gyp compiles on every core
	(cd "$staging" && PATH="$(dirname "$NODE24"):$PATH" JOBS=max clean_npm rebuild "${modules[@]}" \
		--ignore-scripts=false --nodedir="$NODE24_HOME") >>"$logfile" 2>&1 ||
		explain_npm_failure "building n8n's native modules (${modules[*]}) for Node $NODE24_VERSION (needs python3, make and g++)" "$logfile"
	native_ok "$staging" 2>>"$logfile" ||
		fail "n8n's native modules were built but do not load in Node $NODE24_VERSION: $(tail -1 "$logfile"). Check that python3, make and g++ are installed, then run the command again."

	version="$(cd "$staging" && "$NODE24" node_modules/n8n/bin/n8n --version 2>>"$logfile" | tail -1)" ||
		fail "n8n's binary does not run with Node $NODE24_VERSION: $(tail -1 "$logfile"). Run the command again; log: $logfile"
	[ "$version" = "$N8N_VERSION" ] ||
		fail "n8n's binary reports version '$version', expected $N8N_VERSION. Run the command again; log: $logfile"
	mv "$staging" "$N8N_DIR"
	printf '%s\n' "$N8N_VERSION" >"$N8N_DIR/.complete"
	log "n8n $N8N_VERSION is ready"
}

if [ -f "$N8N_DIR/.complete" ] && ! n8n_ok "$N8N_DIR"; then
	log "the cached n8n in $N8N_DIR is incomplete or does not load: installing it again"
	rm -f "$N8N_DIR/.complete"
fi
[ -f "$N8N_DIR/.complete" ] || install_n8n

printf 'NODE24=%q\nN8N_DIR=%q\nN8N_BIN=%q\n' "$NODE24" "$N8N_DIR" "$N8N_DIR/node_modules/n8n/bin/n8n"
