'use strict';

/**
 * The README's install commands (the block after `<!-- install-from-tarball -->`), run as written
 * with the tarball `npm pack` made, in a shell whose HOME is a fresh folder, offline; then an n8n
 * started on that folder serves both nodes and the credential to its editor. On n8n 2.41.1 the
 * browser suite runs the same commands and uses the nodes (test/ui/ownMailbox.js): 1.x only here.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { login, setupOwner, waitReady } = require('../../../scripts/n8n-local.js');
const {
	IS_N8N_1,
	ROOT,
	NODE24,
	N8N_BIN,
	freePort,
	n8nProcessEnv,
	startProcess,
	stopProcess,
} = require('../../../harness/n8n.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const {
	INSTALL_MARKER: MARKER,
	readmeBlock,
	runReadmeInstall,
} = require('../../../harness/readme.js');
const PACKAGE = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const TARBALL = `${PACKAGE.name}-${PACKAGE.version}.tgz`;

/** The names of the node or credential types n8n serves to its editor (`file`: nodes.json, …). */
async function served(baseUrl, cookie, file) {
	const res = await fetch(`${baseUrl}/types/${file}`, { headers: { cookie } });
	assert.equal(res.status, 200, `GET /types/${file}: HTTP ${res.status}`);
	return (await res.json()).map((type) => type.name);
}

const onThisVersion = IS_N8N_1 ? test : () => {};

onThisVersion(
	'Install from the packed tarball as the README says: a fresh n8n finds both nodes',
	async (t) => {
		const commands = readmeBlock(MARKER);
		assert.ok(commands.includes(`/path/to/${TARBALL}`), `the README installs /path/to/${TARBALL}`);
		assert.ok(
			state.tarball && path.basename(state.tarball) === TARBALL,
			`npm pack made ${state.tarball}`,
		);

		const home = path.join(state.tmp, 'readme-install');
		fs.mkdirSync(home);
		const started = Date.now();
		runReadmeInstall({ commands, tarball: state.tarball, home, npmCache: path.join(home, '.npm') });
		const installSeconds = (Date.now() - started) / 1000;
		const nodesDir = path.join(home, '.n8n', 'nodes', 'node_modules');
		const has = (name) => fs.existsSync(path.join(nodesDir, name));
		assert.ok(has(`${PACKAGE.name}/package.json`), `not installed in ${nodesDir}`);
		// n8n-workflow must come from n8n itself: a second copy next to the package would shadow it
		assert.ok(!has('n8n-workflow'), 'npm installed a second n8n-workflow');

		const port = await freePort();
		const baseUrl = `http://127.0.0.1:${port}`;
		const env = await n8nProcessEnv(path.join(home), { N8N_PORT: String(port) });
		const log = path.join(state.tmp, 'readme-install-n8n.log');
		const n8n = startProcess(NODE24, [N8N_BIN, 'start'], env, log);
		try {
			await waitReady(`${baseUrl}/healthz/readiness`, 120000, () => n8n.alive);
			await waitReady(`${baseUrl}/rest/settings`, 60000, () => n8n.alive);
			const owner = await setupOwner(baseUrl, path.join(state.tmp, 'readme-install-owner.json'));
			const cookie = await login(baseUrl, owner);
			const nodes = await served(baseUrl, cookie, 'nodes.json');
			for (const name of ['documentExtraction', 'documentExtractionTrigger'])
				assert.ok(nodes.includes(`${PACKAGE.name}.${name}`), `n8n does not offer ${name}`);
			const credentials = await served(baseUrl, cookie, 'credentials.json');
			assert.ok(credentials.includes('documentExtractionApi'), 'n8n does not offer the credential');
		} finally {
			await stopProcess(n8n);
		}
		t.diagnostic(`README install commands took ${installSeconds.toFixed(1)} s`);
	},
);
