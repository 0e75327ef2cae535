'use strict';

/**
 * The editor's Stop on a Submit and Wait of four documents started by a production webhook whose
 * status requests hang: the requests in flight are aborted at once (not left to their 30 s
 * timeout), nothing more is sent, n8n records the execution as canceled, and the task_ids created
 * are in the execution's custom data, which n8n keeps (its run data and the node's context it does
 * not: the diagnostic line says what it kept).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { sleep } = require('../../../harness/fixtures.js');
const { startN8n, rest, executionData, executionsOf, waitFor } = require('../../../harness/n8n.js');
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

test('Stop: stopping a running Submit and Wait aborts its requests in flight at once, sends nothing more and keeps the task_ids', async (t) => {
	if (!state.n8n?.alive) await startN8n();
	await publish(WF.cancel);
	const before = new Set((await emulatorTasks()).map((task) => task.task_id));
	try {
		await addFault({ endpoint: 'task_status', mode: 'hang', count: 1000 });
		await callProductionWebhook(CANCEL_PATH);
		// the documents are submitted and their first status requests hang
		const created = async () =>
			(await emulatorTasks())
				.filter((task) => !before.has(task.task_id))
				.map((task) => task.task_id);
		const ids = await waitFor('the documents to be submitted', async () => {
			const found = await created();
			return found.length === 4 && found;
		});
		await waitFor('the status requests to be in flight', async () => {
			const stats = await emulatorStats();
			return ids.every((id) => stats.status_polls_by_task[id] >= 1) && stats.in_flight >= 4;
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
		const { status_polls_by_task: polls } = await emulatorStats();
		assert.equal(ended.status, 'canceled', `execution ${running.id} is ${ended.status}`);
		assert.ok(
			abortedMs < 3000,
			`the requests in flight were aborted ${abortedMs} ms after the stop`,
		);
		assert.deepEqual(
			ids.map((id) => polls[id]),
			[1, 1, 1, 1],
			'status requests per task',
		);
		assert.deepEqual(await created(), ids, 'a task was created after the stop');
		const stored = await executionData(running.id);
		const kept = String(stored.customData?.documentExtractionTasks ?? '').split(' ');
		assert.deepEqual(kept.sort(), [...ids].sort(), 'the custom data does not hold the task_ids');
		const { resultData, executionData: state } = stored.data ?? {};
		const what = {
			runData: Object.keys(resultData?.runData ?? {}),
			error: resultData?.error?.name ?? resultData?.error?.message,
			contextData: JSON.stringify(state?.contextData ?? {}).includes(ids[0]),
		};
		t.diagnostic(`aborted ${abortedMs} ms after the stop; n8n kept ${JSON.stringify(what)}`);
	} finally {
		await clearFaults();
		await rest('POST', `/workflows/${WF.cancel}/deactivate`, {}).catch(() => {});
	}
});
