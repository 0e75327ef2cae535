'use strict';

/**
 * One deadline per item, and the kind of every failure where a workflow reads it. Max Wait
 * bounds a Submit and Wait item from its start, however long the service rate-limits the upload;
 * an error item under On Error: Continue names its failure's kind, and an item whose time ran out
 * before it could be sent says so.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { execute, expectSuccess, nodeItems, nodeRun } = require('../../../harness/n8n.js');
const {
	addFault,
	clearFaults,
	emulatorAdmin,
	tasksCreatedDuring,
} = require('../lib/emulator-client.js');
const { LIMITS_WF, KIND_NODES } = require('../lib/limits-workflows.js');
const { useSuite } = require('../lib/setup.js');

useSuite();

const PROCESSING_MS = Number(process.env.E2E_PROCESSING_MS || 1500);
const settings = (body) => emulatorAdmin('POST', '/settings', body);

/** n8n's own overhead around the node's deadline: starting the node, writing its output. */
const SLACK_MS = 1500;

test('Deadline: Max Wait 8 s bounds the item when the upload is rate-limited for 6 s and the task takes 10 s', async (t) => {
	let res;
	const created = await tasksCreatedDuring(async () => {
		await settings({ processing_ms: 10000 });
		try {
			// six 429 answers, each asking for 1 s: the upload is accepted after about 6 s
			await addFault({ endpoint: 'process_file', count: 6, status: 429, retry_after: 1 });
			res = await execute(LIMITS_WF.oneDeadline);
		} finally {
			await clearFaults();
			await settings({ processing_ms: PROCESSING_MS });
		}
	});
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	const { executionTime } = nodeRun(res.run, 'Submit and Wait');
	t.diagnostic(`the item took ${executionTime} ms: ${item.json.message}`);
	assert.equal(created.length, 1, `tasks created: ${created.length}`);
	assert.equal(item.json.task_id, created[0].task_id, 'the accepted upload hands back its task_id');
	assert.equal(item.json.timedOut, true);
	// No request is under way at the deadline here (status checks end with it), so the item
	// ends at Max Wait, not Max Wait after the upload.
	assert.ok(
		executionTime <= 8000 + SLACK_MS,
		`the item took ${executionTime} ms with a Max Wait of 8 s`,
	);
});

test('Kinds: each error item under On Error: Continue names its failure', async (t) => {
	let res;
	const created = await tasksCreatedDuring(async () => {
		try {
			// taken in order, one node after the other: 422, then a gateway's 504 after the upload
			// reached the service, then 429 until Max Wait; a connection dropped on each of the four
			// attempts of a status check; then the service's own 404 for an unknown task
			await addFault({ endpoint: 'process_file', status: 422 });
			await addFault({ endpoint: 'process_file', mode: 'handle_then_answer', status: 504 });
			await addFault({ endpoint: 'process_file', count: 100, status: 429, retry_after: 1 });
			await addFault({ endpoint: 'task_status', count: 4, mode: 'drop_after_read' });
			res = await execute(LIMITS_WF.kinds);
		} finally {
			await clearFaults();
		}
	});
	expectSuccess(res);
	for (const [name, kind] of Object.entries(KIND_NODES)) {
		const [item] = nodeItems(res.run, name);
		t.diagnostic(`${name}: ${item.json.kind}: ${item.json.error}`);
		assert.equal(item.json.kind, kind, `${name}: ${JSON.stringify(item.json)}`);
		assert.equal(typeof item.json.error, 'string');
	}
	assert.equal(created.length, 1, 'only the upload a gateway answered 504 for reached the service');
});

test('Kinds: an item whose Max Wait ran out before a request slot came free is out_of_time, and nothing is lost', async (t) => {
	let res;
	const created = await tasksCreatedDuring(async () => {
		try {
			// one request slot: the first upload takes 1.5 s, longer than the items' Max Wait
			await addFault({ endpoint: 'process_file', delay_ms: 1500 });
			res = await execute(LIMITS_WF.outOfTime);
		} finally {
			await clearFaults();
		}
	});
	expectSuccess(res);
	const [first, second] = nodeItems(res.run, 'Submit and Wait');
	t.diagnostic(`${first.json.message} | ${second.json.kind}: ${second.json.error}`);
	assert.equal(created.length, 1, `tasks created: ${created.length}`);
	assert.equal(
		first.json.task_id,
		created[0].task_id,
		'the accepted upload hands back its task_id',
	);
	assert.equal(first.json.timedOut, true);
	assert.equal(second.json.kind, 'out_of_time');
	assert.equal(second.json.task_id, undefined, 'nothing was sent for the second item');
});
