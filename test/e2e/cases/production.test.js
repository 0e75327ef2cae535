'use strict';

/**
 * The production workflow of examples/production.json in a running n8n: its intake claims every
 * document of a post as a Data Table row before sending any, submits them and records each
 * task_id; n8n is down while the service finishes them, so every webhook delivery fails all its
 * retries; once n8n is back, the catch-up finds the pending rows, asks Get Status and hands the
 * finished tasks to the shared tail, which claims each row once (pending → processing), calls the
 * downstream step (the emulator's sink) and marks the row done. A task the service no longer
 * knows is marked not_found; a task still running stays pending. Then retried and simultaneous
 * copies of the deliveries reach the downstream step no second time; a post overlapping another
 * sends nothing twice and both answers tell the truth; another client's tasks are no alert.
 *
 * Then the same workflow with its canvas scrambled (every node moved, every fan-out's targets
 * reversed top to bottom; lib/production.js, scrambled()) replaces it, on a fresh Data Table
 * (n8n 2.x): its first post creates the table, and the cases that fan out (overlapping posts,
 * another client, tasks delivered before their row) run again on it with the same checks. The
 * crash runs once per version: on the canvas as shipped on 2.x, on the scrambled canvas on 1.x.
 * The cases that do not fan out (outage, copies, downstream down) are not repeated there.
 *
 * Self-contained: stops the suite's n8n if one runs, imports and publishes the workflow, and
 * starts n8n again (left running for the suite's teardown).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { sleep } = require('../../../harness/fixtures.js');
const {
	n8nCliOk,
	startN8n,
	stopN8n,
	waitFor,
	waitPublished,
	IS_N8N_1,
	rest,
} = require('../../../harness/n8n.js');
const {
	addFault,
	clearFaults,
	emulatorTasks,
	registeredWebhooks,
	waitWebhookLive,
} = require('../lib/emulator-client.js');
const { post, registrationOf } = require('../lib/deliveries.js');
const {
	PROD,
	TRIGGER,
	productionWorkflow,
	writeWorkflows,
	completionWebhookId,
	createTable,
	deleteTable,
	findTable,
	tableRows,
	sinkCalls,
	callsPerTask,
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
	deliveriesOf,
	rowsByTask,
	alerts,
	cases,
} = require('../lib/production-cases.js');
const { promises } = require('../lib/production-promises.js');
const { useSuite } = require('../lib/setup.js');
const { taskCompletedBody } = require('../../../emulator/lib/deliveries.js');
const state = require('../../../harness/state.js');

useSuite();

const DOCUMENTS = 20;
/** Rows in processing or sending longer than this are reported (0.2 min: 12 s). */
const STUCK_MINUTES = 0.2;
/** Long enough that n8n is surely down when the tasks finish. */
const OUTAGE_PROCESSING_MS = 12000;

/**
 * Imports the workflow in `layout` ('shipped' or 'scrambled') with n8n stopped (the CLI writes the
 * database), publishes it (n8n 1.x: the Active switch, as the editor turns it on) and starts n8n;
 * then waits for the Completion trigger's registration and keeps its URL in `prod.hookUrl`.
 */
async function install(layout, tableId) {
	await stopN8n();
	const dir = writeWorkflows(
		[
			productionWorkflow({
				layout,
				sinkUrl: `${state.emulatorUrl}/_emulator/sink/crm`,
				catchUpSeconds: CATCH_UP_S,
				pendingMinutes: 0.1,
				stuckMinutes: STUCK_MINUTES,
				tableId,
			}),
		],
		`production-workflows-${layout}`,
	);
	await n8nCliOk(['import:workflow', '--separate', `--input=${dir}`]);
	if (!IS_N8N_1) await n8nCliOk(['publish:workflow', `--id=${PROD.id}`]);
	await startN8n(N8N_ENV);
	if (IS_N8N_1) {
		// as n8n 1.x's editor does when its Active switch is turned on (docs/production.md, n8n 1.x):
		// one PATCH with active and the version the editor shows; n8n refuses what it cannot activate
		const { versionId } = await rest('GET', `/workflows/${PROD.id}`);
		const activated = await rest('PATCH', `/workflows/${PROD.id}`, { active: true, versionId });
		assert.equal(activated.active, true, 'the editor’s activation call did not activate');
	}
	await waitPublished(PROD.id);
	const webhookId = completionWebhookId();
	const hook = await waitFor('the Completion trigger to register its webhook', async () =>
		(await registeredWebhooks()).find((w) => w.url.includes(webhookId)),
	);
	prod.hookUrl = hook.url;
	await waitWebhookLive(prod.hookUrl);
}

