#!/usr/bin/env bash
# npm run tarball: builds the package and packs it, on a clone without `npm ci`. TypeScript, at
# the version package-lock.json pins, comes from the npm registry through npx (about 38 MB in an
# empty npm cache: the 4 MB package, the registry's list of its versions, npx's unpacked copy), and
# compiles without checking types: `npm run build`, after `npm ci`, checks them, and both builds
# write the same files. Prints the tarball's name last.
#   TARBALL_DIR (.)  where the tarball is written
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
TYPESCRIPT="$(node -p "require('./package-lock.json').packages['node_modules/typescript'].version")"
rm -rf dist
npx --yes --package "typescript@$TYPESCRIPT" -- tsc -p tsconfig.json --noCheck
node gulpfile.js
npm pack --silent --pack-destination "${TARBALL_DIR:-.}" | tail -1
