'use strict';

/**
 * The trigger against replays and a webhook deleted in the dashboard, in a running n8n: a
 * correctly signed delivery dated two days ago starts no run, and after the registration is
 * deleted at the service, Register Again on Next Publish gets deliveries flowing again without
 * changing the workflow's URL or project. Runs after cases/trigger.test.js, on its published
 * example trigger.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { EXAMPLE_TRIGGER_ID, FILES, sleep } = require('../../../harness/fixtures.js');
const { rest, waitFor, waitExecutions } = require('../../../harness/n8n.js');
const {
	submitDirect,
	triggerRegistrations,
	waitDelivered,
	waitTask,
	waitWebhookLive,
	probeWebhook,
} = require('../lib/emulator-client.js');
const {
	deliveryBody,
	post,
	registrationOf,
	executionTotal,
	settledExecutionTotal,
} = require('../lib/deliveries.js');
const { editTriggerAndPublish } = require('../lib/publishing.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const WF = EXAMPLE_TRIGGER_ID;
const DAY = 24 * 60 * 60 * 1000;

async function secret() {
	const { nodeData } = await registrationOf(WF);
	assert.match(String(nodeData.registration?.secret), /^whsec_/, 'no registration secret stored');
	return nodeData.registration.secret;
}

/** POSTs a signed body and returns n8n's status and parsed answer. */
async function deliver(body, key) {
	const crypto = require('node:crypto');
	const res = await fetch(state.triggerUrl, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'x-service-signature': crypto.createHmac('sha256', key).update(body).digest('hex'),
		},
		body,
		signal: AbortSignal.timeout(10000),
	});
	const text = await res.text();
	let json;
	try {
		json = JSON.parse(text);
	} catch {
		json = text;
	}
	return { status: res.status, json };
}

test('Trigger security: a correctly signed delivery dated two days ago starts no run; a fresh one does', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const key = await secret();
	const before = await settledExecutionTotal(WF, 0, { settleMs: 0 });

	const old = deliveryBody({ timestamp: new Date(Date.now() - 2 * DAY).toISOString() });
	const replayed = await deliver(old, key);
	assert.equal(replayed.status, 200, JSON.stringify(replayed));
	assert.match(String(replayed.json.ignored), /^timestamp too old: 2 days before n8n's clock/);

	const undated = JSON.stringify({ ...JSON.parse(deliveryBody()), timestamp: undefined });
	const missing = await deliver(undated, key);
	assert.equal(missing.status, 400, JSON.stringify(missing));
	assert.match(String(missing.json.error), /timestamp missing/);

	await sleep(2500);
	assert.equal(await executionTotal(WF), before, 'a replayed or undated delivery started a run');

	// control: the same task, dated now, runs once
	const fresh = JSON.stringify({ ...JSON.parse(old), timestamp: new Date().toISOString() });
	assert.equal(await post(state.triggerUrl, fresh, key), 200);
	const runs = (await settledExecutionTotal(WF, before + 1)) - before;
	assert.equal(runs, 1, `${runs} runs for the fresh delivery`);
	t.diagnostic(`two days old: 200 ${JSON.stringify(replayed.json)}; undated: 400; fresh: 1 run`);
});

test('Trigger security: a registration deleted in the dashboard is replaced with Register Again on Next Publish', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const [registered] = await triggerRegistrations();
	assert.ok(registered, 'no registration at the service');

	// unpublish, delete the webhook at the service as in its dashboard
	await rest('POST', `/workflows/${WF}/deactivate`, {});
	await waitFor(
		'the webhook to be unpublished',
		async () => (await probeWebhook(state.triggerUrl)) === 404,
	);
	const deleted = await fetch(`${state.emulatorUrl}/_emulator/webhooks/${registered.webhook_id}`, {
		method: 'DELETE',
	});
	assert.equal(deleted.status, 200);
	assert.deepEqual(await triggerRegistrations(), []);

	// turn the option on and publish: a new registration, same URL and project
	await editTriggerAndPublish({ registerAgain: true });
	await waitWebhookLive(state.triggerUrl);
	const hooks = await waitFor('a new registration', async () => {
		const found = await triggerRegistrations();
		return found.length ? found : undefined;
	});
	assert.equal(hooks.length, 1, JSON.stringify(hooks));
	assert.notEqual(hooks[0].webhook_id, registered.webhook_id);
	assert.equal(hooks[0].url, state.triggerUrl);
	assert.equal(hooks[0].project_id, registered.project_id);

	// a real delivery arrives and runs
	const before = await settledExecutionTotal(WF, 0, { settleMs: 0 });
	const taskId = await submitDirect(FILES.a);
	const task = await waitTask(taskId);
	assert.equal(task.status, 'complete');
	const { deliveries, attempts } = await waitDelivered(taskId);
	assert.equal(deliveries.length, 1, JSON.stringify(deliveries));
	assert.equal(attempts[0].status_code, 200, `the delivery answered ${attempts[0].status_code}`);
	await waitExecutions(WF, before + 1);

	// turned off again and published: the new registration is kept, nothing registered
	await editTriggerAndPublish({ registerAgain: false });
	await waitWebhookLive(state.triggerUrl);
	const after = await triggerRegistrations();
	assert.deepEqual(
		after.map((h) => h.webhook_id),
		[hooks[0].webhook_id],
	);
	t.diagnostic(
		`deleted ${registered.webhook_id}, registered again as ${hooks[0].webhook_id}; delivery 200 and a run`,
	);
});
