'use strict';
/**
 * The build's asset copy: into dist/, keeping their paths, what the TypeScript compiler does not emit: the
 * node and credential icons, the codex files that describe each node to n8n's panel (*.node.json), and the
 * output schemas the editor shows before a node has run (__schema__/v{version}/{resource}/{operation}.json).
 * The gulp task `build:icons`, as in n8n's node starter; `node gulpfile.js` runs it without gulp, as
 * `npm run build` and `npm run tarball` do.
 */
const fs = require('node:fs');
const path = require('node:path');

const ASSET = /\.(png|svg)$|\.node\.json$|(^|\/)__schema__\/.+\.json$/;

function copyAssets(dir) {
	for (const entry of fs.readdirSync(path.join(__dirname, dir), { withFileTypes: true })) {
		const file = `${dir}/${entry.name}`;
		if (entry.isDirectory()) copyAssets(file);
		else if (ASSET.test(file)) {
			fs.mkdirSync(path.join(__dirname, 'dist', dir), { recursive: true });
			fs.copyFileSync(path.join(__dirname, file), path.join(__dirname, 'dist', file));
		}
	}
}

function buildIcons(done) {
	for (const dir of ['nodes', 'credentials']) copyAssets(dir);
	if (done) done();
}

exports['build:icons'] = buildIcons;
if (require.main === module) buildIcons();
