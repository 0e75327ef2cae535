'use strict';

/**
 * The trigger in queue mode (example trigger-to-crm.json): main registers it once on publish
 * (the registration goes to the static data), the webhook process serves its production URL and
 * enqueues each signed delivery, a worker runs it; 200 distinct deliveries start 200 runs.
 * The signature check and the memory of copies run in the webhook process as they run in a
 * single n8n (test/e2e/cases/trigger.test.js); copies spread over two webhook processes are the
 * production case's (cases/production.test.js).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const {
	FILES,
	INVOICES_ID,
	TRIGGER_NODE,
	CRM_NODE,
	sha256,
	sleep,
} = require('../../../harness/fixtures.js');
const { rest, waitFor, waitPublished } = require('../../../harness/n8n.js');
const {
	submitDirect,
	waitTask,
	registeredWebhooks,
	waitDelivered,
	waitWebhookLive,
	requestCount,
} = require('../../e2e/lib/emulator-client.js');
const {
	deliveryBody,
	deliverWithRetries,
	inPool,
	settledExecutionTotal,
} = require('../../e2e/lib/deliveries.js');
const { useQueueSuite, queue } = require('../../../harness/queue/setup.js');
const { QWF } = require('../../../harness/queue/workflows.js');
const {
	executionIds,
	waitNewExecutions,
	newExecutionsAfter,
	runDataOf,
	outputItems,
	assertRanOnWorker,
} = require('../lib/runs.js');

useQueueSuite();

const trigger = { url: undefined, secret: undefined };

/** Registrations pointing at the webhook process. */
async function registrations() {
	const prefix = `http://127.0.0.1:${queue.stack.ports.webhook}/`;
	return (await registeredWebhooks()).filter((w) => w.url.startsWith(prefix));
}

test('Trigger: publishing through main registers one webhook, pointing at the webhook process', async (t) => {
	const wf = await rest('GET', `/workflows/${QWF.trigger}`);
	const webhookCalls = await requestCount('webhooks');
	await rest('POST', `/workflows/${QWF.trigger}/activate`, { versionId: wf.versionId });
	await waitPublished(QWF.trigger, wf.versionId);
	const hooks = await waitFor('the trigger to register its webhook', async () => {
		const found = await registrations();
		return found.length ? found : undefined;
	});
	await waitWebhookLive(hooks[0].url);
	await sleep(2000);
	const after = await registrations();
	assert.equal(after.length, 1, `registrations: ${JSON.stringify(after)}`);
	assert.equal(after[0].project_id, INVOICES_ID);
	const published = await rest('GET', `/workflows/${QWF.trigger}`);
	const registration = published.staticData?.[`node:${TRIGGER_NODE}`]?.registration;
	assert.equal(registration?.url, after[0].url, 'the registration is not in the static data');
	assert.match(String(registration.secret), /^whsec_/);
	trigger.url = after[0].url;
	trigger.secret = registration.secret;
	t.diagnostic(
		`${trigger.url}; ${(await requestCount('webhooks')) - webhookCalls} webhooks request(s) to the service`,
	);
});

test('Trigger: a real signed delivery is enqueued by the webhook process and runs once on a worker', async (t) => {
	assert.ok(trigger.url, 'trigger not published');
	const { stack } = queue;
	const known = await executionIds(QWF.trigger);
	const taskId = await submitDirect(FILES.t);
	const task = await waitTask(taskId);
	const { deliveries, attempts } = await waitDelivered(taskId);
	assert.equal(deliveries.length, 1);
	assert.equal(attempts[0].status_code, 200, `delivery answered ${attempts[0].status_code}`);
	await waitNewExecutions(QWF.trigger, known, 1);
	const fresh = await newExecutionsAfter(QWF.trigger, known, 3000);
	assert.equal(fresh.length, 1, `expected one run, got ${fresh.length}`);
	const [e] = fresh;
	assert.equal(e.status, 'success');
	const worker = assertRanOnWorker(stack, e.id);
	assert.match(stack.log('webhook'), new RegExp(`Enqueued execution ${e.id} \\(job`));
	const { runData } = await runDataOf(e.id);
	const delivered = outputItems(runData, TRIGGER_NODE)[0].json;
	assert.equal(delivered.task_id, taskId);
	assert.equal(delivered.result.file_sha256, sha256(FILES.t.bytes));
	assert.equal(outputItems(runData, CRM_NODE)[0].json.invoice_number, task.result.invoice_number);
	t.diagnostic(`execution ${e.id} on ${worker}`);
});

test('Trigger: 200 distinct deliveries, 50 at a time, through the webhook process start 200 runs on the workers', async (t) => {
	assert.ok(trigger.url, 'trigger not published');
	const before = await settledExecutionTotal(QWF.trigger, 0, { settleMs: 0 });
	const bodies = Array.from({ length: 200 }, () => deliveryBody());
	const started = Date.now();
	// each delivery retried as the service retries it (1, 4, 16 s): a webhook process short of CPU
	// may answer 503 or late, and a retried delivery must still start one run, not two
	const attempts = await inPool(bodies, 50, (body) =>
		deliverWithRetries(trigger.url, body, trigger.secret),
	);
	const seconds = (Date.now() - started) / 1000;
	const tally = (list) => list.reduce((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});
	const first = tally(attempts.map((a) => a[0]));
	const final = tally(attempts.map((a) => a.at(-1)));
	assert.deepEqual(
		final,
		{ 200: 200 },
		`answers in the end ${JSON.stringify(final)}; first answers ${JSON.stringify(first)}`,
	);
	const runs =
		(await settledExecutionTotal(QWF.trigger, before + 200, { timeoutMs: 180000 })) - before;
	assert.equal(
		runs,
		200,
		`${runs} runs for 200 distinct deliveries (first answers ${JSON.stringify(first)})`,
	);
	t.diagnostic(
		`200 acknowledged by the webhook process in ${seconds.toFixed(1)} s (first answers ${JSON.stringify(first)}); 200 runs`,
	);
});
