'use strict';

/**
 * The production workflow when n8n is killed while Intake sends: after the restart every task is
 * delivered once or shown, and the same batch posted again delivers nothing twice. It runs after
 * cases/production.test.js, on the workflow and Data Table that file set up (lib/production.js).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { sleep } = require('../../../harness/fixtures.js');
const {
	startN8n,
	killN8n,
	waitFor,
} = require('../../../harness/n8n.js');
const {
	addFault,
	clearFaults,
	emulatorTasks,
	servedFiles,
	waitWebhookLive,
} = require('../lib/emulator-client.js');
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
	PROCESSING_MS,
	prod,
	N8N_ENV,
	n8nBase,
	rowsByTask,
} = require('../lib/production.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const alerts = () => sinkCalls(ALERTS);

test('Production: n8n killed while Intake sends 45 documents: after the restart every task is delivered once or shown; the same batch again delivers nothing twice', async (t) => {
	assert.ok(prod.hookUrl, 'the outage case did not run');
	const COUNT = 45;
	const before = new Set((await emulatorTasks()).map((task) => task.task_id));
	const newTasks = async () => (await emulatorTasks()).filter((task) => !before.has(task.task_id));
	// the tasks end after n8n is back, so that their deliveries find it
	await emulatorSettings({ processing_ms: 30000 });
	await addFault({ endpoint: 'process_file', delay_ms: 300, count: 1000 });
	const documents = intakeDocuments(COUNT, 'CRASH');
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
	const files = Object.fromEntries((await servedFiles()).map((f) => [f.sha256, f.name]));
	let tasks = [];
	let rows = {};
	let calls = [];
	const settled = async () => {
		tasks = await newTasks();
		rows = await rowsByTask();
		calls = (await sinkCalls()).filter((c) => tasks.some((x) => x.task_id === c.body?.task_id));
		const all = await tableRows(prod.table);
		const open = all.filter(
			(r) => ['claimed', 'sending'].includes(r.status) && String(r.file_name).startsWith('CRASH-'),
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
		(r) => r.status === 'possibly_sent' && String(r.file_name).startsWith('CRASH-'),
	);
	const told = (await alerts()).filter(
		(c) =>
			(c.body.status === 'unmatched' && tasks.some((x) => x.task_id === c.body.task_id)) ||
			(c.body.status === 'possibly_sent' && String(c.body.file_name).startsWith('CRASH-')),
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
	t.diagnostic(
		`remedy carried out on the table for ${remedied.length} unmatched rows: each delivered once from its document's row, now done`,
	);
});
