'use strict';

/**
 * The trigger in a running n8n server (published example trigger-to-crm.json): registration,
 * signed deliveries, signature checks, restarts and republishing. The cases build on each
 * other in this order and share the n8n server with cases/credential.test.js.
 */

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { test } = require('node:test');

const {
	CRM_NODE,
	EXAMPLE_TRIGGER_ID,
	FILES,
	INVOICES_ID,
	TRIGGER_NODE,
	sha256,
	sleep,
} = require('../../../harness/fixtures.js');
const {
	n8nCliOk,
	startN8n,
	stopN8n,
	rest,
	executionsOf,
	executionData,
	waitFor,
	waitExecutions,
	waitPublished,
} = require('../../../harness/n8n.js');
const {
	submitDirect,
	waitTask,
	requestCount,
	triggerRegistrations,
	deliverRaw,
	waitDelivered,
	waitWebhookLive,
} = require('../lib/emulator-client.js');
const { editTriggerAndPublish, unpublishAndPublish } = require('../lib/publishing.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const executionCount = async () => (await executionsOf(EXAMPLE_TRIGGER_ID)).length;

/** Submits a file, waits for its signed delivery and the runs it causes. */
async function deliverRealTask(file, expectedRuns) {
	const taskId = await submitDirect(file);
	const task = await waitTask(taskId);
	assert.equal(task.status, 'complete');
	const { deliveries, attempts } = await waitDelivered(taskId);
	assert.equal(
		deliveries.length,
		1,
		`expected one delivery of ${taskId}, got ${deliveries.length}`,
	);
	assert.equal(deliveries[0].state, 'delivered', `delivery ${JSON.stringify(deliveries[0])}`);
	assert.equal(attempts[0].status_code, 200, `first attempt answered ${attempts[0].status_code}`);
	const executions = await waitExecutions(EXAMPLE_TRIGGER_ID, expectedRuns);
	return { taskId, task, executions };
}

/** The stored execution ran the trigger and the CRM node with the task's fields. */
async function checkTriggerRun(executionId, file, task) {
	const execution = await executionData(executionId);
	assert.equal(execution.status, 'success', `execution ${executionId} is ${execution.status}`);
	const runData = execution.data[0]?.resultData?.runData ?? execution.data.resultData?.runData;
	const triggerJson = runData[TRIGGER_NODE][0].data.main[0][0].json;
	assert.equal(triggerJson.event, 'task.completed');
	assert.equal(triggerJson.task_id, task.task_id);
	assert.equal(triggerJson.status, 'complete');
	assert.equal(triggerJson.project_id, INVOICES_ID);
	assert.equal(triggerJson.result.file_sha256, sha256(file.bytes));
	const crm = runData[CRM_NODE][0].data.main[0][0].json;
	assert.deepEqual(crm, {
		vendor: task.result.vendor_name,
		invoice_number: task.result.invoice_number,
		total: task.result.total_amount,
		currency: task.result.currency,
		task_id: task.task_id,
	});
	return crm;
}

test('Trigger: publishing registers one webhook with the production URL', async (t) => {
	await n8nCliOk(['publish:workflow', `--id=${EXAMPLE_TRIGGER_ID}`]);
	await startN8n();
	const hooks = await waitFor('the trigger to register its webhook', async () => {
		const found = await triggerRegistrations();
		return found.length ? found : undefined;
	});
	await waitWebhookLive(hooks[0].url);
	await waitPublished(EXAMPLE_TRIGGER_ID);
	const after = await triggerRegistrations();
	assert.equal(after.length, 1, `registrations: ${JSON.stringify(after)}`);
	assert.equal(after[0].project_id, INVOICES_ID);
	assert.deepEqual(after[0].events, ['task.completed']);
	assert.match(after[0].url, new RegExp(`^http://127\\.0\\.0\\.1:${state.n8nPort}/webhook/`));
	state.triggerUrl = after[0].url;
	t.diagnostic(after[0].url);
});

test('Trigger: a real signed delivery runs the workflow exactly once with the right fields', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const { task, executions } = await deliverRealTask(FILES.t, 1);
	assert.equal(executions.length, 1, `expected 1 execution, got ${executions.length}`);
	const crm = await checkTriggerRun(executions[0].id, FILES.t, task);
	t.diagnostic(`CRM record ${JSON.stringify(crm)}`);
});

test('Trigger: a failed task is acknowledged but filtered out (Status: Complete Only)', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const before = await executionCount();
	const taskId = await submitDirect(FILES.b);
	const task = await waitTask(taskId);
	assert.equal(task.status, 'failed');
	const { deliveries, attempts } = await waitDelivered(taskId);
	assert.equal(deliveries[0].state, 'delivered', `delivery ${JSON.stringify(deliveries[0])}`);
	assert.equal(attempts.length, 1, `${attempts.length} attempts`);
	assert.equal(attempts[0].status_code, 200);
	await sleep(2500);
	const after = await executionCount();
	assert.equal(after, before, `${after - before} executions for a filtered-out failed task`);
	t.diagnostic(`task ${taskId}: 200, no run`);
});

