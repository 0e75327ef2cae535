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
 * Self-contained: stops the suite's n8n if one runs, imports and publishes the workflow, and
 * starts n8n again (left running for the suite's teardown).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { FILES, sleep } = require('../../../harness/fixtures.js');
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
	submitDirect,
	waitWebhookLive,
} = require('../lib/emulator-client.js');
const { post, registrationOf } = require('../lib/deliveries.js');
const {
	ALERTS,
	PROD,
	TRIGGER,
	productionWorkflow,
	writeWorkflows,
	completionWebhookId,
	createTable,
	tableRows,
	sinkCalls,
	callsPerTask,
	emulatorSettings,
	forgetTask,
	intakeDocuments,
	intake,
	wrongDocuments,
	DOCUMENTS,
	CATCH_UP_S,
	STUCK_MINUTES,
	OUTAGE_PROCESSING_MS,
	PROCESSING_MS,
	prod,
	N8N_ENV,
	n8nBase,
	deliveriesOf,
	rowsByTask,
} = require('../lib/production.js');
const { useSuite } = require('../lib/setup.js');
const { taskCompletedBody } = require('../../../emulator/lib/deliveries.js');
const state = require('../../../harness/state.js');

useSuite();

test('Production: an outage longer than the service’s retries loses nothing; the catch-up delivers each task once, with its context', async (t) => {
	// n8n 1.x (examples/n8n1): the table comes first, its ID goes into the workflows
	let tableId;
	if (IS_N8N_1) {
		await startN8n(N8N_ENV);
		tableId = (await createTable()).id;
	}
	// import and publish the workflow (n8n stopped: the CLI writes the database)
	await stopN8n();
	const dir = writeWorkflows([
		productionWorkflow({
			sinkUrl: `${state.emulatorUrl}/_emulator/sink/crm`,
			catchUpSeconds: CATCH_UP_S,
			pendingMinutes: 0.1,
			stuckMinutes: STUCK_MINUTES,
			tableId,
		}),
	]);
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
	prod.table = await createTable();
	const webhookId = completionWebhookId();
	const hook = await waitFor('the Completion trigger to register its webhook', async () =>
		(await registeredWebhooks()).find((w) => w.url.includes(webhookId)),
	);
	prod.hookUrl = hook.url;
	await waitWebhookLive(prod.hookUrl);

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

/** The calls the example's "Tell Someone" nodes made (the emulator's sink named alerts). */
const alerts = () => sinkCalls(ALERTS);

test('Production: the downstream system down: the rows end stuck and someone is told what to do', async (t) => {
	assert.ok(prod.hookUrl, 'the outage case did not run');
	await emulatorSettings({ processing_ms: PROCESSING_MS, sink_down: ['crm'] });
	let ids = [];
	try {
		ids = (await intake(n8nBase(), intakeDocuments(5, 'DOWN'))).map((r) => r.task_id);
		let rows = {};
		await waitFor(
			() => `the rows to be reported stuck (${JSON.stringify(ids.map((id) => rows[id]?.status))})`,
			async () => {
				rows = await rowsByTask();
				return ids.every((id) => rows[id]?.status === 'stuck');
			},
			120000,
			1000,
		);
	} finally {
		await emulatorSettings({ sink_down: [] });
	}
	const told = (await alerts()).filter((c) => ids.includes(c.body?.task_id));
	assert.deepEqual(
		told.map((c) => c.body.task_id).sort(),
		[...ids].sort(),
		'each stuck row is reported once',
	);
	for (const call of told) {
		assert.equal(call.body.status, 'stuck');
		assert.match(call.body.what_to_do, /set the row’s status back to pending/);
	}
	const downstream = (await sinkCalls()).filter((c) => ids.includes(c.body?.task_id));
	assert.equal(downstream.length, 0);
	t.diagnostic(
		`${ids.length} tasks; downstream down: ${ids.length} rows stuck, ${told.length} alerts, 0 downstream calls`,
	);
});

test('Production: the same 20 documents posted again while the first post is still sending: 20 tasks, each document downstream once, and both answers tell the truth', async (t) => {
	assert.ok(prod.hookUrl, 'the outage case did not run');
	const COUNT = 20;
	const before = new Set((await emulatorTasks()).map((task) => task.task_id));
	const newTasks = async () => (await emulatorTasks()).filter((task) => !before.has(task.task_id));
	await emulatorSettings({ processing_ms: PROCESSING_MS });
	await addFault({ endpoint: 'process_file', delay_ms: 300, count: 1000 });
	const documents = intakeDocuments(COUNT, 'OVL').map((d) => ({ key: d.file_name, ...d }));
	let first;
	let second;
	let tasksAtRepost;
	try {
		const firstPost = intake(n8nBase(), documents);
		await waitFor(
			'the first post to be sending',
			async () => (await newTasks()).length >= 5,
			60000,
			50,
		);
		tasksAtRepost = (await newTasks()).length;
		second = await intake(n8nBase(), documents);
		first = await firstPost;
	} finally {
		await clearFaults();
	}
	let tasks = [];
	let calls = [];
	const reached = () => new Set(calls.map((c) => c.body.file_name)).size;
	await waitFor(
		() =>
			`every document to reach the downstream step (${tasks.length} tasks, ${reached()} documents)`,
		async () => {
			tasks = await newTasks();
			calls = (await sinkCalls()).filter((c) => tasks.some((x) => x.task_id === c.body?.task_id));
			return reached() === COUNT && tasks.every((x) => x.status === 'complete');
		},
		90000,
		1000,
	).catch(() => {});
	// the deliveries of the last tasks, and a catch-up run
	await sleep((CATCH_UP_S + 2) * 1000);
	tasks = await newTasks();
	calls = (await sinkCalls()).filter((c) => tasks.some((x) => x.task_id === c.body?.task_id));
	const perDocument = {};
	for (const c of calls) perDocument[c.body.file_name] = (perDocument[c.body.file_name] ?? 0) + 1;
	const twice = Object.entries(perDocument).filter(([, n]) => n > 1);
	const summary = (answer) => {
		const counts = {};
		for (const e of answer) counts[e.state ?? e.status] = (counts[e.state ?? e.status] ?? 0) + 1;
		return `${answer.length} entries ${JSON.stringify(counts)}`;
	};
	const figures = `${COUNT} documents; ${tasksAtRepost} tasks at the service when the same batch was posted again; tasks created ${tasks.length}; documents downstream twice ${twice.length}; first answer: ${summary(first)}; second answer: ${summary(second)}`;
	t.diagnostic(figures);
	t.diagnostic(
		`first answer: ${JSON.stringify(first.slice(0, 2))}; second answer: ${JSON.stringify(second.slice(0, 2))}`,
	);
	assert.equal(tasks.length, COUNT, figures);
	assert.deepEqual(twice, [], figures);
	assert.equal(Object.keys(perDocument).length, COUNT, figures);
	// the answer contract: one entry per document in each answer; each document accepted once
	for (const answer of [first, second]) {
		assert.equal(answer.length, COUNT, `an answer has ${answer.length} entries: ${figures}`);
		assert.deepEqual(
			answer.map((e) => e.key),
			documents.map((d) => d.key),
		);
		for (const e of answer)
			assert.ok(['accepted', 'already_known'].includes(e.state), JSON.stringify(e));
	}
	for (const [i, doc] of documents.entries()) {
		const states = [first[i].state, second[i].state];
		assert.equal(states.filter((s) => s === 'accepted').length, 1, `${doc.key}: ${states}`);
		const accepted = first[i].state === 'accepted' ? first[i] : second[i];
		assert.match(String(accepted.task_id), /^[0-9a-f-]{36}$/, JSON.stringify(accepted));
	}
});

test('Production: 5 tasks another client sends to the same project are no alert and leave the rows as they are', async (t) => {
	assert.ok(prod.hookUrl, 'the outage case did not run');
	const rowsBefore = await tableRows(prod.table);
	const alertsBefore = (await alerts()).length;
	const ids = [];
	for (let i = 0; i < 5; i++) ids.push(await submitDirect(FILES.a));
	await waitFor(
		'the service to deliver the 5 tasks',
		async () =>
			(await deliveriesOf(ids)).filter((d) => d.state === 'delivered').length === ids.length
				? true
				: undefined,
		60000,
	);
	// a catch-up run passes too (an unknown task is settled there)
	await sleep((CATCH_UP_S + 2) * 1000);
	const rowsAfter = await tableRows(prod.table);
	const told = (await alerts()).slice(alertsBefore);
	const newRows = rowsAfter.filter((r) => !rowsBefore.some((b) => b.id === r.id));
	const changed = rowsAfter.filter((r) => {
		const b = rowsBefore.find((x) => x.id === r.id);
		return b && b.status !== r.status;
	});
	const figures = `5 tasks of another client delivered; alerts ${told.length}; new rows ${newRows.length} (${newRows.map((r) => r.status).join(', ')}); rows changed ${changed.length}`;
	t.diagnostic(figures);
	assert.equal(told.length, 0, figures);
	assert.equal(newRows.length, 0, figures);
	assert.equal(changed.length, 0, figures);
});

test('Production: tasks delivered before Intake records their task_id are settled by the catch-up: delivered once from their rows, no row left unknown, no alert', async (t) => {
	assert.ok(prod.hookUrl, 'the outage case did not run');
	await emulatorSettings({ processing_ms: 200 });
	const alertsBefore = (await alerts()).length;
	// the first document downloads slowly: Submit waits for it while the other four tasks end and
	// are delivered, before Record the Task ID has run
	const documents = intakeDocuments(5, 'FAST');
	documents[0].url += '?delay_ms=4000';
	const unknownSeen = new Set();
	const watch = setInterval(async () => {
		for (const r of await tableRows(prod.table).catch(() => []))
			if (r.status === 'unknown_task') unknownSeen.add(r.task_id);
	}, 300);
	let answer;
	try {
		answer = await intake(n8nBase(), documents);
	} finally {
		await emulatorSettings({ processing_ms: PROCESSING_MS });
	}
	const ids = answer.map((e) => e.task_id);
	let calls = [];
	let rows = [];
	await waitFor(
		() =>
			`the tasks to be delivered and the rows settled (${calls.length} calls; ${rows.map((r) => r.status).join(', ')})`,
		async () => {
			calls = (await sinkCalls()).filter((c) => ids.includes(c.body?.task_id));
			rows = (await tableRows(prod.table)).filter((r) => ids.includes(r.task_id));
			return (
				ids.every((id) => calls.some((c) => c.body.task_id === id)) &&
				rows.every((r) => r.status === 'done')
			);
		},
		120000,
		1000,
	);
	clearInterval(watch);
	const told = (await alerts()).slice(alertsBefore).filter((c) => ids.includes(c.body?.task_id));
	const perTask = callsPerTask(calls);
	const figures = `5 documents, the first downloaded in 4 s; tasks recorded as unknown_task before Intake recorded them: ${unknownSeen.size}; rows now ${rows.length} (${[...new Set(rows.map((r) => r.status))].join(', ')}); downstream ${calls.length}; alerts ${told.length}`;
	t.diagnostic(figures);
	assert.ok(unknownSeen.size >= 1, `no delivery came before its row was recorded: ${figures}`);
	assert.ok(
		Object.values(perTask).every((n) => n === 1),
		figures,
	);
	assert.equal(rows.length, ids.length, `rows left besides the documents' own: ${figures}`);
	assert.equal(told.length, 0, figures);
});
