'use strict';

/**
 * The trigger in a running n8n server (published example trigger-to-crm.json): registration on
 * publishing, signed deliveries, refusals, copies, publishing under traffic and restarts. The
 * cases build on each other in this order and share the n8n server with the cases after them.
 *
 * What the trigger decides by itself (signature, timestamp window, status filter, the memory of
 * recent deliveries, registration reuse) is unit-tested (test/unit/nodes/DocumentExtractionTrigger).
 * Here each behaviour is one n8n can break: its HTTP layer reads (or does not read) the body,
 * answers a sender that hung up, runs copies side by side, and deletes and adds the webhook while
 * publishing or restarting.
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
	deliverRaw,
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
	executionTotal,
	settledExecutionTotal,
} = require('../lib/deliveries.js');
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

/** Submits a file, waits for its signed delivery and the one run it causes; returns the newest run. */
async function deliverRealTask(file) {
	const before = await executionTotal(WF);
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
	const runs = (await settledExecutionTotal(WF, before + 1)) - before;
	assert.equal(runs, 1, `${runs} runs for one delivery`);
	const newest = (await executionsOf(WF)).reduce((a, b) => (Number(a.id) > Number(b.id) ? a : b));
	return { task, newest };
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
	assert.equal(after[0].project_id, INVOICES_ID);
	assert.deepEqual(after[0].events, ['task.completed']);
	assert.match(after[0].url, new RegExp(`^http://127\\.0\\.0\\.1:${state.n8nPort}/webhook/`));
	state.triggerUrl = after[0].url;
	t.diagnostic(after[0].url);
});

test('Trigger: a real signed delivery runs the workflow exactly once with the right fields', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const { task, newest } = await deliverRealTask(FILES.t);
	const crm = await checkTriggerRun(newest.id, FILES.t, task);
	t.diagnostic(`CRM record ${JSON.stringify(crm)}`);
});

// one case each of what the service's sender can get wrong; the other malformed signatures are
// refused by the same comparison (test/unit/nodes/DocumentExtractionTrigger/signature.test.ts)
test('Trigger: an unsigned and a badly signed delivery get 401, a signed replay two days old is ignored; none starts a run', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const key = await secret();
	const before = await settledExecutionTotal(WF, 0, { settleMs: 0 });
	const body = deliveryBody();
	const url = state.triggerUrl;
	const codes = {
		missing: (await deliverRaw({ url, body, signature: null })).status_code,
		wrong: await post(url, body, 'whsec_wrong'),
		'two days old': await post(
			url,
			deliveryBody({ timestamp: new Date(Date.now() - 2 * DAY).toISOString() }),
			key,
		),
	};
	assert.deepEqual(codes, { missing: 401, wrong: 401, 'two days old': 200 });
	await sleep(2500);
	assert.equal(await executionTotal(WF), before, 'a refused or replayed delivery started a run');
	// control: the same body with the right signature is accepted and runs once
	assert.equal(await post(url, body, key), 200);
	const runs = (await settledExecutionTotal(WF, before + 1)) - before;
	assert.equal(runs, 1, `${runs} runs for the correctly signed delivery`);
	t.diagnostic(`${JSON.stringify(codes)}; the correctly signed one: 1 run`);
});

test('Trigger: copies of one delivery start one run (twice 1 s apart; three copies at once)', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const key = await secret();
	const runs = {};

	let before = await settledExecutionTotal(WF, 0, { settleMs: 0 });
	const body = deliveryBody();
	const first = await post(state.triggerUrl, body, key);
	await sleep(1000);
	const second = await post(state.triggerUrl, body, key);
	assert.deepEqual([first, second], [200, 200], 'both copies must be acknowledged');
	runs.twice = (await settledExecutionTotal(WF, before + 1)) - before;

	before = await executionTotal(WF);
	const copy = deliveryBody();
	const answers = await Promise.all([1, 2, 3].map(() => post(state.triggerUrl, copy, key)));
	assert.deepEqual(answers, [200, 200, 200]);
	runs.atOnce = (await settledExecutionTotal(WF, before + 1)) - before;

	assert.deepEqual(runs, { twice: 1, atOnce: 1 }, `runs per delivery: ${JSON.stringify(runs)}`);
	t.diagnostic(`runs ${JSON.stringify(runs)}`);
});

