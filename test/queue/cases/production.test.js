'use strict';

/**
 * The production workflow of examples/production.json at scale: two n8n webhook processes behind
 * nginx (round-robin, 127.0.0.1), two workers, PostgreSQL and Redis. Its intake records the tasks
 * as pending Data Table rows; then every task's task.completed delivery is sent twice, the second
 * copy 1 s after the first as the service's retry does, through nginx, so that copies land on
 * both webhook processes. The trigger's duplicate check lives in each process, so a copy that
 * lands on the other process starts a second run; the tail's conditional update (pending →
 * processing, one UPDATE … RETURNING in PostgreSQL) lets one run through. The same deliveries to
 * a control copy of the workflow without that claim show copies reaching the downstream step.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { sleep } = require('../../../harness/fixtures.js');
const { rest, waitFor, waitPublished } = require('../../../harness/n8n.js');
const { registeredWebhooks } = require('../../e2e/lib/emulator-client.js');
const {
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
	controlWorkflow,
	createTable,
	tableRows,
	sinkCalls,
	callsPerTask,
	emulatorSettings,
	intakeDocuments,
	intake,
} = require('../../e2e/lib/production.js');
const state = require('../../../harness/state.js');
const { useQueueSuite, queue } = require('../../../harness/queue/setup.js');

useQueueSuite();

const DELIVERIES = Number(process.env.QUEUE_PRODUCTION_DELIVERIES || 200);
const UNFINISHED = ['new', 'running', 'waiting', 'queued'];
const ANSWER_TIMEOUT_MS = 30000;
/**
 * Documents per Intake loop. The example's 5 bounds what a crash leaves in `sending` (the e2e crash
 * case); here the subject is the claim, and 400 documents in loops of 5 would take minutes.
 */
const INTAKE_BATCH = 50;

/** Imports the workflows with main's environment and publishes them through main's REST API. */
async function importAndPublish(stack, workflows) {
	const dir = path.join(state.tmp, 'production-workflows');
	fs.mkdirSync(dir, { recursive: true });
	for (const wf of workflows) fs.writeFileSync(path.join(dir, `${wf.id}.json`), JSON.stringify(wf));
	await stack.cli(['import:workflow', '--separate', `--input=${dir}`]);
	for (const wf of workflows) {
		const { versionId } = await rest('GET', `/workflows/${wf.id}`);
		await rest('POST', `/workflows/${wf.id}/activate`, { versionId });
		await waitPublished(wf.id, versionId);
	}
}

/** The trigger's registration: the path of its URL (served by every webhook process) and its secret. */
async function triggerOf(completion) {
	const webhookId = completion.nodes.find((n) => n.name === TRIGGER).webhookId;
	const hook = await waitFor(`${completion.name} to register its webhook`, async () =>
		(await registeredWebhooks()).find((w) => w.url.includes(webhookId)),
	);
	const { nodeData } = await registrationOf(completion.id, TRIGGER);
	assert.match(String(nodeData.registration?.secret), /^whsec_/, 'no registration secret stored');
	return { path: new URL(hook.url).pathname, secret: nodeData.registration.secret };
}

/**
 * Each task's delivery twice through nginx, the second copy 1 s after the first, 25 deliveries at
 * a time, each copy retried as the service retries it (after 1, 4 and 16 s while the answer is not
 * a 2xx). Waits up to 30 s for an answer: on this shared 2-CPU machine an answer can take longer
 * than the service's 10 s while the workers run, and a timed-out copy would tell nothing about
 * duplicates. Resolves to {final: {status: copies}, retried: [statuses of copies not answered 2xx
 * at once]}.
 */
