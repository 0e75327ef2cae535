'use strict';

/**
 * The trigger in a running n8n (published example trigger-to-crm.json): registration, signed
 * deliveries, copies, publishing under traffic, restarts; the cases build on each other. What the
 * trigger decides alone (signature, timestamp window, memory of deliveries) is unit-tested
 * (test/unit/nodes/DocumentExtractionTrigger); here is what n8n can break: its HTTP layer reads
 * the body, answers a sender that hung up, runs copies side by side, re-adds the webhook.
 */

const assert = require('node:assert/strict');
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
	executionData,
	executionsOf,
	waitFor,
	waitPublished,
} = require('../../../harness/n8n.js');
const {
	submitDirect,
	waitTask,
	triggerRegistrations,
	requestCount,
	waitDelivered,
	waitWebhookLive,
} = require('../lib/emulator-client.js');
const { editTriggerAndPublish, unpublishAndPublish } = require('../lib/publishing.js');
const {
	deliveryBody,
	post,
	postAndHangUp,
	deliverWithRetries,
	registrationOf,
	settledExecutionTotal,
} = require('../lib/deliveries.js');
const { countBy } = require('../lib/production.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const WF = EXAMPLE_TRIGGER_ID;

/** Runs `send`; the runs it started, once as many as it returns (1 if none) finished, and 3 s. */
async function runsOf(send) {
	const before = await settledExecutionTotal(WF, 0, { settleMs: 0 });
	const expected = (await send()) ?? 1;
	return (await settledExecutionTotal(WF, before + expected)) - before;
}

async function secret() {
	const { nodeData } = await registrationOf(WF);
	assert.match(String(nodeData.registration?.secret), /^whsec_/, 'no registration secret stored');
	return nodeData.registration.secret;
}

/**
 * Submits a file; its signed delivery is acknowledged at once and starts one run, which ran the
 * trigger and the CRM node with the task's fields. Returns the CRM record.
 */
async function deliverRealTask(file) {
	let task;
	const runs = await runsOf(async () => {
		task = await waitTask(await submitDirect(file));
		const { deliveries, attempts } = await waitDelivered(task.task_id);
		assert.deepEqual(
			[task.status, deliveries.length, deliveries[0].state, attempts[0].status_code],
			['complete', 1, 'delivered', 200],
			JSON.stringify({ deliveries, attempts }),
		);
	});
	assert.equal(runs, 1, `${runs} runs for one delivery`);
	const newest = (await executionsOf(WF)).reduce((a, b) => (Number(a.id) > Number(b.id) ? a : b));
	const execution = await executionData(newest.id);
	assert.equal(execution.status, 'success', `execution ${newest.id} is ${execution.status}`);
	const runData = execution.data[0]?.resultData?.runData ?? execution.data.resultData?.runData;
	const delivered = runData[TRIGGER_NODE][0].data.main[0][0].json;
	assert.deepEqual(
		[delivered.event, delivered.task_id, delivered.status, delivered.project_id],
		['task.completed', task.task_id, 'complete', INVOICES_ID],
	);
	assert.equal(delivered.result.file_sha256, sha256(file.bytes));
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
	await n8nCliOk(['publish:workflow', `--id=${WF}`]);
	await startN8n();
	const hooks = await waitFor('the trigger to register its webhook', async () => {
		const found = await triggerRegistrations();
		return found.length ? found : undefined;
	});
	await waitWebhookLive(hooks[0].url);
	await waitPublished(WF);
	const after = await triggerRegistrations();
	assert.equal(after.length, 1, `registrations: ${JSON.stringify(after)}`);
	assert.deepEqual([after[0].project_id, after[0].events], [INVOICES_ID, ['task.completed']]);
	assert.match(after[0].url, new RegExp(`^http://127\\.0\\.0\\.1:${state.n8nPort}/webhook/`));
	state.triggerUrl = after[0].url;
	t.diagnostic(state.triggerUrl);
});

test('Trigger: a real signed delivery runs the workflow exactly once with the right fields', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const crm = await deliverRealTask(FILES.t);
	t.diagnostic(`CRM record ${JSON.stringify(crm)}`);
});

test('Trigger: copies of one delivery start one run (twice 1 s apart; three copies at once)', async () => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const key = await secret();
	const send = (body) => post(state.triggerUrl, body, key);
	const runs = {
		twice: await runsOf(async () => {
			const body = deliveryBody();
			const first = await send(body);
			await sleep(1000);
			assert.deepEqual([first, await send(body)], [200, 200], 'both copies acknowledged');
		}),
		atOnce: await runsOf(async () => {
			const body = deliveryBody();
			assert.deepEqual(await Promise.all([1, 2, 3].map(() => send(body))), [200, 200, 200]);
		}),
	};
	assert.deepEqual(runs, { twice: 1, atOnce: 1 }, `runs per delivery: ${JSON.stringify(runs)}`);
});