// n8n's HTTP layer decides whether a sender that hung up still starts a run
test('Trigger: a sender that hangs up before the answer, then sends again, starts one run', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const key = await secret();
	const outcomes = {};
	for (const afterMs of [0, 20, 80]) {
		const before = await settledExecutionTotal(WF, 0, { settleMs: 0 });
		const body = deliveryBody();
		await postAndHangUp(state.triggerUrl, body, key, afterMs);
		await sleep(1000);
		// the service's retry: acknowledged at once (a duplicate, or the first run when the hang-up
		// came before n8n read the body), never left waiting
		const retry = await post(state.triggerUrl, body, key, 4000);
		assert.equal(retry, 200, `the retry after a hang-up at ${afterMs} ms answered ${retry}`);
		outcomes[`${afterMs} ms`] = (await settledExecutionTotal(WF, before + 1)) - before;
	}
	assert.deepEqual(
		outcomes,
		{ '0 ms': 1, '20 ms': 1, '80 ms': 1 },
		`runs ${JSON.stringify(outcomes)}`,
	);
	t.diagnostic(`runs per delivery after a hang-up ${JSON.stringify(outcomes)}`);
});

// whether n8n reads the body before the trigger does depends on its body parser, and so on its version
test('Trigger: a body in a content type n8n does not parse is read by the trigger, verified and run', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const key = await secret();
	const before = await settledExecutionTotal(WF, 0, { settleMs: 0 });
	const body = deliveryBody();
	const status = await post(state.triggerUrl, body, key, 10000, 'application/octet-stream');
	assert.equal(status, 200);
	const forged = await post(
		state.triggerUrl,
		deliveryBody(),
		'whsec_wrong',
		10000,
		'application/octet-stream',
	);
	assert.equal(forged, 401);
	const runs = (await settledExecutionTotal(WF, before + 1)) - before;
	assert.equal(runs, 1, `${runs} runs`);
	t.diagnostic('application/octet-stream: signed 200 and one run, forged 401');
});

test('Trigger: publishing again while deliveries arrive keeps the registration and its secret', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const key = await secret();
	const registrationsBefore = await triggerRegistrations();
	const before = await settledExecutionTotal(WF, 0, { settleMs: 0 });

	// deliveries arrive throughout, each retried as the service does (1, 4, 16 s)
	let publishing = true;
	const deliveries = [];
	const sender = (async () => {
		while (publishing) {
			deliveries.push(deliverWithRetries(state.triggerUrl, deliveryBody(), key));
			// 2.5 a second: n8n on SQLite writes each run through one connection, and this suite
			// shares two cores with the other version's
			await sleep(400);
		}
	})();

	const steps = [];
	try {
		await editTriggerAndPublish({ fetchErrorDetails: false });
		steps.push('edit, publish');
		await unpublishAndPublish();
		steps.push('unpublish, publish');
		await editTriggerAndPublish({ fetchErrorDetails: true });
		steps.push('edit, publish');
		await sleep(1000);
	} finally {
		// on a failure too: a sender left running would keep the suite from ever ending
		publishing = false;
		await sender;
	}
	const attempts = await Promise.all(deliveries);

	const final = attempts.map((statuses) => statuses.at(-1));
	const all = attempts.flat();
	const tally = all.reduce((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});
	assert.ok(
		!all.includes(401),
		`a correctly signed delivery was refused: ${JSON.stringify(tally)}`,
	);
	assert.ok(
		final.every((s) => s === 200),
		`deliveries not acknowledged in the end: ${JSON.stringify(final.filter((s) => s !== 200))}`,
	);
	const runs = (await settledExecutionTotal(WF, before + attempts.length)) - before;
	assert.equal(runs, attempts.length, `${runs} runs for ${attempts.length} deliveries`);

	assert.equal(await secret(), key, 'publishing changed the signing secret');
	const registrationsAfter = await triggerRegistrations();
	assert.deepEqual(
		registrationsAfter.map((r) => r.url),
		registrationsBefore.map((r) => r.url),
		`registrations ${JSON.stringify(registrationsAfter)}`,
	);
	t.diagnostic(
		`${attempts.length} deliveries during ${steps.join('; ')}: attempts ${JSON.stringify(tally)}, ${runs} runs, one registration, same secret`,
	);
});

/** After a start, gives the startup reconciliation a moment to enqueue anything it finds. */
async function settleAfterStart() {
	await waitPublished(WF);
	await sleep(3000);
	await waitPublished(WF);
}

// editing and unpublishing while published: the case before
test('Trigger: a restart, and publishing again from the CLI, register no second webhook; deliveries still run once', async (t) => {
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
			await n8nCliOk(['publish:workflow', `--id=${WF}`]);
			await startN8n();
			await settleAfterStart();
		},
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
	const { task, newest } = await deliverRealTask(FILES.r);
	await checkTriggerRun(newest.id, FILES.r, task);
	t.diagnostic(
		`registrations ${JSON.stringify(counts)}; GET /projects calls ${JSON.stringify(lookups)}`,
	);
});
