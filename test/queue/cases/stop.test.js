'use strict';

/**
 * Stopping a running Submit and Wait on a worker stops its polling within one interval. A stop
 * from main reaches the worker for runs main enqueued (OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true,
 * a manual run through main's REST API): main sends the job an abort, the worker aborts the
 * execution's cancel signal, and the node's wait between polls ends.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { sleep } = require('../../../harness/fixtures.js');
const { rest, waitFor } = require('../../../harness/n8n.js');
const state = require('../../../harness/state.js');
const { useQueueSuite, queue } = require('../../../harness/queue/setup.js');
const { QWF } = require('../../../harness/queue/workflows.js');

useQueueSuite();

const POLL_INTERVAL_MS = 1000; // the workflow's Poll Interval (1 s)

async function emulator(pathname) {
	const res = await fetch(`${state.emulatorUrl}${pathname}`);
	return await res.json();
}

test('Stop: stopping a Submit and Wait running on a worker ends its polling within one interval', async (t) => {
	const { stack } = queue;
	const knownTasks = new Set(
		(await emulator('/_emulator/tasks')).tasks.map((task) => task.task_id),
	);
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
			const fresh = (await emulator('/_emulator/tasks')).tasks.filter(
				(task) => !knownTasks.has(task.task_id),
			);
			taskId = fresh[0]?.task_id;
			return (
				taskId && ((await emulator('/_emulator/stats')).status_polls_by_task[taskId] ?? 0) >= 1
			);
		},
		60000,
		100,
	);
	const worker = stack.ranOn(executionId)[0];
	assert.match(worker, /^worker\d$/);
	const polls = async () => (await emulator('/_emulator/stats')).status_polls_by_task[taskId] ?? 0;
	const task = async () =>
		(await emulator('/_emulator/tasks')).tasks.find((x) => x.task_id === taskId);
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
	assert.ok(
		afterOneInterval - atStop <= 1,
		`${afterOneInterval - atStop} polls within one interval after the stop`,
	);
	assert.equal(
		later,
		afterOneInterval,
		`${later - afterOneInterval} more polls after the first interval: polling went on`,
	);
	assert.equal(execution.status, 'canceled', `execution ${executionId} is ${execution.status}`);
	t.diagnostic(
		`execution ${executionId} on ${worker}; task_status requests after the stop: ${later - atStop}`,
	);
});
