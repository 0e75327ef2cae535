'use strict';

/** Submit and Wait on many items, started through a published production webhook: enqueued by the webhook process, run on the workers. */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { sha256 } = require('../../../harness/fixtures.js');
const { requestCount } = require('../../e2e/lib/emulator-client.js');
const { useQueueSuite, queue } = require('../../../harness/queue/setup.js');
const { QWF, PATHS, manyFiles } = require('../../../harness/queue/workflows.js');
const { webhookRuns, submitAndWaitOutput, assertRanOnWorker } = require('../lib/runs.js');

useQueueSuite();

const ITEMS = Number(process.env.QUEUE_ITEMS || 20);
const RUNS = 3;

test(`Submit and Wait: ${RUNS} webhook runs of ${ITEMS} files each run on the workers, every item complete and byte-exact`, async (t) => {
	const { stack } = queue;
	const polls = await requestCount('task_status');
	const executions = await webhookRuns(stack, QWF.many, PATHS.many, {
		runs: RUNS,
		timeoutMs: 180000,
	});
	assert.equal(executions.length, RUNS, `expected ${RUNS} executions, got ${executions.length}`);
	const files = manyFiles(ITEMS);
	const workers = {};
	for (const e of executions) {
		assert.equal(e.status, 'success', `execution ${e.id} is ${e.status}`);
		assert.equal(e.mode, 'webhook');
		const worker = assertRanOnWorker(stack, e.id);
		workers[worker] = (workers[worker] ?? 0) + 1;
		assert.match(
			stack.log('webhook'),
			new RegExp(`Enqueued execution ${e.id} \\(job`),
			`the webhook process did not enqueue ${e.id}`,
		);
		const items = await submitAndWaitOutput(e.id);
		assert.equal(items.length, ITEMS);
		items.forEach((item, i) => {
			assert.equal(item.json.status, 'complete', `item ${i}: ${item.json.status}`);
			assert.equal(
				item.json.result.file_sha256,
				sha256(files[i].bytes),
				`item ${i} sent other bytes`,
			);
			const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
			assert.equal(typeof paired === 'number' ? paired : paired.item, i);
		});
	}
	const perTask = ((await requestCount('task_status')) - polls) / (RUNS * ITEMS);
	t.diagnostic(
		`executions per worker ${JSON.stringify(workers)}; ${perTask.toFixed(2)} task_status polls per task`,
	);
});
