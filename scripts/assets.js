#!/usr/bin/env node
'use strict';
/**
 * Copies into dist/ what the TypeScript compiler does not emit, keeping their paths: the node and
 * credential icons, the codex files that describe each node to n8n's panel (*.node.json), and the
 * output schemas the editor shows before a node has run (__schema__/v{version}/{resource}/{operation}.json).
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const ASSET = /\.(png|svg)$|\.node\.json$|(^|\/)__schema__\/.+\.json$/;

function copyAssets(dir) {
	for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
		const file = `${dir}/${entry.name}`;
		if (entry.isDirectory()) copyAssets(file);
		else if (ASSET.test(file)) {
			fs.mkdirSync(path.join(ROOT, 'dist', dir), { recursive: true });
			fs.copyFileSync(path.join(ROOT, file), path.join(ROOT, 'dist', file));
		}
	}
}

for (const dir of ['nodes', 'credentials']) copyAssets(dir);
