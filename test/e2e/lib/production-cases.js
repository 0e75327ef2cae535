'use strict';

/**
 * The production cases that fan out (overlapping posts, another client's tasks, tasks delivered
 * before their row, a crash while sending), run by cases/production.test.js on the canvas as
 * shipped and again on a scrambled one; and the state and helpers all production cases share.
 */

const assert = require('node:assert/strict');

const { FILES, sleep } = require('../../../harness/fixtures.js');
const { fileDigest } = require('../../../emulator/lib/files.js');
const { startN8n, killN8n, waitFor, IS_N8N_1 } = require('../../../harness/n8n.js');
const {
	addFault,
	clearFaults,
	emulatorAdmin,
	emulatorTasks,
	submitDirect,
	waitWebhookLive,
} = require('./emulator-client.js');
const {
	ALERTS,
	tableRows,
	updateRow,
	deleteRow,
	sinkCalls,
	countBy,
	eachOnce,
	callsPerTask,
	emulatorSettings,
	intakeDocuments,
	intake,
	taskSha,
	wrongDocuments,
} = require('./production.js');
const state = require('../../../harness/state.js');

const CATCH_UP_S = 10;
const PROCESSING_MS = Number(process.env.E2E_PROCESSING_MS || 1500);

/**
 * n8n 1.x's SQLite without a read pool fails concurrent Data Table transactions ("no such
 * savepoint"): docs/production.md tells 1.x users to set DB_SQLITE_POOL_SIZE.
 */
const N8N_ENV = IS_N8N_1 ? { DB_SQLITE_POOL_SIZE: '2' } : {};

/** The installed workflow: its Data Table, the trigger's URL, the canvas the cases run on. */
const prod = { table: undefined, hookUrl: undefined, tasks: [], layout: 'shipped' };

/** The documents' tag: the table keeps the rows of the same case on the other canvas. */
const tag = (name) => (prod.layout === 'scrambled' ? `S${name}` : name);
const n8nBase = () => `http://127.0.0.1:${state.n8nPort}`;
/** A catch-up run passes. */
const catchUp = () => sleep((CATCH_UP_S + 2) * 1000);

/** The deliveries of `taskIds` to the trigger's registration. */
async function deliveriesOf(taskIds) {
	const { deliveries } = await emulatorAdmin('GET', '/deliveries');
	return deliveries.filter((d) => d.url === prod.hookUrl && taskIds.includes(d.task_id));
}

const rowsByTask = async () =>
	Object.fromEntries((await tableRows(prod.table)).map((r) => [r.task_id, r]));
/** The calls of the example's "Tell Someone" nodes. */
const alerts = () => sinkCalls(ALERTS);
/** The downstream calls of the tasks whose ids `ids` holds (an array). */
const callsOf = async (ids) => (await sinkCalls()).filter((c) => ids.includes(c.body?.task_id));

/** Lists the tasks the service created since this call. */
async function tasksSince() {
	const before = new Set((await emulatorTasks()).map((task) => task.task_id));
	return async () => (await emulatorTasks()).filter((task) => !before.has(task.task_id));
}

/** The same 20 documents posted again while the first post is still sending. */
async function overlap(t) {
	const COUNT = 20;
	const newTasks = await tasksSince();
	await emulatorSettings({ processing_ms: PROCESSING_MS });
	await addFault({ endpoint: 'process_file', delay_ms: 300, count: 1000 });
	const documents = intakeDocuments(COUNT, tag('OVL'));
	let first;
	let second;
	let tasksAtRepost;
	try {
		const firstPost = intake(n8nBase(), documents);
		const sending = async () => (await newTasks()).length >= 5;
		await waitFor('the first post to be sending', sending, 60000, 50);
		tasksAtRepost = (await newTasks()).length;
		second = await intake(n8nBase(), documents);
		first = await firstPost;
	} finally {
		await clearFaults();
	}
	let tasks = [];
	let calls = [];
	const settled = async () => {
		tasks = await newTasks();
		calls = await callsOf(tasks.map((x) => x.task_id));
		const reached = new Set(calls.map((c) => c.body.file_name)).size;
		return reached === COUNT && tasks.every((x) => x.status === 'complete');
	};
	await waitFor('every document to reach the downstream step', settled, 90000, 1000).catch(
		() => {},
	);
	await catchUp();
	await settled();
	const perDocument = countBy(calls, (c) => c.body.file_name);
	const summary = (answer) => JSON.stringify(countBy(answer, (e) => e.state ?? e.status));
	const figures = `${COUNT} documents; ${tasksAtRepost} tasks when posted again; tasks ${tasks.length}; downstream ${JSON.stringify(countBy(Object.values(perDocument), String))} (times: documents); answers ${summary(first)} and ${summary(second)}`;
	t.diagnostic(figures);
	assert.equal(tasks.length, COUNT, figures);
	assert.deepEqual(perDocument, eachOnce(documents.map((d) => d.file_name)), figures);
	// each answer: one entry per document, in order; each document accepted by exactly one post
	for (const answer of [first, second])
		assert.deepEqual(
			answer.map((e) => [e.key, ['accepted', 'already_known'].includes(e.state)]),
			documents.map((d) => [d.key, true]),
		);
	// each document accepted by one post at most: none when a post ran past stuck_minutes (12 s
	// in the suite) and the catch-up sent its claimed row (once, as the counts above show)
	let byCatchUp = 0;
	for (const [i, doc] of documents.entries()) {
		const accepted = [first[i], second[i]].filter((e) => e.state === 'accepted');
		assert.ok(accepted.length <= 1, `${doc.key}: ${first[i].state}, ${second[i].state}`);
		if (accepted.length === 0) byCatchUp++;
		else assert.match(String(accepted[0].task_id), /^[0-9a-f-]{36}$/, JSON.stringify(accepted[0]));
	}
	t.diagnostic(`sent by the catch-up (no post accepted them): ${byCatchUp}`);
}

