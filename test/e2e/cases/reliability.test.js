'use strict';

/**
 * Reliability through the emulator's fault switches: a service that never answers, a
 * connection dropped after the upload was read, refused connections, and a burst of 5xx
 * while polling. Each case checks what the user sees and counts the tasks the emulator
 * created, so that nothing is lost or created twice.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { FILES, UUID_RE, sha256 } = require('../../../harness/fixtures.js');
const { execute, nodeItems, nodeRun } = require('../../../harness/n8n.js');
const {
	tasksCreatedDuring,
	addFault,
	emulatorStats,
	requestCount,
} = require('../lib/emulator-client.js');
const { WF } = require('../../../harness/workflows.js');
const { expectSuccess, expectFailure } = require('../lib/judge.js');
const { useSuite } = require('../lib/setup.js');

useSuite();

test('Reliability: status requests that never answer end at Max Wait with the task_id', async (t) => {
	let res;
	let elapsed;
	const created = await tasksCreatedDuring(async () => {
		await addFault({ endpoint: 'task_status', mode: 'hang', count: 1000 });
		const started = Date.now();
		res = await execute(WF.maxWait);
		elapsed = Date.now() - started;
	});
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.equal(created.length, 1, `tasks created: ${created.length}`);
	assert.equal(item.json.task_id, created[0].task_id);
	assert.equal(item.json.timedOut, true);
	assert.ok(
		item.json.waitedSeconds <= 7,
		`waited ${item.json.waitedSeconds} s for a Max Wait of 6 s`,
	);
	// n8n execute itself needs a few seconds to start and stop.
	assert.ok(elapsed < 40_000, `the run took ${elapsed} ms`);
	t.diagnostic(
		`timed out after ${item.json.waitedSeconds} s (${elapsed} ms in all): ${item.json.lastPollError ?? ''}`,
	);
});

test('Reliability: a process_file that never answers fails with a clear timeout, sent once', async (t) => {
	let res;
	const uploadsBefore = await requestCount('process_file');
	const created = await tasksCreatedDuring(async () => {
		await addFault({ endpoint: 'process_file', mode: 'hang' });
		res = await execute(WF.saw);
	});
	const error = expectFailure(res);
	assert.match(error, /did not answer in time; it may have received the document/);
	assert.equal(
		(await requestCount('process_file')) - uploadsBefore,
		1,
		'the document was sent again',
	);
	assert.equal(created.length, 0);
	t.diagnostic(error);
});

test('Reliability: a connection dropped after the upload was read is not resent: one task', async (t) => {
	let res;
	const uploadsBefore = await requestCount('process_file');
	const created = await tasksCreatedDuring(async () => {
		await addFault({ endpoint: 'process_file', mode: 'drop_after_read' });
		res = await execute(WF.saw);
	});
	const error = expectFailure(res);
	assert.match(error, /broke off; it may have received the document/);
	assert.equal(
		(await requestCount('process_file')) - uploadsBefore,
		1,
		'the document was sent again',
	);
	assert.equal(created.length, 1, `tasks created: ${created.length}`);
	assert.equal(created[0].file_sha256, sha256(FILES.a.bytes));
	t.diagnostic(error);
});

test('Reliability: refused connections are retried, and the document is submitted once', async (t) => {
	let res;
	const created = await tasksCreatedDuring(async () => {
		res = await execute(WF.refused);
	});
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.equal(item.json.status, 'complete');
	assert.match(item.json.task_id, UUID_RE);
	assert.equal(created.length, 1, `tasks created: ${created.length}`);
	assert.equal(created[0].task_id, item.json.task_id);
	const { refusals } = await emulatorStats();
	const refusal = refusals.at(-1);
	assert.ok(refusal?.until, `no refusal recorded: ${JSON.stringify(refusals)}`);
	// The node started while connections were refused, and the task came after the refusal:
	// the first attempts were refused and a later one went through.
	const nodeStarted = nodeRun(res.run, 'Submit and Wait').startTime;
	assert.ok(
		nodeStarted < Date.parse(refusal.until),
		`the node started after the refusal: ${new Date(nodeStarted).toISOString()}`,
	);
	assert.ok(Date.parse(created[0].created_at) >= Date.parse(refusal.until));
	t.diagnostic(
		`refused ${refusal.from} .. ${refusal.until}, task created ${created[0].created_at}`,
	);
});

test('Reliability: a burst of 5xx and dropped connections on task_status longer than 7 s, the item still completes', async (t) => {
	let res;
	let elapsed;
	const pollsBefore = await requestCount('task_status');
	const created = await tasksCreatedDuring(async () => {
		// Faults are used in order: six 503s, then four dropped connections.
		await addFault({ endpoint: 'task_status', count: 6, status: 503 });
		await addFault({ endpoint: 'task_status', count: 4, mode: 'drop_after_read' });
		const started = Date.now();
		res = await execute(WF.saw);
		elapsed = Date.now() - started;
	});
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.equal(item.json.status, 'complete');
	assert.equal(created.length, 1);
	assert.equal(item.json.task_id, created[0].task_id);
	const polls = (await requestCount('task_status')) - pollsBefore;
	assert.ok(polls >= 11, `task_status called ${polls} times`);
	assert.ok(elapsed > 7000, `the run took ${elapsed} ms`);
	t.diagnostic(`${polls} status requests, ${elapsed} ms`);
});
