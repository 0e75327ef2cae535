'use strict';

/**
 * The trigger in queue mode (example trigger-to-crm.json): main registers it once on publish, the
 * webhook process serves its URL and enqueues each signed delivery, a worker runs it. Signatures
 * and copies are checked in the webhook process as in one n8n (test/e2e/cases/trigger.test.js).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { INVOICES_ID, TRIGGER_NODE, sleep } = require('../../../harness/fixtures.js');
const { executionsOf, rest, waitFor, waitPublished } = require('../../../harness/n8n.js');
const {
	registeredWebhooks,
	waitWebhookLive,
	requestCount,
} = require('../../e2e/lib/emulator-client.js');
const {
	deliveryBody,
	deliverWithRetries,
	inPool,
	settledExecutionTotal,
} = require('../../e2e/lib/deliveries.js');
const { countBy } = require('../../e2e/lib/production.js');
const { useQueueSuite, queue } = require('../../../harness/queue/setup.js');
const { QWF } = require('../../../harness/queue/workflows.js');
const { assertRanOnWorker } = require('../lib/runs.js');

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

test('Trigger: 200 distinct deliveries, 50 at a time, through the webhook process start 200 runs on the workers', async (t) => {
	assert.ok(trigger.url, 'trigger not published');
	const before = await settledExecutionTotal(QWF.trigger, 0, { settleMs: 0 });
	const started = Date.now();
	// each retried as the service retries it: a webhook process short of CPU may answer 503 or
	// late, and a retried delivery must still start one run, not two
	const attempts = await inPool(Array.from({ length: 200 }, deliveryBody), 50, (body) =>
		deliverWithRetries(trigger.url, body, trigger.secret),
	);
	const seconds = (Date.now() - started) / 1000;
	const first = JSON.stringify(countBy(attempts, (a) => a[0]));
	const final = countBy(attempts, (a) => a.at(-1));
	assert.deepEqual(final, { 200: 200 }, `first answers ${first}`);
	const settled = await settledExecutionTotal(QWF.trigger, before + 200, { timeoutMs: 180000 });
	assert.equal(settled - before, 200, `runs for 200 distinct deliveries (first answers ${first})`);
	// enqueued by the webhook process, run on a worker
	const newest = Math.max(...(await executionsOf(QWF.trigger)).map((e) => Number(e.id)));
	const worker = assertRanOnWorker(queue.stack, newest);
	assert.match(queue.stack.log('webhook'), new RegExp(`Enqueued execution ${newest} \\(job`));
	t.diagnostic(
		`200 acknowledged in ${seconds.toFixed(1)} s (first answers ${first}); 200 runs; execution ${newest} on ${worker}`,
	);
});