test('Production: an outage longer than the service’s retries loses nothing; the catch-up delivers each task once, with its context', async (t) => {
	// n8n 1.x (examples/n8n1): the table comes first, its ID goes into the workflows
	let tableId;
	if (IS_N8N_1) {
		await startN8n(N8N_ENV);
		tableId = (await createTable()).id;
	}
	await install('shipped', tableId);
	prod.table = await createTable();

	// Intake: DOCUMENTS + 1 documents (the last one the service will forget)
	await emulatorSettings({ processing_ms: OUTAGE_PROCESSING_MS, time_scale: 0.05 });
	const documents = intakeDocuments(DOCUMENTS + 1, 'OUT');
	const recorded = await intake(n8nBase(), documents);
	assert.equal(recorded.length, DOCUMENTS + 1, `Intake answered ${recorded.length} entries`);
	for (const [i, entry] of recorded.entries()) {
		assert.equal(entry.state, 'accepted', JSON.stringify(entry));
		assert.equal(entry.status, 'pending');
		assert.equal(entry.file_name, documents[i].file_name);
	}
	const submittedAt = Date.now();
	prod.tasks = recorded.slice(0, DOCUMENTS).map((r) => r.task_id);
	prod.forgotten = recorded[DOCUMENTS].task_id;

	// n8n goes down before the tasks finish; every delivery fails all its attempts
	await stopN8n();
	assert.ok(
		Date.now() - submittedAt < OUTAGE_PROCESSING_MS,
		'n8n took longer to stop than the tasks to finish; raise OUTAGE_PROCESSING_MS',
	);
	const allIds = [...prod.tasks, prod.forgotten];
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
	assert.ok(
		failed.every((d) => d.attempts === 4),
		'a delivery failed before its last retry',
	);
	// the service no longer knows one of them
	await forgetTask(prod.forgotten);
	await emulatorSettings({ processing_ms: PROCESSING_MS, time_scale: 1 });

	// n8n is back: the catch-up finds the pending rows
	await startN8n(N8N_ENV);
	const backAt = Date.now();
	let calls = [];
	await waitFor(
		() => `the catch-up to deliver ${DOCUMENTS} tasks (${calls.length} so far)`,
		async () => {
			calls = (await sinkCalls()).filter((c) => allIds.includes(c.body?.task_id));
			return calls.length >= DOCUMENTS;
		},
		120000,
		250,
	);
	const caughtUpS = (Date.now() - backAt) / 1000;
	// one more catch-up interval: nothing more arrives, the forgotten task is marked
	await sleep((CATCH_UP_S + 2) * 1000);
	calls = (await sinkCalls()).filter((c) => allIds.includes(c.body?.task_id));
	const perTask = callsPerTask(calls);
	const copies = Object.values(perTask).reduce((sum, n) => sum + n - 1, 0);
	assert.deepEqual(
		Object.keys(perTask).sort(),
		[...prod.tasks].sort(),
		'each finished task reaches the downstream step, the forgotten one does not',
	);
	assert.equal(copies, 0, `copies reached the downstream step: ${JSON.stringify(perTask)}`);
	for (const call of calls) {
		const doc = documents[prod.tasks.indexOf(call.body.task_id)];
		assert.equal(call.body.customer, doc.customer, 'the downstream step got the wrong context');
		assert.equal(call.body.file_name, doc.file_name);
		assert.equal(call.body.status, 'complete');
		assert.equal(typeof call.body.result?.invoice_number, 'string');
	}
	assert.deepEqual(
		await wrongDocuments(calls),
		[],
		'a task was made from another document than its row names',
	);
	const rows = await rowsByTask();
	for (const id of prod.tasks)
		assert.equal(rows[id].status, 'done', `row of ${id}: ${rows[id].status}`);
	assert.equal(rows[prod.forgotten].status, 'not_found');
	assert.match(String(rows[prod.forgotten].note), /404/);
	t.diagnostic(
		`${DOCUMENTS + 1} submitted; ${failed.length} deliveries failed all 4 attempts; ${DOCUMENTS} caught up in ${caughtUpS.toFixed(1)} s after n8n was ready (catch-up every ${CATCH_UP_S} s); 1 marked not_found; copies downstream: ${copies}`,
	);
});

