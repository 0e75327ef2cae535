'use strict';

/**
 * What the editor says after a run: the execution hints the node adds (shown above the output
 * panel), read from the run n8n stores for the node. Tasks still running after Max Wait, error
 * items under "On Error → Continue" with their task_id, and tasks failed at the service output
 * as items each get one; a clean run gets none.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { execute, expectSuccess, nodeItems, nodeRun } = require('../lib/n8n.js');
const { addFault, clearFaults } = require('../lib/emulator-client.js');
const { WF } = require('../lib/workflows.js');
const { useSuite } = require('../lib/setup.js');

useSuite();

const hintsOf = (run, nodeName) => nodeRun(run, nodeName).hints ?? [];
const messages = (hints) => hints.map((hint) => hint.message);

test('Hints: a clean run adds none', async () => {
	const res = await execute(WF.saw);
	expectSuccess(res);
	assert.equal(nodeItems(res.run, 'Submit and Wait')[0].json.status, 'complete');
	assert.deepEqual(messages(hintsOf(res.run, 'Submit and Wait')), []);
});

test('Hints: a task still running after Max Wait is named, with what to do', async (t) => {
	let res;
	try {
		await addFault({ endpoint: 'task_status', mode: 'hang', count: 1000 });
		res = await execute(WF.maxWait);
	} finally {
		await clearFaults();
	}
	expectSuccess(res);
	assert.equal(nodeItems(res.run, 'Submit and Wait')[0].json.timedOut, true);
	const hints = hintsOf(res.run, 'Submit and Wait');
	assert.deepEqual(messages(hints), [
		'1 task was still running after Max Wait; its task_id is in the output: fetch it later with Get Status, or raise Max Wait',
	]);
	assert.equal(hints[0].type, 'warning');
	assert.equal(hints[0].location, 'outputPane');
	t.diagnostic(hints[0].message);
});

test('Hints: an error item under Continue says it carries its task_id', async (t) => {
	const res = await execute(WF.batch);
	expectSuccess(res);
	const items = nodeItems(res.run, 'Submit and Wait');
	assert.equal(items.filter((item) => item.json.error).length, 1);
	const hints = messages(hintsOf(res.run, 'Submit and Wait'));
	assert.deepEqual(hints, [
		'1 item failed and is output as an error item (On Error → Continue), with the reason in "error"; it carries its task_id: fetch it with Get Status',
	]);
	t.diagnostic(hints[0]);
});

test('Hints: a task failed at the service and output as an item is named', async (t) => {
	const res = await execute(WF.failedAsItem);
	expectSuccess(res);
	assert.equal(nodeItems(res.run, 'Submit and Wait')[0].json.status, 'failed');
	const hints = messages(hintsOf(res.run, 'Submit and Wait'));
	assert.deepEqual(hints, [
		'1 task failed at the service; it is output with status "failed" and the service\'s error text',
	]);
	t.diagnostic(hints[0]);
});