async function sendTwice(url, taskIds, secret) {
	const copies = await inPool(taskIds, 25, async (taskId) => {
		const body = deliveryBody({ task_id: taskId });
		const send = () => deliverWithRetries(url, body, secret, undefined, ANSWER_TIMEOUT_MS);
		const first = await send();
		await sleep(1000);
		return [first, await send()];
	});
	const attempts = copies.flat();
	const final = {};
	for (const statuses of attempts) final[statuses.at(-1)] = (final[statuses.at(-1)] ?? 0) + 1;
	return { final, retried: attempts.filter((statuses) => statuses.length > 1) };
}

/** The answers of sendTwice checked: every copy answered 2xx in the end; a line for the report. */
function checkAnswers({ final, retried }, proxy) {
	const errors = proxy.errorLog().slice(-5);
	assert.deepEqual(
		final,
		{ 200: DELIVERIES * 2 },
		`final answers ${JSON.stringify(final)}; nginx error log: ${errors.join(' | ') || '(empty)'}`,
	);
	if (retried.length === 0) return 'every copy answered 200 at once';
	return `${retried.length} copies answered 200 only on a retry (${JSON.stringify(retried.slice(0, 3))}); nginx error log: ${errors.join(' | ') || '(empty)'}`;
}

/** Where each copy went, from nginx's access log: {perProcess: {webhook: n, …}, split: tasks on both}. */
function landing(stack, hookPath, taskIds) {
	const byPort = { [stack.ports.webhook]: 'webhook', [stack.ports.webhook2]: 'webhook2' };
	const wanted = new Set(taskIds);
	const perProcess = { webhook: 0, webhook2: 0 };
	const processesOf = {};
	for (const entry of stack.nginx.accessLog()) {
		if (entry.uri !== hookPath) continue;
		let taskId;
		try {
			taskId = JSON.parse(entry.body).task_id;
		} catch {
			continue;
		}
		if (!wanted.has(taskId)) continue;
		const name = byPort[entry.upstream.split(':').pop()] ?? entry.upstream;
		perProcess[name] = (perProcess[name] ?? 0) + 1;
		(processesOf[taskId] ??= new Set()).add(name);
	}
	const split = Object.values(processesOf).filter((s) => s.size > 1).length;
	return { perProcess, split, seen: Object.keys(processesOf).length };
}

/** Waits until `count` tasks reached the sink `name` and no run of the workflows is unfinished. */
async function settle(name, taskIds, count, workflowIds) {
	const wanted = new Set(taskIds);
	let calls = [];
	await waitFor(
		() => `${count} tasks at the downstream step "${name}" (${calls.length} calls so far)`,
		async () => {
			calls = (await sinkCalls(name)).filter((c) => wanted.has(c.body?.task_id));
			return new Set(calls.map((c) => c.body.task_id)).size >= count;
		},
		240000,
		1000,
	);
	await waitFor(
		'every run to finish',
		async () => {
			for (const id of workflowIds) if ((await executionTotal(id, UNFINISHED)) > 0) return false;
			return true;
		},
		240000,
		1000,
	);
	await sleep(3000);
	return (await sinkCalls(name)).filter((c) => wanted.has(c.body?.task_id));
}

