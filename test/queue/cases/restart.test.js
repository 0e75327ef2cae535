'use strict';

/**
 * SIGTERM to a worker in the middle of a run: it drains (takes no new job, waits for its running
 * ones), so the run completes there with every task id, and the worker comes back.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { waitFor } = require('../../../harness/n8n.js');
const { emulatorTasks } = require('../../e2e/lib/emulator-client.js');
const { useQueueSuite, queue } = require('../../../harness/queue/setup.js');
const { QWF, PATHS } = require('../../../harness/queue/workflows.js');
const {
	callWebhook,
	executionIds,
	waitNewExecutions,
	submitAndWaitOutput,
} = require('../lib/runs.js');

useQueueSuite();

const ITEMS = Number(process.env.QUEUE_ITEMS || 20);

test('Restart: SIGTERM to a worker in the middle of a run drains it; the run completes with every task id', async (t) => {
	const { stack } = queue;
	const known = await executionIds(QWF.many);
	const knownTasks = new Set((await emulatorTasks()).map((task) => task.task_id));
	const answer = await callWebhook(stack, PATHS.many);
	assert.equal(answer.status, 200);
	let executionId;
	let worker;
	await waitFor(
		'the run to start on a worker',
		async () => {
			const fresh = (await executionIds(QWF.many))
				.values()
				.filter((id) => !known.has(id))
				.toArray();
			executionId = fresh[0];
			worker = executionId && stack.ranOn(executionId)[0];
			return Boolean(worker);
		},
		60000,
		200,
	);
	assert.match(worker, /^worker\d$/);
	const finished = new RegExp(`Worker finished execution ${executionId} `);
	assert.doesNotMatch(stack.log(worker), finished, 'the run ended before the restart');
	const stopped = Date.now();
	await stack.stopProcess(worker);
	const drainSeconds = (Date.now() - stopped) / 1000;
	assert.match(stack.log(worker), finished, `${worker} did not finish the run before exiting`);
	const [execution] = await waitNewExecutions(QWF.many, known, 1);
	assert.equal(execution.status, 'success', `execution ${executionId} is ${execution.status}`);
	const items = await submitAndWaitOutput(executionId);
	assert.deepEqual(
		items.map((item) => item.json.status),
		Array(ITEMS).fill('complete'),
	);
	const submitted = (await emulatorTasks()).filter((task) => !knownTasks.has(task.task_id));
	assert.deepEqual(
		items.map((item) => item.json.task_id).sort(),
		submitted.map((task) => task.task_id).sort(),
		'the task ids in the output differ from the tasks submitted',
	);
	await stack.startProcess(worker);
	t.diagnostic(
		`execution ${executionId} on ${worker}: drained in ${drainSeconds.toFixed(1)} s, ${ITEMS}/${submitted.length} task ids; ${worker} restarted`,
	);
});