/** Tasks another client sends to the same project. */
async function anotherClient(t) {
	const rowsBefore = await tableRows(prod.table);
	const alertsBefore = (await alerts()).length;
	const ids = [];
	for (let i = 0; i < 5; i++) ids.push(await submitDirect(FILES.a));
	const delivered = async () =>
		(await deliveriesOf(ids)).filter((d) => d.state === 'delivered').length === ids.length;
	await waitFor('the service to deliver the 5 tasks', delivered, 60000);
	await catchUp(); // an unknown task is settled there
	const rowsAfter = await tableRows(prod.table);
	const told = (await alerts()).slice(alertsBefore);
	const statusBefore = Object.fromEntries(rowsBefore.map((r) => [r.id, r.status]));
	const newRows = rowsAfter.filter((r) => !(r.id in statusBefore));
	const changed = rowsAfter.filter((r) => r.id in statusBefore && statusBefore[r.id] !== r.status);
	const figures = `alerts ${told.length}; new rows ${newRows.length} (${newRows.map((r) => r.status)}); rows changed ${changed.length}`;
	t.diagnostic(figures);
	assert.deepEqual([told.length, newRows.length, changed.length], [0, 0, 0], figures);
}

/** Tasks delivered before Intake recorded their task_id. */
async function fastTasks(t) {
	await emulatorSettings({ processing_ms: 200 });
	const alertsBefore = (await alerts()).length;
	// the first document downloads slowly: Submit waits for it while the other four tasks end and
	// are delivered, before Record the Task ID has run
	const documents = intakeDocuments(5, tag('FAST'));
	documents[0].url += '?delay_ms=4000';
	const unknownSeen = new Set();
	const watch = setInterval(async () => {
		for (const r of await tableRows(prod.table).catch(() => []))
			if (r.status === 'unknown_task') unknownSeen.add(r.task_id);
	}, 300);
	let ids;
	try {
		ids = (await intake(n8nBase(), documents)).map((e) => e.task_id);
	} finally {
		await emulatorSettings({ processing_ms: PROCESSING_MS });
	}
	let calls = [];
	let rows = [];
	await waitFor(
		() =>
			`the tasks delivered and the rows settled (${calls.length} calls; ${rows.map((r) => r.status)})`,
		async () => {
			calls = await callsOf(ids);
			rows = (await tableRows(prod.table)).filter((r) => ids.includes(r.task_id));
			const reached = new Set(calls.map((c) => c.body.task_id));
			return ids.every((id) => reached.has(id)) && rows.every((r) => r.status === 'done');
		},
		120000,
		1000,
	).finally(() => clearInterval(watch));
	const told = (await alerts()).slice(alertsBefore).filter((c) => ids.includes(c.body?.task_id));
	const figures = `recorded as unknown_task before Intake recorded them: ${unknownSeen.size}; rows ${rows.length} (${[...new Set(rows.map((r) => r.status))]}); downstream ${calls.length}; alerts ${told.length}`;
	t.diagnostic(figures);
	assert.ok(unknownSeen.size >= 1, `no delivery came before its row was recorded: ${figures}`);
	assert.deepEqual(callsPerTask(calls), eachOnce(ids), figures);
	assert.equal(rows.length, ids.length, `rows left besides the documents' own: ${figures}`);
	assert.equal(told.length, 0, figures);
}

