#!/usr/bin/env bash
# npm run test:scan: n8n's verification scanner (@n8n/scan-community-package), run the way its CLI
# runs it on a published package, on this clone instead of a download:
#   source leg:  analyzePackage(<clone>, ['package.json', '{nodes,credentials}/**/*.{js,ts,json}'])
#   tarball leg: analyzePackage(<unpacked npm pack>, ['**/*.js', 'package.json'])
# A third run on a copy of the source with one forbidden call added must fail, so a scanner that
# checks nothing cannot pass. The scanner is installed into a temporary folder, outside the
# package's dependencies (its typescript@7 breaks @typescript-eslint; typescript@5 is pinned
# beside it with --legacy-peer-deps).
#   SCANNER_VERSION (0.32.0)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SCANNER_VERSION="${SCANNER_VERSION:-0.32.0}"
# shellcheck source=scripts/lib/clean-npm.sh
source "$ROOT/scripts/lib/clean-npm.sh"

log() { printf '[scan] %s\n' "$*" >&2; }
WORK="$(mktemp -d /tmp/docex-scan.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

log "installing @n8n/scan-community-package@$SCANNER_VERSION"
mkdir -p "$WORK/tool"
printf '{"name":"scan-tool","private":true}\n' >"$WORK/tool/package.json"
(cd "$WORK/tool" && clean_npm install --no-audit --no-fund --loglevel=error --legacy-peer-deps --ignore-scripts \
	"@n8n/scan-community-package@$SCANNER_VERSION" typescript@5 n8n-workflow) >"$WORK/install.log" 2>&1 || {
	tail -5 "$WORK/install.log" >&2
	log "error: could not install the scanner from the npm registry (log above); check the network and run again"
	exit 1
}

log "building and packing the package"
npm run build --silent >/dev/null
mkdir -p "$WORK/tarball" "$WORK/canary"
TARBALL="$(npm pack --silent --pack-destination "$WORK" | tail -1)"
tar -xzf "$WORK/$TARBALL" -C "$WORK/tarball" --strip-components=1

# the canary: the source with one call the scanner forbids in node code
cp -r package.json nodes credentials "$WORK/canary/"
printf '\nexport const canary = () => setTimeout(() => undefined, 1);\n' \
	>>"$WORK/canary/nodes/DocumentExtraction/DocumentExtraction.node.ts"

exec node "$ROOT/scripts/scan.mjs" "$WORK/tool" "$ROOT" "$WORK/tarball" "$WORK/canary"