test('Production: 200 deliveries, each twice 1 s apart, through nginx to two webhook processes, reach the downstream step exactly once; without the claim copies get through', async (t) => {
	const { stack } = queue;
	const proxy = await stack.startWebhookPool();
	// the service's own deliveries must not come during the case: its tasks run for half an hour
	await emulatorSettings({ processing_ms: 30 * 60 * 1000 });
	try {
		const sink = (name) => `${state.emulatorUrl}/_emulator/sink/${name}`;
		const production = productionWorkflow({
			sinkUrl: sink('crm'),
			batchSize: INTAKE_BATCH,
			catchUpSeconds: 50,
		});
		const control = controlWorkflow({ sinkUrl: sink('crm-control'), catchUpSeconds: 50 });
		await importAndPublish(stack, [production, control]);
		const table = await createTable();

		// Intake through nginx: the tasks and their context as pending rows
		const intakeStart = Date.now();
		const documents = intakeDocuments(DELIVERIES, 'QP');
		const rows = await intake(proxy.url, documents);
		const controlRows = await intake(proxy.url, intakeDocuments(DELIVERIES, 'QC'));
		const intakeS = (Date.now() - intakeStart) / 1000;
		for (const answer of [rows, controlRows]) {
			assert.equal(answer.length, DELIVERIES);
			assert.ok(
				answer.every((e) => e.state === 'accepted' && e.task_id),
				JSON.stringify(answer.find((e) => e.state !== 'accepted' || !e.task_id)),
			);
		}
		const taskIds = rows.map((r) => r.task_id);
		const controlIds = controlRows.map((r) => r.task_id);

		// with the claim
		const hook = await triggerOf(production);
		const runsBefore = await executionTotal(PROD.id);
		const answered = checkAnswers(
			await sendTwice(`${proxy.url}${hook.path}`, taskIds, hook.secret),
			proxy,
		);
		const calls = await settle('crm', taskIds, DELIVERIES, [PROD.id]);
		const where = landing(stack, hook.path, taskIds);
		const runs = (await executionTotal(PROD.id)) - runsBefore;
		const perTask = callsPerTask(calls);
		const twice = Object.entries(perTask).filter(([, n]) => n > 1);
		assert.ok(
			where.perProcess.webhook > 0 && where.perProcess.webhook2 > 0,
			`copies per process ${JSON.stringify(where.perProcess)}`,
		);
		assert.ok(where.split > 0, 'no delivery had its copies on both webhook processes');
		assert.ok(
			runs > DELIVERIES,
			`${runs} runs started: no copy got past the webhook processes' own duplicate checks`,
		);
		assert.equal(
			twice.length,
			0,
			`copies reached the downstream step: ${JSON.stringify(twice.slice(0, 5))}`,
		);
		assert.equal(
			Object.keys(perTask).length,
			DELIVERIES,
			'a task never reached the downstream step',
		);
		for (const call of calls) {
			const i = taskIds.indexOf(call.body.task_id);
			assert.equal(
				call.body.customer,
				documents[i].customer,
				'the downstream step got the wrong context',
			);
		}
		const byTask = Object.fromEntries((await tableRows(table)).map((r) => [r.task_id, r]));
		const notDone = taskIds.filter((id) => byTask[id]?.status !== 'done');
		assert.deepEqual(notDone, [], 'rows not marked done');

		// the control: the same deliveries without the claim
		const controlHook = await triggerOf(control);
		const controlRunsBefore = await executionTotal(control.id);
		const controlAnswered = checkAnswers(
			await sendTwice(`${proxy.url}${controlHook.path}`, controlIds, controlHook.secret),
			proxy,
		);
		const controlCalls = await settle('crm-control', controlIds, DELIVERIES, [control.id]);
		const controlWhere = landing(stack, controlHook.path, controlIds);
		const controlRuns = (await executionTotal(control.id)) - controlRunsBefore;
		const duplicates = controlCalls.length - new Set(controlCalls.map((c) => c.body.task_id)).size;
		assert.ok(
			duplicates > 0,
			'the control let no copy through: the case could not tell the claim works',
		);

		t.diagnostic(
			`Intake: ${DELIVERIES * 2} documents in ${intakeS.toFixed(0)} s (loops of ${INTAKE_BATCH}); with the claim: ${DELIVERIES * 2} copies, per webhook process ${JSON.stringify(where.perProcess)}, ${where.split} deliveries on both; ${runs} runs started, ${calls.length} downstream (each task once); ${answered}. ` +
				`Without: per process ${JSON.stringify(controlWhere.perProcess)}, ${controlWhere.split} on both; ${controlRuns} runs, ${controlCalls.length} downstream, ${duplicates} duplicates; ${controlAnswered}`,
		);
	} finally {
		await emulatorSettings({ processing_ms: queue.processingMs });
	}
});