/** n8n killed while Intake sends 45 documents, the same batch posted again, the remedies applied. */
async function crash(t) {
	const COUNT = 45;
	const prefix = `${tag('CRASH')}-`;
	const newTasks = await tasksSince();
	const crashRows = async () =>
		(await tableRows(prod.table)).filter((r) => String(r.file_name).startsWith(prefix));
	// the tasks end after n8n is back, so that their deliveries find it
	await emulatorSettings({ processing_ms: 30000 });
	await addFault({ endpoint: 'process_file', delay_ms: 300, count: 1000 });
	const documents = intakeDocuments(COUNT, tag('CRASH'));
	// the third batch's third document downloads for 6 s: n8n is killed before the service has a
	// task for it, so its row ends possibly_sent with no task anywhere (the remedy's last step)
	const NEVER_ARRIVED = 12;
	documents[NEVER_ARRIVED].url += '?delay_ms=6000';
	const firstCall = intake(n8nBase(), documents).then(
		() => 'answered',
		(error) => `failed: ${error.message}`,
	);
	await waitFor('Intake to be sending', async () => (await newTasks()).length >= 12, 60000, 100);
	await killN8n();
	const atCrash = (await newTasks()).length;
	const caller = await firstCall;
	await clearFaults();
	await emulatorSettings({ processing_ms: PROCESSING_MS });
	await startN8n(N8N_ENV);
	await waitWebhookLive(prod.hookUrl);

	// the caller saw no answer and sends the same batch again
	const again = await intake(n8nBase(), documents);
	// the emulator serves the same bytes for a name: a task's content names its document
	const files = Object.fromEntries(documents.map((d) => [fileDigest(d.file_name), d.file_name]));
	const documentOf = (task) => files[taskSha(task)];
	let tasks = [];
	let all = [];
	let rows = {};
	let calls = [];
	const delivered = (x) => calls.some((c) => c.body.task_id === x.task_id);
	const settled = async () => {
		tasks = await newTasks();
		all = await tableRows(prod.table);
		rows = Object.fromEntries(all.map((r) => [r.task_id, r]));
		calls = await callsOf(tasks.map((x) => x.task_id));
		const open = all.filter(
			(r) =>
				String(r.file_name).startsWith(prefix) &&
				(!r.status || ['claimed', 'sending'].includes(r.status)),
		);
		return (
			open.length === 0 &&
			all.every((r) => r.status !== 'unknown_task') &&
			tasks.every(
				(x) =>
					!['queued', 'processing'].includes(x.status) &&
					(delivered(x) || rows[x.task_id]?.status === 'unmatched'),
			)
		);
	};
	await waitFor(
		() =>
			`every task delivered or shown (${tasks.length} tasks, ${calls.length} delivered; not yet: ${tasks
				.filter((x) => !delivered(x))
				.map((x) => `${x.task_id.slice(0, 8)} ${x.status} row ${rows[x.task_id]?.status}`)})`,
		settled,
		180000,
		1000,
	);
	await sleep(3000);
	await settled();
	const perTask = callsPerTask(calls);
	const unmatchedTasks = tasks.filter(
		(x) => !perTask[x.task_id] && rows[x.task_id]?.status === 'unmatched',
	);
	const once = tasks.filter((x) => perTask[x.task_id] === 1).length;
	const twice = tasks.filter((x) => perTask[x.task_id] > 1).length;
	const invisible = tasks.length - once - twice - unmatchedTasks.length;
	const tasksPerDocument = countBy(tasks, (x) => documentOf(x) ?? 'stray');
	const twoTasks = Object.keys(tasksPerDocument).filter((name) => tasksPerDocument[name] > 1);
	const possiblySent = all.filter(
		(r) => r.status === 'possibly_sent' && String(r.file_name).startsWith(prefix),
	);
	const reports = async () =>
		(await alerts()).filter(
			(c) =>
				(c.body.status === 'unmatched' && tasks.some((x) => x.task_id === c.body.task_id)) ||
				(c.body.status === 'possibly_sent' && String(c.body.file_name).startsWith(prefix)),
		);
	// the outbox tells at the next catch-up at the latest (in the same run when it is Settings' last branch)
	let told = await reports();
	const unreportedOf = () => [
		...unmatchedTasks
			.filter((x) => !told.some((c) => c.body.task_id === x.task_id))
			.map((x) => `unmatched ${x.task_id}`),
		...possiblySent
			.filter((r) => !told.some((c) => c.body.file_name === r.file_name))
			.map((r) => `possibly_sent ${r.file_name}`),
	];
	await waitFor(
		() => `the reports (${unreportedOf()})`,
		async () => {
			told = await reports();
			return unreportedOf().length === 0;
		},
		(CATCH_UP_S + 5) * 1000,
		1000,
	).catch(() => {});
	const sentAgain = again.filter((e) => e.state === 'accepted').length;
	const figures = `${COUNT} documents; ${atCrash} tasks when n8n was killed (first caller: ${caller}); the batch again sent ${sentAgain} of ${again.length}; tasks ${tasks.length}: delivered once ${once}, twice ${twice}, unmatched rows ${unmatchedTasks.length}, invisible ${invisible}; possibly_sent rows ${possiblySent.length}; documents with two tasks ${twoTasks.length}; alerts ${told.length}`;
	t.diagnostic(figures);
	assert.deepEqual([invisible, twice, twoTasks.length], [0, 0, 0], figures);
	assert.deepEqual(await wrongDocuments(calls), [], 'a task made from another document');
	const perDocument = countBy(calls, (c) => c.body.file_name);
	assert.deepEqual(perDocument, eachOnce(Object.keys(perDocument)), 'a document downstream twice');
	// every unmatched task and possibly sent row is reported (a task delivered before Intake
	// recorded it is reported as unmatched too, then delivered by the catch-up: extra reports pass)
	assert.deepEqual(unreportedOf(), [], 'each unmatched or possibly sent row is reported');

	// the remedy the message gives, on the table as the editor's table view does it: an unmatched
	// task's result names its document; its task_id goes into that document's possibly_sent row,
	// set to pending, and the unmatched row is deleted
	const unmatchedRows = all.filter(
		(r) => r.status === 'unmatched' && tasks.some((x) => x.task_id === r.task_id),
	);
	const remedied = [];
	for (const row of unmatchedRows) {
		const name = documentOf(tasks.find((x) => x.task_id === row.task_id));
		const target = possiblySent.find((r) => r.file_name === name);
		assert.ok(target, `no possibly_sent row for ${name}, the document of unmatched ${row.task_id}`);
		await updateRow(prod.table, target.id, { task_id: row.task_id, status: 'pending' });
		await deleteRow(prod.table, row.id);
		remedied.push(row.task_id);
	}
	await waitFor(
		'the catch-up to deliver the remedied rows',
		async () => {
			const after = await rowsByTask();
			return remedied.every((id) => after[id]?.status === 'done');
		},
		90000,
		1000,
	);
	assert.deepEqual(callsPerTask(await callsOf(remedied)), eachOnce(remedied), 'remedied tasks');
	// a possibly_sent row no unmatched task names: a task of its document in the service's
	// dashboard goes into the row, set to pending; with none, the status is cleared and the
	// catch-up sends it (docs/production.md, Row states)
	const dashboard = await emulatorTasks();
	const remediedFiles = new Set(
		remedied.map((id) => documentOf(tasks.find((x) => x.task_id === id))),
	);
	let fromDashboard = 0;
	let cleared = 0;
	for (const row of possiblySent) {
		if (remediedFiles.has(row.file_name)) continue;
		const task = dashboard.find((x) => documentOf(x) === row.file_name);
		if (task) fromDashboard++;
		else cleared++;
		await updateRow(
			prod.table,
			row.id,
			task ? { task_id: task.task_id, status: 'pending' } : { status: null },
		);
	}
	assert.ok(cleared >= 1, `no possibly_sent row cleared (${documents[NEVER_ARRIVED].file_name})`);
	let open = [];
	await waitFor(
		() => `every CRASH document to be done (${open.map((r) => `${r.file_name} ${r.status}`)})`,
		async () => {
			const mine = await crashRows();
			open = mine.filter((r) => r.status !== 'done');
			return mine.length === COUNT && open.length === 0;
		},
		120000,
		1000,
	);
	await sleep(2000);
	// no document charged twice: one task per document at the service, one downstream call each
	const finalTasks = await newTasks();
	const names = documents.map((d) => d.file_name);
	const finalCalls = await callsOf(finalTasks.map((x) => x.task_id));
	t.diagnostic(
		`remedies: ${remedied.length} unmatched rows, ${fromDashboard} possibly_sent rows given their task from the dashboard, ${cleared} cleared`,
	);
	assert.deepEqual(countBy(finalTasks, documentOf), eachOnce(names), 'tasks per document');
	assert.deepEqual(
		countBy(finalCalls, (c) => c.body.file_name),
		eachOnce(names),
	);
}

module.exports = {
	CATCH_UP_S,
	PROCESSING_MS,
	N8N_ENV,
	prod,
	n8nBase,
	catchUp,
	deliveriesOf,
	rowsByTask,
	alerts,
	callsOf,
	tasksSince,
	cases: {
		overlap: {
			name: 'the same 20 documents posted again while the first post is still sending: 20 tasks, each document downstream once, and both answers tell the truth',
			run: overlap,
		},
		anotherClient: {
			name: '5 tasks another client sends to the same project are no alert and leave the rows as they are',
			run: anotherClient,
		},
		fastTasks: {
			name: 'tasks delivered before Intake records their task_id are settled by the catch-up: delivered once from their rows, no row left unknown, no alert',
			run: fastTasks,
		},
		crash: {
			name: 'n8n killed while Intake sends 45 documents: after the restart every task is delivered once or shown; the same batch again delivers nothing twice',
			run: crash,
		},
	},
};
