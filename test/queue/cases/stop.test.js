'use strict';

/**
 * Stopping a Submit and Wait running on a worker (a manual run main enqueued, with
 * OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS): main sends the job an abort, the worker aborts the
 * execution's signal, and the node's polling ends within one interval.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { sleep } = require('../../../harness/fixtures.js');
const { rest, waitFor } = require('../../../harness/n8n.js');
const { emulatorStats, emulatorTasks } = require('../../e2e/lib/emulator-client.js');
const { useQueueSuite, queue } = require('../../../harness/queue/setup.js');
const { QWF } = require('../../../harness/queue/workflows.js');

useQueueSuite();

const POLL_INTERVAL_MS = 1000; // the workflow's Poll Interval (1 s)

test('Stop: stopping a Submit and Wait running on a worker ends its polling within one interval', async (t) => {
	const { stack } = queue;
	const knownTasks = new Set((await emulatorTasks()).map((task) => task.task_id));
	const { executionId } = await rest('POST', `/workflows/${QWF.slow}/run`, {
		triggerToStartFrom: { name: 'Start' },
	});
	assert.ok(executionId, 'main started no execution');
	// running on a worker, and the task has been polled at least once
	let taskId;
	await waitFor(
		`execution ${executionId} to poll its task`,
		async () => {
			if (!stack.ranOn(executionId).length) return false;
			const fresh = (await emulatorTasks()).filter((task) => !knownTasks.has(task.task_id));
			taskId = fresh[0]?.task_id;
			return taskId && ((await emulatorStats()).status_polls_by_task[taskId] ?? 0) >= 1;
		},
		60000,
		100,
	);
	const worker = stack.ranOn(executionId)[0];
	assert.match(worker, /^worker\d$/);
	const polls = async () => (await emulatorStats()).status_polls_by_task[taskId] ?? 0;
	const task = async () => (await emulatorTasks()).find((x) => x.task_id === taskId);
	assert.notEqual(
		(await task()).status,
		'complete',
		'the task finished before the stop: raise QUEUE_PROCESSING_MS',
	);
	await rest('POST', `/executions/${executionId}/stop`);
	const atStop = await polls();
	await sleep(POLL_INTERVAL_MS + 500);
	const afterOneInterval = await polls();
	await sleep(4 * POLL_INTERVAL_MS);
	const later = await polls();
	const execution = await waitFor(`execution ${executionId} to end`, async () => {
		const e = await rest('GET', `/executions/${executionId}`);
		return ['canceled', 'error', 'success', 'crashed'].includes(e.status) ? e : undefined;
	});
	const inInterval = afterOneInterval - atStop;
	assert.ok(inInterval <= 1, `${inInterval} polls within one interval after the stop`);
	assert.equal(later - afterOneInterval, 0, 'polls after the first interval: polling went on');
	assert.equal(execution.status, 'canceled', `execution ${executionId} is ${execution.status}`);
	t.diagnostic(
		`execution ${executionId} on ${worker}; task_status requests after the stop: ${later - atStop}`,
	);
});