// n8n's HTTP layer decides whether a sender that hung up still starts a run
test('Trigger: a sender that hangs up before the answer, then sends again, starts one run', async () => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const key = await secret();
	const outcomes = {};
	for (const afterMs of [0, 20, 80])
		outcomes[`${afterMs} ms`] = await runsOf(async () => {
			const body = deliveryBody();
			await postAndHangUp(state.triggerUrl, body, key, afterMs);
			await sleep(1000);
			// the service's retry: acknowledged at once (a copy, or the first run when the hang-up
			// came before n8n read the body)
			const retry = await post(state.triggerUrl, body, key, 4000);
			assert.equal(retry, 200, `the retry after a hang-up at ${afterMs} ms answered ${retry}`);
		});
	assert.deepEqual(outcomes, { '0 ms': 1, '20 ms': 1, '80 ms': 1 }, JSON.stringify(outcomes));
});

// whether n8n reads the body before the trigger does depends on its body parser and its version;
// a forged delivery (wrong secret) is refused with 401 and starts nothing
test('Trigger: a body in a content type n8n does not parse is read by the trigger, verified and run; a forged one gets 401', async () => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const key = await secret();
	const octet = (body, secret) =>
		post(state.triggerUrl, body, secret, 10000, 'application/octet-stream');
	const runs = await runsOf(async () => {
		assert.equal(await octet(deliveryBody(), key), 200);
		assert.equal(await octet(deliveryBody(), 'whsec_wrong'), 401);
	});
	assert.equal(runs, 1, `${runs} runs`);
});

test('Trigger: publishing again while deliveries arrive keeps the registration and its secret', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const key = await secret();
	const registrationsBefore = await triggerRegistrations();
	let publishing = true;
	const deliveries = [];
	const runs = await runsOf(async () => {
		// deliveries arrive throughout, each retried as the service does (1, 4, 16 s), 2.5 a second:
		// n8n on SQLite writes each run through one connection, and two suites share two cores
		const sender = (async () => {
			while (publishing) {
				deliveries.push(deliverWithRetries(state.triggerUrl, deliveryBody(), key));
				await sleep(400);
			}
		})();
		try {
			await editTriggerAndPublish({ fetchErrorDetails: false });
			await unpublishAndPublish();
			await editTriggerAndPublish({ fetchErrorDetails: true });
			await sleep(1000);
		} finally {
			publishing = false; // on a failure too, or the suite would never end
			await sender;
		}
		return (await Promise.all(deliveries)).length;
	});
	const attempts = await Promise.all(deliveries);
	const tally = JSON.stringify(countBy(attempts.flat(), String));
	assert.ok(!attempts.flat().includes(401), `a correctly signed delivery was refused: ${tally}`);
	assert.ok(
		attempts.every((statuses) => statuses.at(-1) === 200),
		`not acknowledged: ${tally}`,
	);
	assert.equal(runs, attempts.length, `${runs} runs for ${attempts.length} deliveries`);
	assert.equal(await secret(), key, 'publishing changed the signing secret');
	assert.deepEqual(
		(await triggerRegistrations()).map((r) => r.url),
		registrationsBefore.map((r) => r.url),
	);
	t.diagnostic(
		`${attempts.length} deliveries during edit, unpublish and publish: attempts ${tally}`,
	);
});

test('Trigger: a restart, and publishing again from the CLI, register no second webhook; deliveries still run once', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const lookups = {};
	for (const [step, cli] of [
		['restart', []],
		['publish:workflow again, restart', ['publish:workflow', `--id=${WF}`]],
	]) {
		const before = await requestCount('projects');
		await stopN8n();
		if (cli.length) await n8nCliOk(cli);
		await startN8n();
		// give the startup reconciliation a moment to enqueue anything it finds
		await waitPublished(WF);
		await sleep(3000);
		await waitPublished(WF);
		await waitWebhookLive(state.triggerUrl);
		const hooks = await triggerRegistrations();
		lookups[step] = (await requestCount('projects')) - before;
		assert.deepEqual(
			hooks.map((h) => h.url),
			[state.triggerUrl],
			`after "${step}": ${JSON.stringify(hooks)}`,
		);
	}
	await deliverRealTask(FILES.r);
	t.diagnostic(`one registration after each; GET /projects calls ${JSON.stringify(lookups)}`);
});
