'use strict';

/**
 * A service (or a gateway in front of it) that echoes the request's Authorization header back: in
 * a 401 detail, in the msg of a 422 list, in a 500 HTML page (the emulator's echo_auth fault). The
 * key reaches none of: the output and error items, the stored execution, n8n's log, an MCP
 * client's tool answer. Where the text is redacted is unit-tested (request.test.ts); here, that
 * nothing n8n adds (its stored error, its log line of a failed run, the MCP server's tool error)
 * carries the key some other way, on both n8n versions.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test, after } = require('node:test');

const { GOOD_KEY } = require('../../../harness/fixtures.js');
const {
	executionData,
	executionsOf,
	n8nCliOk,
	rest,
	startN8n,
	waitFor,
} = require('../../../harness/n8n.js');
const {
	WF: SUITE,
	fileUrl,
	submitAndWaitUrl,
	webhook,
	workflow,
} = require('../../../harness/workflows.js');
const { addFault, clearFaults } = require('../lib/emulator-client.js');
const { publish, callProductionWebhook } = require('../lib/publishing.js');
const { connectMcp } = require('../lib/mcp-client.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const WF = 'E2eSecretsEcho01';
const PATH = 'docex-e2e-secrets-echo';
/** Each shape the key comes back in, and how many uploads a node makes of it (a 500 is retried). */
const SHAPES = [
	[401, 1],
	[422, 1],
	[500, 4],
];
let client;

after(() => client?.close().catch(() => {}));

/** Webhook → Submit with On Error → Continue → Submit without it: an error item, then a failed run. */
async function importWorkflow() {
	const url = fileUrl(state.emulatorUrl, 'secret-echo.pdf');
	const submit = (name, extra) => {
		const node = submitAndWaitUrl(name, url, {}, { operation: 'submit', ...extra });
		delete node.parameters.output;
		return node;
	};
	const wf = workflow(WF, 'e2e: a service that echoes the key', [
		webhook(PATH),
		submit('Continue', { continueOnFail: true }),
		submit('Throw'),
	]);
	const file = path.join(state.tmp, `${WF}.json`);
	fs.writeFileSync(file, JSON.stringify(wf));
	await n8nCliOk(['import:workflow', `--input=${file}`]);
}

/** Starts the workflow by its webhook and returns its stored execution once it ended. */
async function runEchoed() {
	const before = new Set((await executionsOf(WF)).map((e) => e.id));
	await callProductionWebhook(PATH);
	const ended = await waitFor('the run to end', async () =>
		(await executionsOf(WF)).find(
			(e) => !before.has(e.id) && !['new', 'running', 'waiting'].includes(e.status),
		),
	);
	return await executionData(ended.id);
}

test('Secrets: a key the service echoes (401 detail, 422 msg, 500 HTML) is in no item, stored execution, log line or MCP answer', async (t) => {
	if (!state.n8n?.alive) await startN8n();
	await importWorkflow();
	await publish(WF);
	// published by the MCP case when the whole suite runs
	if (!(await rest('GET', `/workflows/${SUITE.mcp}`)).active) await publish(SUITE.mcp);
	client = await connectMcp('docex-e2e-secrets');
	const seen = [];
	try {
		for (const [status, uploads] of SHAPES) {
			const fault = { endpoint: 'process_file', mode: 'echo_auth', status };
			await addFault({ ...fault, count: 2 * uploads });
			const stored = await runEchoed();
			const { runData } = stored.data.resultData;
			const [item] = runData.Continue[0].data.main[0];
			assert.equal(stored.status, 'error', `the run ended ${stored.status}`);
			assert.equal(item.json.httpCode, status, JSON.stringify(item.json));
			assert.match(JSON.stringify(item.json.detail), /Bearer /, 'the echo did not come back');
			assert.doesNotMatch(JSON.stringify(stored), new RegExp(GOOD_KEY), `stored ${status}`);

			await addFault({ ...fault, count: uploads });
			const url = fileUrl(state.emulatorUrl, 'secret-echo-mcp.pdf');
			const answer = await client.callTool(
				{ name: 'Extract_invoice_from_URL', arguments: { url } },
				undefined,
				{ timeout: 120000 },
			);
			const text = answer.content?.[0]?.text ?? '';
			assert.equal(answer.isError, true, text);
			assert.match(text, /Bearer /, 'the echo did not come back');
			assert.doesNotMatch(text, new RegExp(GOOD_KEY), `MCP answer ${status}`);
			assert.match(text, /Bearer …/);
			seen.push(`${status}: ${text.slice(0, 90)}`);
		}
		for (const e of await executionsOf(SUITE.mcp)) {
			const stored = JSON.stringify(await executionData(e.id));
			assert.doesNotMatch(stored, new RegExp(GOOD_KEY), `MCP execution ${e.id}`);
		}
		const log = fs.readFileSync(path.join(state.tmp, `n8n-${state.n8nLogIndex}.log`), 'utf8');
		assert.doesNotMatch(log, new RegExp(GOOD_KEY), "n8n's log");
		t.diagnostic(seen.join(' | '));
	} finally {
		await clearFaults();
	}
});