test('Production: retried and simultaneous copies of deliveries reach the downstream step no second time; a running task stays pending', async (t) => {
	assert.ok(prod.hookUrl && prod.tasks.length, 'the outage case did not run');
	const { nodeData } = await registrationOf(PROD.id, TRIGGER);
	const secret = nodeData.registration?.secret;
	assert.match(String(secret), /^whsec_/);

	// copies of the handled tasks' deliveries: twice 1 s apart, and three at once
	const tasks = (await emulatorTasks()).filter((x) => prod.tasks.includes(x.task_id));
	const answers = [];
	await Promise.all(
		tasks.map(async (task) => {
			const body = taskCompletedBody(task);
			answers.push(await post(prod.hookUrl, body, secret));
			await sleep(1000);
			answers.push(await post(prod.hookUrl, body, secret));
			answers.push(...(await Promise.all([1, 2, 3].map(() => post(prod.hookUrl, body, secret)))));
		}),
	);
	assert.ok(
		answers.every((s) => s === 200),
		`answers ${JSON.stringify(answers)}`,
	);

	// new tasks: copies sent at once before the service's own delivery, which then comes as a retry
	await emulatorSettings({ processing_ms: 20000 });
	const fresh = await intake(n8nBase(), intakeDocuments(5, 'NEW'));
	await emulatorSettings({ processing_ms: PROCESSING_MS });
	const freshIds = fresh.map((r) => r.task_id);
	const early = freshIds.slice(0, 4);
	const running = freshIds[4];
	await Promise.all(
		early.map(async (taskId) => {
			const body = taskCompletedBody({
				task_id: taskId,
				status: 'complete',
				result: { invoice_number: `EARLY-${taskId.slice(0, 8)}` },
				project_id: tasks[0].project_id,
				document_type: 'invoice',
				updated_at: new Date().toISOString(),
			});
			await Promise.all([1, 2, 3].map(() => post(prod.hookUrl, body, secret)));
			await sleep(1000);
			await post(prod.hookUrl, body, secret);
		}),
	);
	// a catch-up interval passes while the last task still runs: its row stays pending
	await sleep((CATCH_UP_S + 2) * 1000);
	const rows = await rowsByTask();
	assert.equal(
		rows[running].status,
		'pending',
		`the running task's row is ${rows[running].status}`,
	);
	// the service finishes all five and delivers them (the early four for a second time)
	const ids = [...prod.tasks, ...freshIds];
	let calls = [];
	await waitFor(
		() => `the running task to be delivered (${calls.length} calls)`,
		async () => {
			calls = (await sinkCalls()).filter((c) => ids.includes(c.body?.task_id));
			return calls.some((c) => c.body.task_id === running);
		},
		60000,
		500,
	);
	await waitFor('the deliveries of the new tasks to end', async () =>
		(await deliveriesOf(freshIds)).every((d) => d.state !== 'pending') ? true : undefined,
	);
	await sleep(3000);
	calls = (await sinkCalls()).filter((c) => ids.includes(c.body?.task_id));
	const perTask = callsPerTask(calls);
	const twice = Object.entries(perTask).filter(([, n]) => n > 1);
	assert.deepEqual(twice, [], `copies reached the downstream step: ${JSON.stringify(twice)}`);
	assert.deepEqual(
		Object.keys(perTask).sort(),
		[...ids].sort(),
		'a task never reached the downstream step',
	);
	const after = await rowsByTask();
	for (const id of ids) assert.equal(after[id].status, 'done', `row of ${id}: ${after[id].status}`);
	t.diagnostic(
		`${answers.length} copies of ${tasks.length} handled deliveries and ${early.length * 4} early copies of ${early.length} new ones: each of ${ids.length} tasks downstream once; the running task stayed pending for a catch-up run`,
	);
});

