'use strict';

/**
 * What the nodes let in and out of a real n8n: URL input refuses a loopback address (by IP and by
 * name) unless Allow Private Addresses is on, n8n's own SSRF protection still applies with it on,
 * and a key pasted into the Base URL appears nowhere in the execution data or output n8n writes.
 * How each address is classified is unit-tested (test/unit/nodes/shared/addresses.test.ts).
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { execute, n8nCliOk, nodeItems, skipOnN8n1 } = require('../../../harness/n8n.js');
const {
	docex,
	fileUrl,
	manual,
	node,
	submitAndWaitUrl,
	workflow,
} = require('../../../harness/workflows.js');
const { servedFiles } = require('../lib/emulator-client.js');
const { expectSuccess, exitOf } = require('../lib/judge.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const ALLOW = 'Allow Private Addresses';
const PASTED = ['vnd', 'e2e_PASTED_into_base_url_7f3a'].join('_');
const FILE = 'loopback-invoice.pdf';

const WF = {
	refused: 'E2eSecUrlRefused',
	allowed: 'E2eSecUrlAllowed',
	pasted: 'E2eSecPastedKey1',
};

/** Credentials whose Base URL holds the pasted key, and the error each gets. */
const PASTED_INTO = {
	'Key in the query': [(emu) => `${emu}/?api_key=${PASTED}`, /must not contain a query/],
	'Key as user info': [
		(emu) => emu.replace('//', `//${PASTED}@`),
		/must not contain a user name or password/,
	],
	'Key in the path': [(emu) => `${emu}/${PASTED}/`, /^Not found \(404\)/],
};

/** The emulator's file by its IP, and by a name that resolves to it. */
const urlCases = () => {
	const url = fileUrl(state.emulatorUrl, FILE);
	return [
		{ case: '127.0.0.1', url },
		{ case: 'localhost', url: url.replace('127.0.0.1', 'localhost') },
	];
};

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

let imported = false;

/** Imports this file's credentials and workflows once, with the n8n CLI. */
async function importOnce() {
	if (imported) return;
	const dir = path.join(state.tmp, 'security');
	fs.mkdirSync(path.join(dir, 'workflows'), { recursive: true });
	const names = Object.keys(PASTED_INTO);
	const credentials = names.map((name, i) => ({
		id: `DocExtrPasted${i}00`,
		name,
		type: 'documentExtractionApi',
		data: { apiKey: 'vnd_test_key', baseUrl: PASTED_INTO[name][0](state.emulatorUrl) },
	}));
	fs.writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify(credentials));
	await n8nCliOk(['import:credentials', `--input=${path.join(dir, 'credentials.json')}`]);
	const allowed = { allowPrivateAddresses: true };
	const workflows = [
		urlWorkflow(WF.refused, 'e2e: URL input from loopback, default options', urlCases(), {}),
		urlWorkflow(WF.allowed, `e2e: URL input, ${ALLOW} on`, urlCases().slice(0, 1), allowed),
		workflow(WF.pasted, 'e2e: a key pasted into the Base URL', [
			manual(),
			...credentials.map(({ id, name }) =>
				docex(
					name,
					{ resource: 'project', operation: 'list' },
					{ credentials: { documentExtractionApi: { id, name } }, continueOnFail: true },
				),
			),
		]),
	];
	for (const wf of workflows)
		fs.writeFileSync(path.join(dir, 'workflows', `${wf.id}.json`), JSON.stringify(wf));
	await n8nCliOk(['import:workflow', '--separate', `--input=${path.join(dir, 'workflows')}`]);
	imported = true;
}

const servedCount = async () => (await servedFiles()).filter((f) => f.name === FILE).length;

/** Runs a URL workflow: the Submit node's items, how often the file was downloaded, the result. */
async function runUrlWorkflow(workflowId, env) {
	await importOnce();
	const before = await servedCount();
	const res = await execute(workflowId, env);
	expectSuccess(res);
	return { items: nodeItems(res.run, 'Submit'), downloads: (await servedCount()) - before, res };
}

test('Security: URL input refuses 127.0.0.1 and localhost by default, at once, naming the option', async (t) => {
	const { items, downloads } = await runUrlWorkflow(WF.refused);
	const refused = `^The document URL points to .*: a loopback address\\. Downloads from such addresses are refused unless "${ALLOW}" is on$`;
	assert.equal(items.length, urlCases().length);
	for (const { json } of items) {
		assert.match(String(json.error), new RegExp(refused));
		assert.equal(json.task_id, undefined);
	}
	assert.equal(downloads, 0, 'the node downloaded a refused URL');
	t.diagnostic(items.map((item) => item.json.error.replace(/ Downloads.*/, '')).join(' | '));
});

test(`Security: with ${ALLOW} on, the same URL is downloaded and submitted`, async (t) => {
	const { items, downloads } = await runUrlWorkflow(WF.allowed);
	const [item] = items;
	assert.equal(item.json.error, undefined, String(item.json.error));
	assert.match(String(item.json.task_id), /^[0-9a-f-]{36}$/);
	assert.equal(downloads, 1, 'the document was not downloaded once');
	t.diagnostic(`task ${item.json.task_id}`);
});

test(
	"Security: n8n's own SSRF protection (N8N_SSRF_PROTECTION_ENABLED) still blocks it with the option on",
	skipOnN8n1('n8n 1.x has no SSRF protection settings'),
	async (t) => {
		// n8n 2.41.1's CLI with SSRF protection on sometimes crashes while exiting, after printing
		// the finished run: the run is what is judged (lib/judge.js)
		const env = { N8N_SSRF_PROTECTION_ENABLED: 'true' };
		const { items, downloads, res } = await runUrlWorkflow(WF.allowed, env);
		const [item] = items;
		assert.match(String(item.json.error), /^n8n's SSRF protection blocked the download from /);
		assert.equal(downloads, 0, 'n8n connected despite its SSRF protection');
		t.diagnostic(`${item.json.error} (n8n execute: ${exitOf(res)})`);
	},
);

test('Security: a key pasted into the Base URL appears nowhere in the execution data or the output of n8n', async (t) => {
	await importOnce();
	const res = await execute(WF.pasted);
	expectSuccess(res);
	const errors = {};
	for (const [name, [, error]] of Object.entries(PASTED_INTO)) {
		errors[name] = String(nodeItems(res.run, name)[0].json.error);
		assert.match(errors[name], error);
	}
	const everything = `${JSON.stringify(res.run)}\n${res.output}`;
	assert.ok(everything.includes('Key in the query'), 'the run is not in the output');
	assert.ok(!everything.includes('PASTED'), 'the pasted key appears in the run or the output');
	t.diagnostic(JSON.stringify(errors));
});
