'use strict';

/**
 * examples/production.json in a running n8n: an outage longer than the service's retries, then
 * a refused document, the printed promises (lib/production-promises.js) and
 * the cases that fan out (lib/production-cases.js); then the same workflow with its canvas
 * scrambled replaces it, on a fresh table (n8n 2.x), and the fan-out cases run again. The crash
 * case runs once per version: on the shipped canvas on 2.x, on the scrambled one on 1.x.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { sleep } = require('../../../harness/fixtures.js');
const {
	n8nCliOk,
	startN8n,
	stopN8n,
	waitFor,
	waitPublished,
	executionsOf,
	IS_N8N_1,
	rest,
} = require('../../../harness/n8n.js');
const {
	addFault,
	clearFaults,
	registeredWebhooks,
	waitWebhookLive,
} = require('../lib/emulator-client.js');
const {
	PROD,
	productionWorkflow,
	completionWebhookId,
	createTable,
	deleteTable,
	findTable,
	tableRows,
	sinkCalls,
	callsPerTask,
	eachOnce,
	emulatorSettings,
	forgetTask,
	intakeDocuments,
	intake,
	wrongDocuments,
} = require('../lib/production.js');
const {
	CATCH_UP_S,
	PROCESSING_MS,
	N8N_ENV,
	prod,
	n8nBase,
	catchUp,
	deliveriesOf,
	rowsByTask,
	callsOf,
	cases,
} = require('../lib/production-cases.js');
const { promises } = require('../lib/production-promises.js');
const { intakeKeyNeverStored } = require('../lib/production-intake-key.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const DOCUMENTS = 20;
/** Long enough that n8n is surely down when the tasks finish. */
const OUTAGE_PROCESSING_MS = 12000;

/**
 * Imports the workflow in `layout` with n8n stopped (the CLI writes the database), publishes it
 * (n8n 1.x: the PATCH its editor's Active switch sends), starts n8n and keeps the trigger's URL.
 */
async function install(layout, tableId) {
	await stopN8n();
	const workflow = productionWorkflow({
		layout,
		sinkUrl: `${state.emulatorUrl}/_emulator/sink/crm`,
		catchUpSeconds: CATCH_UP_S,
		stuckMinutes: 0.2, // 12 s
		tableId,
	});
	const dir = path.join(state.tmp, `production-${layout}`);
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, `${PROD.id}.json`), JSON.stringify(workflow));
	await n8nCliOk(['import:workflow', '--separate', `--input=${dir}`]);
	if (!IS_N8N_1) await n8nCliOk(['publish:workflow', `--id=${PROD.id}`]);
	prod.installedAt = new Date().toISOString();
	await startN8n(N8N_ENV);
	if (IS_N8N_1) {
		const { versionId } = await rest('GET', `/workflows/${PROD.id}`);
		const activated = await rest('PATCH', `/workflows/${PROD.id}`, { active: true, versionId });
		assert.equal(activated.active, true, 'the editor’s activation call did not activate');
	}
	await waitPublished(PROD.id);
	const hook = await waitFor('the Completion trigger to register its webhook', async () =>
		(await registeredWebhooks()).find((w) => w.url.includes(completionWebhookId())),
	);
	prod.hookUrl = hook.url;
	await waitWebhookLive(prod.hookUrl);
}

/** Waits until the downstream step has calls of `ids` that satisfy `check`; returns them. */
async function callsUntil(what, ids, check, timeoutMs = 60000) {
	let calls = [];
	await waitFor(
		() => `${what} (${calls.length} calls)`,
		async () => check((calls = await callsOf(ids))),
		timeoutMs,
		500,
	);
	return calls;
}

test('Production: an outage longer than the service’s retries loses nothing; the catch-up delivers each task once, with its context', async (t) => {
	// n8n 1.x (examples/n8n1): the table comes first, its ID goes into the workflow
	let tableId;
	if (IS_N8N_1) {
		await startN8n(N8N_ENV);
		tableId = (await createTable()).id;
	}
	await install('shipped', tableId);
	prod.table = await createTable();

	// DOCUMENTS + 1 documents, the last one the service will forget
	await emulatorSettings({ processing_ms: OUTAGE_PROCESSING_MS, time_scale: 0.05 });
	const documents = intakeDocuments(DOCUMENTS + 1, 'OUT');
	const recorded = await intake(n8nBase(), documents);
	assert.deepEqual(
		recorded.map((e) => [e.file_name, e.state, e.status]),
		documents.map((d) => [d.file_name, 'accepted', 'pending']),
	);
	const submittedAt = Date.now();
	prod.tasks = recorded.slice(0, DOCUMENTS).map((r) => r.task_id);
	const forgotten = recorded[DOCUMENTS].task_id;
	const allIds = [...prod.tasks, forgotten];

	// n8n goes down before the tasks finish; every delivery fails all its attempts
	await stopN8n();
	const stopS = (Date.now() - submittedAt) / 1000;
	assert.ok(
		stopS < OUTAGE_PROCESSING_MS / 1000,
		'n8n stopped too late: raise OUTAGE_PROCESSING_MS',
	);
	let failed = [];
	await waitFor(
		() => `every delivery to fail (${failed.length} of ${allIds.length} failed)`,
		async () => {
			failed = (await deliveriesOf(allIds)).filter((d) => d.state === 'failed');
			return failed.length === allIds.length;
		},
		60000,
		500,
	);
	const early = failed.filter((d) => d.attempts !== 4);
	assert.deepEqual(early, [], 'a delivery failed before its last retry');
	await forgetTask(forgotten);
	await emulatorSettings({ processing_ms: PROCESSING_MS, time_scale: 1 });

	// n8n is back: the catch-up finds the pending rows
	await startN8n(N8N_ENV);
	const backAt = Date.now();
	const reached = (calls) => calls.length >= DOCUMENTS;
	await callsUntil('the catch-up to deliver the tasks', allIds, reached, 120000);
	const caughtUpS = (Date.now() - backAt) / 1000;
	// one more catch-up: nothing more arrives, the forgotten task is marked
	await catchUp();
	const calls = await callsOf(allIds);
	// each finished task downstream once, the forgotten one not
	assert.deepEqual(callsPerTask(calls), eachOnce(prod.tasks));
	for (const { body } of calls) {
		const doc = documents[prod.tasks.indexOf(body.task_id)];
		assert.deepEqual(
			[body.customer, body.file_name, body.status],
			[doc.customer, doc.file_name, 'complete'],
		);
		assert.equal(typeof body.result?.invoice_number, 'string');
	}
	assert.deepEqual(await wrongDocuments(calls), [], 'a task made from another document');
	const rows = await rowsByTask();
	for (const id of prod.tasks) assert.equal(rows[id].status, 'done', `row of ${id}`);
	assert.equal(rows[forgotten].status, 'not_found');
	assert.match(String(rows[forgotten].note), /404/);
	t.diagnostic(
		`${failed.length} deliveries failed all 4 attempts; ${DOCUMENTS} caught up in ${caughtUpS.toFixed(1)} s (catch-up every ${CATCH_UP_S} s); 1 not_found`,
	);
});

