'use strict';

/**
 * What the nodes let in and out, in a real n8n: URL input refuses loopback addresses unless
 * Allow Private Addresses is on (and n8n's own SSRF protection still applies), a key
 * pasted into the Base URL appears nowhere in the execution data or n8n's output (n8n, not the
 * node, writes the execution data and its log: a unit test cannot see them). How the address is
 * classified, and how the credential test and the nodes read the Base URL, are unit-tested
 * (test/unit/nodes/shared/addresses.test.ts, baseUrl.test.ts, credentials/). Everything here listens on and connects to
 * loopback only: 127.0.0.1, 127.0.0.2, ::1 and localhost.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { test, after } = require('node:test');

const { samplePdf } = require('../../../emulator/lib/pdf.js');
const { sha256 } = require('../../../harness/fixtures.js');
const {
	execute,
	n8nCliOk,
	nodeItems,
	skipOnN8n1,
} = require('../../../harness/n8n.js');
const {
	docex,
	manual,
	node,
	submitAndWaitUrl,
	workflow,
} = require('../../../harness/workflows.js');
const { expectSuccess, exitOf } = require('../lib/judge.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const ALLOW = 'Allow Private Addresses';
const PDF = samplePdf('INVOICE INV-L-7007 served on another loopback address');
const PASTED = ['vnd', 'e2e_PASTED_into_base_url_7f3a'].join('_');

const WF = {
	refused: 'E2eSecUrlRefused',
	allowed: 'E2eSecUrlAllowed',
	pasted: 'E2eSecPastedKey1',
};

const CREDS = {
	query: { id: 'DocExtrPastedQry', name: 'Base URL with a key in the query' },
	userinfo: { id: 'DocExtrPastedUsr', name: 'Base URL with a key as user info' },
	path: { id: 'DocExtrPastedPth', name: 'Base URL with a key in the path' },
};

/** One small server on 127.0.0.1, 127.0.0.2 and ::1 (one port): GET /doc.pdf serves PDF. Counts the requests each address got. */
async function startLoopbackServer() {
	const seen = [];
	const handler = (req, res) => {
		seen.push({ host: req.socket.localAddress, path: req.url });
		if (req.url === '/doc.pdf') {
			res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': PDF.length });
			res.end(PDF);
			return;
		}
		res.writeHead(404).end();
	};
	const servers = [];
	const listen = (host, port) =>
		new Promise((resolve, reject) => {
			const server = http.createServer(handler);
			server.once('error', reject);
			server.listen(port, host, () => {
				servers.push(server);
				resolve(server.address().port);
			});
		});
	const port = await listen('127.0.0.2', 0);
	await listen('127.0.0.1', port);
	await listen('::1', port);
	return {
		port,
		seen,
		close: () =>
			Promise.all(
				servers.map(
					(s) =>
						new Promise((resolve) => {
							s.close(resolve);
							s.closeAllConnections();
						}),
				),
			),
	};
}

let server;
let imported = false;

after(async () => {
	await server?.close();
});

function urlCases(port) {
	return [
		{ case: '127.0.0.1', url: `http://127.0.0.1:${port}/doc.pdf` },
		{ case: '127.0.0.2', url: `http://127.0.0.2:${port}/doc.pdf` },
		{ case: '::1', url: `http://[::1]:${port}/doc.pdf` },
		{ case: 'localhost', url: `http://localhost:${port}/doc.pdf` },
		{ case: 'decimal', url: `http://2130706433:${port}/doc.pdf` },
	];
}

/** Manual trigger, one item per case, Submit (URL input) with `options`. */
function urlWorkflow(id, name, cases, options) {
	const submit = submitAndWaitUrl('Submit', '={{ $json.url }}', options, { continueOnFail: true });
	submit.parameters = { ...submit.parameters, operation: 'submit' };
	delete submit.parameters.output;
	submit.parameters.options = { ...options };
	return workflow(id, name, [
		manual(),
		node('Cases', 'n8n-nodes-base.set', 3.4, {
			mode: 'raw',
			jsonOutput: JSON.stringify({ cases }),
			options: {},
		}),
		node('Split Cases', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'cases', options: {} }),
		submit,
	]);
}

const listProjects = (name, cred) =>
	docex(
		name,
		{ resource: 'project', operation: 'list' },
		{ credentials: { documentExtractionApi: cred }, continueOnFail: true },
	);

