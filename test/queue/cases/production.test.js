'use strict';

/**
 * examples/production.json at scale: two webhook processes behind nginx (round-robin), two
 * workers, PostgreSQL, Redis. Intake records 200 tasks as pending rows; each task.completed
 * delivery is sent twice, 1 s apart, through nginx. The trigger's memory of deliveries lives in
 * each process, so a copy landing on the other process starts a second run; the tail's claim
 * (pending → processing, one conditional UPDATE in PostgreSQL) lets one through.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { sleep } = require('../../../harness/fixtures.js');
const { rest, waitFor, waitPublished } = require('../../../harness/n8n.js');
const { registeredWebhooks } = require('../../e2e/lib/emulator-client.js');
const {
	UNFINISHED,
	deliveryBody,
	deliverWithRetries,
	inPool,
	registrationOf,
	executionTotal,
} = require('../../e2e/lib/deliveries.js');
const {
	PROD,
	TRIGGER,
	productionWorkflow,
	createTable,
	tableRows,
	sinkCalls,
	countBy,
	eachOnce,
	callsPerTask,
	emulatorSettings,
	intakeDocuments,
	intake,
} = require('../../e2e/lib/production.js');
const state = require('../../../harness/state.js');
const { useQueueSuite, queue } = require('../../../harness/queue/setup.js');

useQueueSuite();

const DELIVERIES = Number(process.env.QUEUE_PRODUCTION_DELIVERIES || 200);
/** On this shared 2-CPU machine an answer can take longer than the service's 10 s. */
const ANSWER_TIMEOUT_MS = 30000;
/** Documents per Intake loop: the example's 5 would take minutes for 200. */
const INTAKE_BATCH = 50;

/** Imports the workflow with main's environment and publishes it through main's REST API. */
async function importAndPublish(stack, wf) {
	const dir = path.join(state.tmp, 'production-workflows');
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, `${wf.id}.json`), JSON.stringify(wf));
	await stack.cli(['import:workflow', '--separate', `--input=${dir}`]);
	const { versionId } = await rest('GET', `/workflows/${wf.id}`);
	await rest('POST', `/workflows/${wf.id}/activate`, { versionId });
	await waitPublished(wf.id, versionId);
}

/** The trigger's registration: the path of its URL (served by every webhook process), its secret. */
async function triggerOf(wf) {
	const webhookId = wf.nodes.find((n) => n.name === TRIGGER).webhookId;
	const hook = await waitFor(`${wf.name} to register its webhook`, async () =>
		(await registeredWebhooks()).find((w) => w.url.includes(webhookId)),
	);
	const { nodeData } = await registrationOf(wf.id, TRIGGER);
	assert.match(String(nodeData.registration?.secret), /^whsec_/, 'no registration secret stored');
	return { path: new URL(hook.url).pathname, secret: nodeData.registration.secret };
}

/** Where each copy went, from nginx's access log: {perProcess: {webhook: n, …}, split: tasks on both}. */
function landing(stack, hookPath, taskIds) {
	const byPort = { [stack.ports.webhook]: 'webhook', [stack.ports.webhook2]: 'webhook2' };
	const processesOf = {};
	const perProcess = { webhook: 0, webhook2: 0 };
	for (const entry of stack.nginx.accessLog()) {
		if (entry.uri !== hookPath) continue;
		let taskId;
		try {
			taskId = JSON.parse(entry.body).task_id;
		} catch {
			continue;
		}
		if (!taskIds.includes(taskId)) continue;
		const name = byPort[entry.upstream.split(':').pop()] ?? entry.upstream;
		perProcess[name] = (perProcess[name] ?? 0) + 1;
		(processesOf[taskId] ??= new Set()).add(name);
	}
	return { perProcess, split: Object.values(processesOf).filter((s) => s.size > 1).length };
}

