'use strict';

/** The package as a community install gets it: the tarball of `npm pack` (the files of package.json, dist/). */

const path = require('node:path');
const { execFileSync } = require('node:child_process');

const { ROOT } = require('./n8n.js');

/** Packs the package at `source` (this checkout) into the folder dest; returns the tarball's path. */
function packPackage(dest, source = ROOT) {
	const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dest], {
		cwd: source,
		encoding: 'utf8',
	})
		.trim()
		.split('\n')
		.pop();
	return path.join(dest, tarball);
}

module.exports = { packPackage };
