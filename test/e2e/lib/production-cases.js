'use strict';

/**
 * The production cases that fan out (overlapping posts, another client's tasks, tasks delivered
 * before their row, a crash while sending): shared by cases/production.test.js, which runs them on
 * the workflow as shipped and again on a copy whose canvas is scrambled (every node moved, every
 * fan-out's targets reversed). Each takes node:test's `t` and the state of the installed
 * workflow (`prod`: its table and the trigger's registered URL).
 */

const assert = require('node:assert/strict');

const { FILES, sleep } = require('../../../harness/fixtures.js');
const { fileDigest } = require('../../../emulator/lib/files.js');
const { startN8n, killN8n, waitFor, IS_N8N_1 } = require('../../../harness/n8n.js');
const {
	addFault,
	clearFaults,
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
	callsPerTask,
	emulatorSettings,
	intakeDocuments,
	intake,
	wrongDocuments,
} = require('./production.js');
const state = require('../../../harness/state.js');

const CATCH_UP_S = 10;
const PROCESSING_MS = Number(process.env.E2E_PROCESSING_MS || 1500);

/**
 * On n8n 1.x, SQLite without a read pool (1.x's default, which n8n itself calls deprecated at
 * start) fails concurrent Data Table transactions ("no such savepoint"): docs/production.md tells
 * 1.x users to set DB_SQLITE_POOL_SIZE, and the cases run as it says.
 */
const N8N_ENV = IS_N8N_1 ? { DB_SQLITE_POOL_SIZE: '2' } : {};

/**
 * The installed workflow: its Data Table and the Completion trigger's registered URL; `layout` names
 * the canvas the cases run on (its documents get names of their own, as the table may keep the rows
 * of the same cases on the other canvas).
 */
const prod = {
	table: undefined,
	hookUrl: undefined,
	tasks: [],
	forgotten: undefined,
	layout: 'shipped',
};

/** A tag for the documents of a case: its name, with S in front on the scrambled canvas. */
const tag = (name) => (prod.layout === 'scrambled' ? `S${name}` : name);

const n8nBase = () => `http://127.0.0.1:${state.n8nPort}`;

/** The deliveries of `taskIds` to the Completion trigger's registration. */
async function deliveriesOf(taskIds) {
	const res = await fetch(`${state.emulatorUrl}/_emulator/deliveries`);
	const { deliveries } = await res.json();
	const wanted = new Set(taskIds);
	return deliveries.filter((d) => d.url === prod.hookUrl && wanted.has(d.task_id));
}

async function rowsByTask() {
	return Object.fromEntries((await tableRows(prod.table)).map((r) => [r.task_id, r]));
}

/** The calls the example's "Tell Someone" nodes made (the emulator's sink named alerts). */
const alerts = () => sinkCalls(ALERTS);

/** the same 20 documents posted again while the first post is still sending: 20 tasks, each document downstream once, and both answers tell the truth */
async function overlap(t) {
	assert.ok(prod.hookUrl, 'the outage case did not run');
	const COUNT = 20;
	const before = new Set((await emulatorTasks()).map((task) => task.task_id));
	const newTasks = async () => (await emulatorTasks()).filter((task) => !before.has(task.task_id));
	await emulatorSettings({ processing_ms: PROCESSING_MS });
	await addFault({ endpoint: 'process_file', delay_ms: 300, count: 1000 });
	const documents = intakeDocuments(COUNT, tag('OVL')).map((d) => ({ key: d.file_name, ...d }));
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
}

/** 5 tasks another client sends to the same project are no alert and leave the rows as they are */
async function anotherClient(t) {
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
}

/** tasks delivered before Intake records their task_id are settled by the catch-up: delivered once from their rows, no row left unknown, no alert */
async function fastTasks(t) {
	assert.ok(prod.hookUrl, 'the outage case did not run');
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
}