test('Trigger: wrong, missing and tampered signatures get 401 and start nothing', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const before = await executionCount();
	const body = JSON.stringify({
		event: 'task.completed',
		task_id: crypto.randomUUID(),
		status: 'complete',
		result: {
			invoice_number: 'INV-FORGED',
			vendor_name: 'Mallory Ltd',
			total_amount: 1,
			currency: 'EUR',
		},
		project_id: INVOICES_ID,
		document_type: 'invoice',
		timestamp: new Date().toISOString(),
	});
	const workflowData = await rest('GET', `/workflows/${EXAMPLE_TRIGGER_ID}`);
	const secret = workflowData.staticData?.[`node:${TRIGGER_NODE}`]?.registration?.secret;
	assert.match(String(secret), /^whsec_/, 'registration secret not found in the static data');
	const hmac = (key, text) => crypto.createHmac('sha256', key).update(text).digest('hex');
	const goodSignature = hmac(secret, body);
	const tampered = body.replace('"total_amount":1', '"total_amount":1000000');
	assert.notEqual(tampered, body);
	const url = state.triggerUrl;
	const attempts = {
		wrong: { url, body, signature: hmac('whsec_wrong', body) },
		missing: { url, body, signature: null },
		tampered: { url, body: tampered, signature: goodSignature },
		uppercase: { url, body, signature: goodSignature.toUpperCase() },
		garbage: { url, body, signature: 'not-a-signature' },
	};
	const codes = {};
	for (const [name, request] of Object.entries(attempts)) {
		codes[name] = (await deliverRaw(request)).status_code;
	}
	await sleep(2000);
	const after = await executionCount();
	assert.deepEqual(codes, {
		wrong: 401,
		missing: 401,
		tampered: 401,
		uppercase: 401,
		garbage: 401,
	});
	assert.equal(after, before, `${after - before} executions started by bad deliveries`);
	// control: the same body with the right signature is accepted and runs once
	const control = await deliverRaw({ url, body, secret });
	assert.equal(
		control.status_code,
		200,
		`correctly signed delivery answered ${control.status_code}`,
	);
	const list = await waitExecutions(EXAMPLE_TRIGGER_ID, before + 1);
	assert.equal(list.length, before + 1, 'the correctly signed delivery should run once');
	t.diagnostic(`401 for ${Object.keys(codes).join(', ')}; control 200 and one run`);
});

/** After a start, gives the startup reconciliation a moment to enqueue anything it finds. */
async function settleAfterStart() {
	await waitPublished(EXAMPLE_TRIGGER_ID);
	await sleep(3000);
	await waitPublished(EXAMPLE_TRIGGER_ID);
}

test('Trigger: restart and publishing again register no second webhook; deliveries still run once', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const counts = {};
	const lookups = {};
	const steps = {
		restart: async () => {
			await stopN8n();
			await startN8n();
			await settleAfterStart();
		},
		'publish:workflow again, restart': async () => {
			await stopN8n();
			await n8nCliOk(['publish:workflow', `--id=${EXAMPLE_TRIGGER_ID}`]);
			await startN8n();
			await settleAfterStart();
		},
		'edit the trigger, publish': () => editTriggerAndPublish({ fetchErrorDetails: true }),
		'unpublish, publish': unpublishAndPublish,
	};
	for (const [name, fn] of Object.entries(steps)) {
		const before = await requestCount('projects');
		await fn();
		await waitWebhookLive(state.triggerUrl);
		const hooks = await triggerRegistrations();
		counts[name] = hooks.length;
		lookups[name] = (await requestCount('projects')) - before;
		assert.equal(
			hooks.length,
			1,
			`after "${name}": ${hooks.length} registrations ${JSON.stringify(hooks)}`,
		);
		assert.equal(hooks[0].url, state.triggerUrl, `after "${name}": the webhook URL changed`);
	}
	// the one registration still delivers, and each delivery runs once
	const before = await executionCount();
	const { task, executions } = await deliverRealTask(FILES.r, before + 1);
	assert.equal(
		executions.length,
		before + 1,
		`expected ${before + 1} executions, got ${executions.length}`,
	);
	const newest = executions.reduce((a, b) => (Number(a.id) > Number(b.id) ? a : b));
	await checkTriggerRun(newest.id, FILES.r, task);
	t.diagnostic(
		`registrations ${JSON.stringify(counts)}; GET /projects calls ${JSON.stringify(lookups)}`,
	);
});