test('Production: a document the service refused (not_sent) is sent when it is posted again, with no row to delete', async (t) => {
	assert.ok(prod.hookUrl, 'the outage case did not run');
	const [doc] = intakeDocuments(1, 'REFUSED').map((d) => ({ key: d.file_name, ...d }));
	await addFault({ endpoint: 'process_file', status: 422, count: 1 });
	let first;
	try {
		[first] = await intake(n8nBase(), [doc]);
	} finally {
		await clearFaults();
	}
	assert.equal(first.state, 'rejected', JSON.stringify(first));
	assert.equal(first.status, 'not_sent', JSON.stringify(first));
	const [again] = await intake(n8nBase(), [doc]);
	assert.equal(again.state, 'accepted', JSON.stringify(again));
	assert.match(String(again.task_id), /^[0-9a-f-]{36}$/);
	let calls = [];
	await waitFor(
		'the document to reach the downstream step',
		async () => {
			calls = (await sinkCalls()).filter((c) => c.body?.file_name === doc.file_name);
			return calls.length > 0;
		},
		60000,
		500,
	);
	await sleep(2000);
	calls = (await sinkCalls()).filter((c) => c.body?.file_name === doc.file_name);
	const rows = (await tableRows(prod.table)).filter((r) => r.document_key === doc.key);
	const figures = `first post: ${first.state} / ${first.status} (${first.reason}); posted again: ${again.state} / ${again.status}; rows of the document ${rows.length} (${rows.map((r) => r.status)}); downstream ${calls.length}`;
	t.diagnostic(figures);
	assert.equal(calls.length, 1, figures);
	assert.deepEqual(
		rows.map((r) => r.status),
		['done'],
		figures,
	);
});

// The promises docs/production.md prints, one case each, on the canvas as shipped.
for (const { name, run } of Object.values(promises)) test(`Production: ${name}`, run);

// The crash case (the longest, about 100 s) runs once per version: on the canvas as shipped on
// n8n 2.x, on the scrambled canvas on 1.x. The other fan-out cases run on both canvases.
const CRASH_LAYOUT = IS_N8N_1 ? 'scrambled' : 'shipped';
const casesOn = (layout) =>
	Object.entries(cases)
		.filter(([key]) => key !== 'crash' || layout === CRASH_LAYOUT)
		.map(([, c]) => c);

for (const { name, run } of casesOn('shipped')) test(`Production: ${name}`, run);

test('Production, scrambled canvas: the workflow with every node moved and every fan-out’s targets reversed replaces it; on a fresh table its first post creates the table and is answered', async (t) => {
	let tableId;
	if (IS_N8N_1) {
		// n8n 1.x: the user creates the table (its Data table node has no table operations)
		if (!prod.table) {
			await startN8n(N8N_ENV);
			prod.table = await createTable();
		}
		tableId = prod.table.id;
	} else {
		// n8n 2.x: a fresh table, as on a new n8n; the first post must create it
		if (!prod.table) {
			await startN8n(N8N_ENV);
			prod.table = await findTable();
		}
		if (prod.table) await deleteTable(prod.table);
	}
	prod.layout = 'scrambled';
	await install('scrambled', tableId);
	await emulatorSettings({ processing_ms: PROCESSING_MS, time_scale: 1 });
	const documents = intakeDocuments(3, 'SCR');
	const answer = await intake(n8nBase(), documents);
	const figures = `first post on the scrambled canvas: ${JSON.stringify(answer.map((e) => e.state))}`;
	t.diagnostic(figures);
	assert.deepEqual(
		answer.map((e) => [e.file_name, e.state]),
		documents.map((d) => [d.file_name, 'accepted']),
		figures,
	);
	prod.table = await findTable();
	assert.ok(prod.table, 'the first post did not create the table');
	let calls = [];
	await waitFor(
		'the 3 tasks to reach the downstream step',
		async () => {
			calls = (await sinkCalls()).filter((c) => answer.some((e) => e.task_id === c.body?.task_id));
			return calls.length >= 3;
		},
		60000,
		500,
	);
});

for (const { name, run } of casesOn('scrambled'))
	test(`Production, scrambled canvas: ${name}`, async (t) => {
		assert.ok(prod.hookUrl && prod.table, 'the scrambled canvas was not installed');
		await run(t);
	});