/** n8n killed while Intake sends 45 documents: after the restart every task is delivered once or shown; the same batch again delivers nothing twice */
async function crash(t) {
	assert.ok(prod.hookUrl, 'the outage case did not run');
	const COUNT = 45;
	const before = new Set((await emulatorTasks()).map((task) => task.task_id));
	const newTasks = async () => (await emulatorTasks()).filter((task) => !before.has(task.task_id));
	// the tasks end after n8n is back, so that their deliveries find it
	await emulatorSettings({ processing_ms: 30000 });
	await addFault({ endpoint: 'process_file', delay_ms: 300, count: 1000 });
	const documents = intakeDocuments(COUNT, tag('CRASH'));
	// the third batch's third document downloads for 6 s: n8n is killed while it is sending, before
	// the service has a task for it, so its row ends possibly_sent with no task anywhere, and the
	// remedy's last step (clear the row, the catch-up sends it) is carried out every run
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
	// each document's content is known from its name (the emulator serves the same bytes for it), so
	// a task made from a document downloaded later, by the catch-up, still names its document
	const files = Object.fromEntries(documents.map((d) => [fileDigest(d.file_name), d.file_name]));
	let tasks = [];
	let rows = {};
	let calls = [];
	const settled = async () => {
		tasks = await newTasks();
		rows = await rowsByTask();
		calls = (await sinkCalls()).filter((c) => tasks.some((x) => x.task_id === c.body?.task_id));
		const all = await tableRows(prod.table);
		const open = all.filter(
			(r) =>
				(!r.status || ['claimed', 'sending'].includes(r.status)) &&
				String(r.file_name).startsWith(`${tag('CRASH')}-`),
		);
		return (
			open.length === 0 &&
			all.every((r) => r.status !== 'unknown_task') &&
			tasks.every(
				(x) =>
					x.status !== 'queued' &&
					x.status !== 'processing' &&
					(calls.some((c) => c.body.task_id === x.task_id) ||
						rows[x.task_id]?.status === 'unmatched'),
			)
		);
	};
	await waitFor(
		() => {
			const open = tasks
				.filter((x) => !calls.some((c) => c.body.task_id === x.task_id))
				.map(
					(x) => `${x.task_id.slice(0, 8)} ${x.status} row ${rows[x.task_id]?.status ?? 'none'}`,
				);
			return `every task to be delivered or shown (${tasks.length} tasks, ${calls.length} delivered; not yet: ${open.join(', ')})`;
		},
		settled,
		180000,
		1000,
	);
	await sleep(3000);
	await settled();
	const perTask = callsPerTask(calls);
	const once = tasks.filter((x) => perTask[x.task_id] === 1).length;
	const twice = tasks.filter((x) => (perTask[x.task_id] ?? 0) > 1).length;
	const unmatched = tasks.filter(
		(x) => !perTask[x.task_id] && rows[x.task_id]?.status === 'unmatched',
	).length;
	const invisible = tasks.length - once - twice - unmatched;
	const perDocument = {};
	for (const x of tasks) {
		const name = files[x.result?.file_sha256 ?? x.file_sha256] ?? 'unknown';
		perDocument[name] = (perDocument[name] ?? 0) + 1;
	}
	const twoTasks = Object.entries(perDocument).filter(([, n]) => n > 1);
	const downstreamPerDocument = {};
	for (const c of calls)
		downstreamPerDocument[c.body.file_name] = (downstreamPerDocument[c.body.file_name] ?? 0) + 1;
	const all = await tableRows(prod.table);
	const possiblySent = all.filter(
		(r) => r.status === 'possibly_sent' && String(r.file_name).startsWith(`${tag('CRASH')}-`),
	);
	const told = (await alerts()).filter(
		(c) =>
			(c.body.status === 'unmatched' && tasks.some((x) => x.task_id === c.body.task_id)) ||
			(c.body.status === 'possibly_sent' &&
				String(c.body.file_name).startsWith(`${tag('CRASH')}-`)),
	);
	const sentAgain = again.filter((e) => e.state === 'accepted').length;
	const figures = `${COUNT} documents; ${atCrash} tasks when n8n was killed (first caller: ${caller}); the same batch again sent ${sentAgain} (answer: ${again.length} entries, ${again.length - sentAgain} already_known); tasks created ${tasks.length}: delivered once ${once}, twice ${twice}, shown as unmatched rows ${unmatched}, invisible ${invisible}; possibly_sent rows ${possiblySent.length}; documents with two tasks ${twoTasks.length}; alerts ${told.length}`;
	t.diagnostic(figures);
	assert.equal(invisible, 0, figures);
	assert.equal(twice, 0, figures);
	assert.deepEqual(twoTasks, [], figures);
	assert.deepEqual(
		await wrongDocuments(calls),
		[],
		'a task was made from another document than its row names',
	);
	assert.ok(
		Object.values(downstreamPerDocument).every((n) => n === 1),
		`a document reached the downstream step twice: ${JSON.stringify(downstreamPerDocument)}`,
	);
	// every unmatched task and every possibly sent row is reported; a task whose delivery came
	// before Intake recorded its task_id is reported as unmatched too, then delivered by the
	// catch-up (the docs say to delete that row), so extra reports are allowed
	const unreported = [
		...tasks
			.filter((x) => !perTask[x.task_id] && rows[x.task_id]?.status === 'unmatched')
			.filter((x) => !told.some((c) => c.body.task_id === x.task_id))
			.map((x) => `unmatched ${x.task_id}`),
		...possiblySent
			.filter((r) => !told.some((c) => c.body.file_name === r.file_name))
			.map((r) => `possibly_sent ${r.file_name}`),
	];
	assert.deepEqual(unreported, [], 'each unmatched or possibly sent row is reported');

	// the remedy the message gives, carried out on the table as a person would (the REST API the
	// editor's table view uses): each unmatched task's result names its document; its task_id goes
	// into that document's possibly_sent row, set to pending; the unmatched row is deleted
	const unmatchedRows = all.filter(
		(r) => r.status === 'unmatched' && tasks.some((x) => x.task_id === r.task_id),
	);
	const remedied = [];
	for (const row of unmatchedRows) {
		const task = tasks.find((x) => x.task_id === row.task_id);
		const name = files[task.result?.file_sha256 ?? task.file_sha256];
		const target = possiblySent.find((r) => r.file_name === name);
		assert.ok(target, `no possibly_sent row for ${name}, the document of unmatched ${row.task_id}`);
		await updateRow(prod.table, target.id, { task_id: row.task_id, status: 'pending' });
		await deleteRow(prod.table, row.id);
		remedied.push(row.task_id);
	}
	let after = {};
	await waitFor(
		'the catch-up to deliver the remedied rows',
		async () => {
			after = await rowsByTask();
			return remedied.every((id) => after[id]?.status === 'done');
		},
		90000,
		1000,
	);
	const remediedCalls = callsPerTask(
		(await sinkCalls()).filter((c) => remedied.includes(c.body?.task_id)),
	);
	assert.ok(
		remedied.every((id) => remediedCalls[id] === 1),
		`remedied tasks downstream ${JSON.stringify(remediedCalls)}`,
	);
	// the remedy of a possibly_sent row no unmatched row names: look in the service's dashboard (the
	// emulator's task list) for a task made from its document; if there is one, its task_id goes
	// into the row, set to pending; if there is none, the row's status is cleared and the catch-up
	// sends it (docs/production.md, Row states)
	const dashboard = await emulatorTasks();
	const remediedRows = new Set(unmatchedRows.map((r) => r.task_id));
	let fromDashboard = 0;
	let cleared = 0;
	for (const row of possiblySent) {
		if ([...remediedRows].some((id) => after[id]?.file_name === row.file_name)) continue;
		const sha = Object.keys(files).find((k) => files[k] === row.file_name);
		const task = dashboard.find((x) => (x.result?.file_sha256 ?? x.file_sha256) === sha);
		if (task) {
			await updateRow(prod.table, row.id, { task_id: task.task_id, status: 'pending' });
			fromDashboard++;
		} else {
			await updateRow(prod.table, row.id, { status: null });
			cleared++;
		}
	}
	assert.ok(
		cleared >= 1,
		`no possibly_sent row was cleared (${documents[NEVER_ARRIVED].file_name} never reached the service)`,
	);
	let crashRows = [];
	await waitFor(
		() =>
			`every CRASH document to be done (${crashRows.filter((r) => r.status !== 'done').map((r) => `${r.file_name} ${r.status}`)})`,
		async () => {
			crashRows = (await tableRows(prod.table)).filter((r) =>
				String(r.file_name).startsWith(`${tag('CRASH')}-`),
			);
			return crashRows.length === COUNT && crashRows.every((r) => r.status === 'done');
		},
		120000,
		1000,
	);
	await sleep(2000);
	// no document charged twice: one task per document at the service, one downstream call each
	const tasksPerDocument = {};
	for (const x of await newTasks()) {
		const name = files[x.result?.file_sha256 ?? x.file_sha256] ?? 'unknown';
		tasksPerDocument[name] = (tasksPerDocument[name] ?? 0) + 1;
	}
	const caseTasks = new Set((await newTasks()).map((x) => x.task_id));
	const finalCalls = (await sinkCalls()).filter((c) => caseTasks.has(c.body?.task_id));
	const callsPerDocument = {};
	for (const c of finalCalls)
		callsPerDocument[c.body.file_name] = (callsPerDocument[c.body.file_name] ?? 0) + 1;
	const strays = (await newTasks()).filter((x) => !files[x.result?.file_sha256 ?? x.file_sha256]);
	assert.deepEqual(
		strays.map((x) => x.task_id),
		[],
		'tasks made from no document of the case',
	);
	const remedies = `remedies carried out on the table: ${remedied.length} unmatched rows (each delivered once from its document's row); possibly_sent rows without one: ${fromDashboard} given their task from the dashboard, ${cleared} cleared and sent by the catch-up; documents with two tasks ${Object.values(tasksPerDocument).filter((n) => n > 1).length}; documents downstream ${Object.keys(callsPerDocument).length} of ${COUNT}, twice ${Object.values(callsPerDocument).filter((n) => n > 1).length}`;
	t.diagnostic(remedies);
	assert.ok(
		Object.values(tasksPerDocument).every((n) => n === 1),
		remedies,
	);
	assert.equal(Object.keys(callsPerDocument).length, COUNT, remedies);
	assert.ok(
		Object.values(callsPerDocument).every((n) => n === 1),
		remedies,
	);
}

module.exports = {
	CATCH_UP_S,
	PROCESSING_MS,
	N8N_ENV,
	prod,
	n8nBase,
	deliveriesOf,
	rowsByTask,
	alerts,
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
