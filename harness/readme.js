'use strict';

/**
 * The README's shell blocks as the tests run them: the ```sh block after a marker comment, and the
 * install block run as written in a fresh HOME, offline (the tarball is local and has no
 * dependencies to fetch).
 */

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const INSTALL_MARKER = '<!-- install-from-tarball -->';

/** The ```sh block after `marker` in README.md, its indentation (a list item's) removed. */
function readmeBlock(marker) {
	const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
	const at = readme.indexOf(marker);
	if (at < 0) throw new Error(`README.md has no ${marker}`);
	// the block may be indented under a list item: its fence sets the indentation of every line
	const block = /^([ \t]*)```sh\n([\s\S]*?)\n\1```/m.exec(readme.slice(at));
	if (!block) throw new Error(`no \`\`\`sh block after ${marker} in README.md`);
	return block[2]
		.split('\n')
		.map((line) => (line.startsWith(block[1]) ? line.slice(block[1].length) : line))
		.join('\n');
}

/**
 * Runs the README's install commands in `home` (its HOME, an empty folder), with `/path/to/<tarball>`
 * replaced by `tarball`; npm offline, with its cache in `npmCache`.
 */
function runReadmeInstall({ commands = readmeBlock(INSTALL_MARKER), tarball, home, npmCache }) {
	execFileSync(
		'bash',
		['-euo', 'pipefail', '-c', commands.replaceAll(`/path/to/${path.basename(tarball)}`, tarball)],
		{
			cwd: home,
			stdio: ['ignore', 'pipe', 'pipe'],
			env: {
				PATH: process.env.PATH,
				HOME: home,
				npm_config_offline: 'true',
				npm_config_audit: 'false',
				npm_config_fund: 'false',
				npm_config_update_notifier: 'false',
				npm_config_cache: npmCache,
			},
		},
	);
}

module.exports = { INSTALL_MARKER, readmeBlock, runReadmeInstall };