/** Imports this file's credentials and workflows once, with the n8n CLI. */
async function importOnce() {
	if (imported) return;
	server = await startLoopbackServer();
	const emulatorPort = new URL(state.emulatorUrl).port;
	const dir = path.join(state.tmp, 'security');
	fs.mkdirSync(dir, { recursive: true });
	const credentials = [
		[CREDS.query, `${state.emulatorUrl}/?api_key=${PASTED}`],
		[CREDS.userinfo, `http://${PASTED}@127.0.0.1:${emulatorPort}`],
		[CREDS.path, `${state.emulatorUrl}/${PASTED}/`],
	].map(([c, baseUrl]) => ({
		id: c.id,
		name: c.name,
		type: 'documentExtractionApi',
		data: { apiKey: 'vnd_test_key', baseUrl },
	}));
	fs.writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify(credentials));
	await n8nCliOk(['import:credentials', `--input=${path.join(dir, 'credentials.json')}`]);

	const cases = urlCases(server.port);
	const workflows = [
		urlWorkflow(WF.refused, 'e2e: URL input from loopback, default options', cases, {}),
		urlWorkflow(WF.allowed, `e2e: URL input from loopback, ${ALLOW} on`, cases, {
			allowPrivateAddresses: true,
		}),
		workflow(WF.pasted, 'e2e: a key pasted into the Base URL', [
			manual(),
			listProjects('Key in the query', CREDS.query),
			listProjects('Key as user info', CREDS.userinfo),
			listProjects('Key in the path', CREDS.path),
		]),
	];
	const wfDir = path.join(dir, 'workflows');
	fs.mkdirSync(wfDir);
	for (const wf of workflows) {
		fs.writeFileSync(path.join(wfDir, `${wf.id}.json`), JSON.stringify(wf));
	}
	await n8nCliOk(['import:workflow', '--separate', `--input=${wfDir}`]);
	imported = true;
}

test('Security: URL input refuses 127.0.0.1, 127.0.0.2, ::1, localhost by default, at once, naming the option', async (t) => {
	await importOnce();
	const before = server.seen.length;
	const res = await execute(WF.refused);
	expectSuccess(res);
	const items = nodeItems(res.run, 'Submit');
	const cases = urlCases(server.port);
	assert.equal(items.length, cases.length);
	items.forEach((item, i) => {
		assert.equal(
			typeof item.json.error,
			'string',
			`${cases[i].case} was not refused: ${JSON.stringify(item.json)}`,
		);
		assert.match(
			item.json.error,
			new RegExp(
				`^The document URL points to .*: a loopback address\\. Downloads from such addresses are refused unless "${ALLOW}" is on$`,
			),
			cases[i].case,
		);
		assert.equal(item.json.task_id, undefined);
	});
	assert.equal(
		server.seen.length,
		before,
		`the node connected: ${JSON.stringify(server.seen.slice(before))}`,
	);
	t.diagnostic(items.map((item) => item.json.error.replace(/ Downloads.*/, '')).join(' | '));
});

test(`Security: with ${ALLOW} on, the same URLs are downloaded and submitted`, async (t) => {
	await importOnce();
	const before = server.seen.length;
	const res = await execute(WF.allowed);
	expectSuccess(res);
	const items = nodeItems(res.run, 'Submit');
	const cases = urlCases(server.port);
	items.forEach((item, i) => {
		assert.equal(item.json.error, undefined, `${cases[i].case}: ${item.json.error}`);
		assert.match(String(item.json.task_id), /^[0-9a-f-]{36}$/, cases[i].case);
	});
	const hosts = server.seen.slice(before).map((r) => r.host);
	assert.deepEqual(
		[...new Set(hosts)].sort(),
		['127.0.0.1', '127.0.0.2', '::1'].sort(),
		`addresses reached: ${hosts.join(', ')}`,
	);
	t.diagnostic(
		`${items.length} downloads of ${PDF.length} bytes (sha256 ${sha256(PDF).slice(0, 12)}…) from ${hosts.join(', ')}`,
	);
});

test(
	"Security: n8n's own SSRF protection (N8N_SSRF_PROTECTION_ENABLED) still blocks them with the option on",
	skipOnN8n1('n8n 1.x has no SSRF protection settings'),
	async (t) => {
		await importOnce();
		const before = server.seen.length;
		// n8n 2.41.1's CLI with SSRF protection on sometimes crashes while exiting (SIGSEGV, SIGABRT),
		// after the run has finished and been printed: the run is what is judged (lib/judge.js)
		const res = await execute(WF.allowed, { N8N_SSRF_PROTECTION_ENABLED: 'true' });
		expectSuccess(res);
		const items = nodeItems(res.run, 'Submit');
		assert.equal(items.length, urlCases(server.port).length);
		for (const item of items) {
			assert.match(String(item.json.error), /^n8n's SSRF protection blocked the download from /);
		}
		assert.equal(server.seen.length, before, 'n8n connected despite its SSRF protection');
		t.diagnostic(`${items[0].json.error} (n8n execute: ${exitOf(res)})`);
	},
);

test('Security: a key pasted into the Base URL appears nowhere in the execution data or the output of n8n', async (t) => {
	await importOnce();
	const res = await execute(WF.pasted);
	expectSuccess(res);
	const errors = {};
	for (const name of ['Key in the query', 'Key as user info', 'Key in the path']) {
		const [item] = nodeItems(res.run, name);
		errors[name] = String(item.json.error);
	}
	assert.match(errors['Key in the query'], /must not contain a query/);
	assert.match(errors['Key as user info'], /must not contain a user name or password/);
	assert.match(errors['Key in the path'], /^Not found \(404\)/);
	const everything = `${JSON.stringify(res.run)}\n${res.output}`;
	assert.ok(everything.includes('Key in the query'), 'the run is not in the output');
	assert.ok(
		!everything.includes('PASTED'),
		'the pasted key appears in the execution data or the output',
	);
	t.diagnostic(JSON.stringify(errors));
});
