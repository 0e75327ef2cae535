#!/usr/bin/env bash
# Installs Node 24 and n8n into a cache folder outside the clone, once per version,
# and prints the paths as shell assignments (NODE24=..., N8N_BIN=...).
set -euo pipefail

N8N_VERSION="${N8N_VERSION:-2.41.1}"
NODE_RANGE="${NODE_RANGE:-24}"
CACHE_DIR="${DOCEX_CACHE_DIR:-$HOME/.cache/n8n-nodes-document-extraction}"
NODE_DIR="$CACHE_DIR/node-$NODE_RANGE"
N8N_DIR="$CACHE_DIR/n8n-$N8N_VERSION"

log() { printf '[runtime] %s\n' "$*" >&2; }

mkdir -p "$CACHE_DIR"
# one installer at a time (npm start and npm run test:e2e may run side by side on a fresh machine)
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE_DIR/.install.lock"
  flock 9
fi

if [ ! -f "$NODE_DIR/.complete" ]; then
  log "installing Node $NODE_RANGE into $NODE_DIR"
  rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && printf '{"name":"node-runtime","private":true}\n' > package.json \
    && npm install --no-audit --no-fund --loglevel=error "node@$NODE_RANGE" >&2)
  touch "$NODE_DIR/.complete"
fi
NODE24="$(cd "$NODE_DIR/node_modules/node/bin" 2>/dev/null && pwd)/node"
[ -x "$NODE24" ] || NODE24="$NODE_DIR/node_modules/.bin/node"
NODE24_VERSION="$("$NODE24" -v)"
# the headers native modules are built against ship inside the node package
NODE24_HOME="$(dirname "$(dirname "$(dirname "$(find "$NODE_DIR/node_modules" -path '*/include/node/node.h' -print -quit)")")")"

if [ ! -f "$N8N_DIR/.complete" ]; then
  log "installing n8n@$N8N_VERSION into $N8N_DIR (a few minutes, once)"
  rm -rf "$N8N_DIR" && mkdir -p "$N8N_DIR"
  cat > "$N8N_DIR/package.json" <<JSON
{
  "name": "n8n-runtime",
  "private": true,
  "dependencies": { "n8n": "$N8N_VERSION" },
  "overrides": { "linkedom": "0.18.14" }
}
JSON
  (cd "$N8N_DIR" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
  log "building native modules for Node $NODE24_VERSION"
  (cd "$N8N_DIR" && PATH="$(dirname "$NODE24"):$PATH" npm rebuild sqlite3 isolated-vm --nodedir="$NODE24_HOME" >&2)
  touch "$N8N_DIR/.complete"
fi

printf 'NODE24=%q\nN8N_DIR=%q\nN8N_BIN=%q\n' "$NODE24" "$N8N_DIR" "$N8N_DIR/node_modules/n8n/bin/n8n"
