'use strict';

/**
 * The editor's Stop on a Submit and Wait started by a production webhook whose status request
 * hangs: the request in flight is aborted at once (not left to its 30 s timeout), nothing more is
 * sent, and n8n records the execution as canceled.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { sleep } = require('../../../harness/fixtures.js');
const { startN8n, rest, executionsOf, waitFor } = require('../../../harness/n8n.js');
const {
	addFault,
	clearFaults,
	emulatorStats,
	emulatorTasks,
} = require('../lib/emulator-client.js');
const { WF, CANCEL_PATH } = require('../../../harness/workflows.js');
const { publish, callProductionWebhook } = require('../lib/publishing.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

test('Stop: stopping a running Submit and Wait aborts its request in flight at once and sends nothing more', async (t) => {
	if (!state.n8n?.alive) await startN8n();
	await publish(WF.cancel);
	const before = new Set((await emulatorTasks()).map((task) => task.task_id));
	try {
		await addFault({ endpoint: 'task_status', mode: 'hang', count: 1000 });
		await callProductionWebhook(CANCEL_PATH);
		// the document is submitted and its first status request hangs
		const task = await waitFor('the document to be submitted', async () =>
			(await emulatorTasks()).find((candidate) => !before.has(candidate.task_id)),
		);
		await waitFor('the status request to be in flight', async () => {
			const stats = await emulatorStats();
			return stats.status_polls_by_task[task.task_id] >= 1 && stats.in_flight >= 1;
		});
		const running = await waitFor('the running execution', async () =>
			(await executionsOf(WF.cancel)).find((e) => e.status === 'running'),
		);

		const stopped = Date.now();
		await rest('POST', `/executions/${running.id}/stop`);
		const aborted = async () => (await emulatorStats()).in_flight === 0;
		await waitFor('the status request to be aborted', aborted, 10000, 100);
		const abortedMs = Date.now() - stopped;
		const ended = await waitFor(
			'the execution to end',
			async () => {
				const e = (await executionsOf(WF.cancel)).find((x) => x.id === running.id);
				return ['new', 'running', 'waiting'].includes(e?.status) ? undefined : e;
			},
			10000,
			200,
		);
		// a node that missed the stop would retry the status request after 1 s
		await sleep(2500);
		const polls = (await emulatorStats()).status_polls_by_task[task.task_id];
		assert.equal(ended.status, 'canceled', `execution ${running.id} is ${ended.status}`);
		assert.ok(abortedMs < 3000, `the request in flight was aborted ${abortedMs} ms after the stop`);
		assert.equal(polls, 1, `${polls} status requests for task ${task.task_id}`);
		t.diagnostic(`request aborted ${abortedMs} ms after the stop; execution ${ended.status}`);
	} finally {
		await clearFaults();
		await rest('POST', `/workflows/${WF.cancel}/deactivate`, {}).catch(() => {});
	}
});