test('Production: 200 deliveries, each twice 1 s apart, through nginx to two webhook processes, reach the downstream step exactly once', async (t) => {
	const { stack } = queue;
	const proxy = await stack.startWebhookPool();
	// the service's own deliveries must not come during the case: its tasks run for half an hour
	await emulatorSettings({ processing_ms: 30 * 60 * 1000 });
	try {
		const production = productionWorkflow({
			sinkUrl: `${state.emulatorUrl}/_emulator/sink/crm`,
			batchSize: INTAKE_BATCH,
			catchUpSeconds: 50,
		});
		await importAndPublish(stack, production);
		const table = await createTable();

		const intakeStart = Date.now();
		const documents = intakeDocuments(DELIVERIES, 'QP');
		const rows = await intake(proxy.url, documents);
		const intakeS = (Date.now() - intakeStart) / 1000;
		const refused = rows.find((e) => e.state !== 'accepted' || !e.task_id);
		assert.equal(refused, undefined, JSON.stringify(refused));
		const taskIds = rows.map((r) => r.task_id);

		// each copy retried as the service does while not answered 2xx: a timed-out copy would
		// tell nothing about duplicates
		const hook = await triggerOf(production);
		const runsBefore = await executionTotal(PROD.id);
		const attempts = (
			await inPool(taskIds, 25, async (taskId) => {
				const body = deliveryBody({ task_id: taskId });
				const send = () =>
					deliverWithRetries(`${proxy.url}${hook.path}`, body, hook.secret, ANSWER_TIMEOUT_MS);
				const first = await send();
				await sleep(1000);
				return [first, await send()];
			})
		).flat();
		const nginxErrors = proxy.errorLog().slice(-5).join(' | ') || '(empty)';
		const final = countBy(attempts, (statuses) => statuses.at(-1));
		assert.deepEqual(final, { 200: DELIVERIES * 2 }, `nginx error log: ${nginxErrors}`);
		const retried = attempts.filter((statuses) => statuses.length > 1).length;

		let calls = [];
		await waitFor(
			() => `${DELIVERIES} tasks downstream (${calls.length} calls so far)`,
			async () => {
				calls = (await sinkCalls()).filter((c) => taskIds.includes(c.body?.task_id));
				return new Set(calls.map((c) => c.body.task_id)).size >= DELIVERIES;
			},
			240000,
			1000,
		);
		await waitFor(
			'every run to finish',
			async () => (await executionTotal(PROD.id, UNFINISHED)) === 0,
			240000,
			1000,
		);
		await sleep(3000);
		calls = (await sinkCalls()).filter((c) => taskIds.includes(c.body?.task_id));
		const where = landing(stack, hook.path, taskIds);
		const runs = (await executionTotal(PROD.id)) - runsBefore;
		const perTask = callsPerTask(calls);
		assert.ok(
			where.perProcess.webhook > 0 && where.perProcess.webhook2 > 0,
			`copies per process ${JSON.stringify(where.perProcess)}`,
		);
		assert.ok(where.split > 0, 'no delivery had its copies on both webhook processes');
		// the case proves the claim only if copies got past the processes' own duplicate checks
		assert.ok(runs > DELIVERIES, `${runs} runs: no copy started a second run`);
		assert.deepEqual(perTask, eachOnce(taskIds), 'each task downstream once');
		for (const { body } of calls)
			assert.equal(body.customer, documents[taskIds.indexOf(body.task_id)].customer);
		const byTask = Object.fromEntries((await tableRows(table)).map((r) => [r.task_id, r]));
		const notDone = taskIds.filter((id) => byTask[id]?.status !== 'done');
		assert.deepEqual(notDone, [], 'rows not marked done');
		t.diagnostic(
			`Intake: ${DELIVERIES} documents in ${intakeS.toFixed(0)} s; ${DELIVERIES * 2} copies, per webhook process ${JSON.stringify(where.perProcess)}, ${where.split} deliveries on both; ${runs} runs, ${calls.length} downstream; ${retried} copies answered 200 only on a retry`,
		);
	} finally {
		await emulatorSettings({ processing_ms: queue.processingMs });
	}
});