test('Production: a document the service refused (not_sent) is sent when it is posted again, with no row to delete', async (t) => {
	assert.ok(prod.hookUrl, 'the outage case did not run');
	const [doc] = intakeDocuments(1, 'REFUSED');
	await addFault({ endpoint: 'process_file', status: 422, count: 1 });
	const [first] = await intake(n8nBase(), [doc]).finally(clearFaults);
	assert.deepEqual([first.state, first.status], ['rejected', 'not_sent'], JSON.stringify(first));
	const [again] = await intake(n8nBase(), [doc]);
	assert.equal(again.state, 'accepted', JSON.stringify(again));
	assert.match(String(again.task_id), /^[0-9a-f-]{36}$/);
	const mine = async () => (await sinkCalls()).filter((c) => c.body?.file_name === doc.file_name);
	const reached = async () => (await mine()).length > 0;
	await waitFor('the document to reach the downstream step', reached, 60000);
	await sleep(2000);
	const calls = await mine();
	const rows = (await tableRows(prod.table)).filter((r) => r.document_key === doc.key);
	const figures = `first post ${first.reason}; rows ${rows.map((r) => r.status)}; downstream ${calls.length}`;
	t.diagnostic(figures);
	assert.equal(calls.length, 1, figures);
	assert.equal(rows.map((r) => r.status).join(), 'done', figures);
});

for (const { name, run } of Object.values(promises)) test(`Production: ${name}`, run);
test(`Production: ${intakeKeyNeverStored.name}`, intakeKeyNeverStored.run);

const CRASH_LAYOUT = IS_N8N_1 ? 'scrambled' : 'shipped';
const casesOn = (layout) =>
	Object.entries(cases)
		.filter(([key]) => key !== 'crash' || layout === CRASH_LAYOUT)
		.map(([, c]) => c);

for (const { name, run } of casesOn('shipped')) test(`Production: ${name}`, run);

test('Production, scrambled canvas (every node moved, every fan-out’s targets reversed): a fresh install runs clean (its catch-up runs before the first post with no failed execution; 2.x: the table deleted, the catch-up creates it), and the fan-out cases pass again', async (t) => {
	let tableId;
	if (!state.n8n?.alive) await startN8n(N8N_ENV);
	prod.table ??= IS_N8N_1 ? await createTable() : await findTable();
	// n8n 1.x: the user creates the table; 2.x: a fresh table, as on a new n8n
	if (IS_N8N_1) tableId = prod.table.id;
	else if (prod.table) await deleteTable(prod.table);
	prod.layout = 'scrambled';
	await install('scrambled', tableId);
	await emulatorSettings({ processing_ms: PROCESSING_MS, time_scale: 1 });
	// a fresh install: catch-up runs before the first post, none of them failed
	await catchUp();
	await catchUp();
	const runs = (await executionsOf(PROD.id)).filter((e) => e.startedAt >= prod.installedAt);
	const failed = runs.filter((e) => !['success', 'running', 'new'].includes(e.status));
	t.diagnostic(`before the first post: ${runs.length} runs, ${failed.length} failed`);
	assert.ok(runs.length >= 2, `no catch-up ran before the first post (${runs.length} runs)`);
	assert.deepEqual(
		failed.map((e) => [e.id, e.status]),
		[],
		'a run before the first post failed',
	);
	prod.table = await findTable();
	assert.ok(prod.table, 'the catch-up did not create the table');
	const documents = intakeDocuments(3, 'SCR');
	const answer = await intake(n8nBase(), documents);
	assert.deepEqual(
		answer.map((e) => [e.file_name, e.state]),
		documents.map((d) => [d.file_name, 'accepted']),
	);
	const ids = answer.map((e) => e.task_id);
	await callsUntil('the 3 tasks', ids, (calls) => calls.length >= 3);
	for (const { run } of casesOn('scrambled')) await run(t);
});
