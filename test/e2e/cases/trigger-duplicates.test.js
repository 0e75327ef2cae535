'use strict';

/**
 * Duplicate deliveries and publishing under traffic, in a running n8n: copies of one delivery
 * start one run, distinct deliveries one run each, the trigger writes nothing to the workflow's
 * static data per delivery, and publishing again while deliveries arrive keeps the registration
 * and its secret. Runs after cases/trigger.test.js, on its published example trigger.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { EXAMPLE_TRIGGER_ID, sleep } = require('../../../harness/fixtures.js');
const { triggerRegistrations } = require('../lib/emulator-client.js');
const { editTriggerAndPublish, unpublishAndPublish } = require('../lib/publishing.js');
const {
	deliveryBody,
	post,
	postAndHangUp,
	deliverWithRetries,
	inPool,
	registrationOf,
	executionTotal,
	settledExecutionTotal,
} = require('../lib/deliveries.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const WF = EXAMPLE_TRIGGER_ID;

async function secret() {
	const { nodeData } = await registrationOf(WF);
	assert.match(String(nodeData.registration?.secret), /^whsec_/, 'no registration secret stored');
	return nodeData.registration.secret;
}

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

test('Trigger: 200 distinct deliveries, 50 at a time, start 200 runs and write no static data', async (t) => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const key = await secret();
	const { nodeData: storedBefore } = await registrationOf(WF);
	const before = await settledExecutionTotal(WF, 0, { settleMs: 0 });
	const bodies = Array.from({ length: 200 }, () => deliveryBody());
	const started = Date.now();
	// up to 30 s per answer: 50 at once on a shared 2-CPU machine can take longer than the
	// service's 10 s, and the subject here is runs and static data, not speed
	const statuses = await inPool(bodies, 50, (body) => post(state.triggerUrl, body, key, 30000));
	const seconds = (Date.now() - started) / 1000;
	const counts = statuses.reduce((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});
	assert.deepEqual(counts, { 200: 200 }, `answers ${JSON.stringify(counts)}`);
	const runs = (await settledExecutionTotal(WF, before + 200)) - before;
	assert.equal(runs, 200, `${runs} runs for 200 distinct deliveries`);
	const { nodeData: storedAfter } = await registrationOf(WF);
	assert.deepEqual(storedAfter, storedBefore, "the deliveries changed the node's static data");
	assert.equal(storedAfter.recentDeliveries, undefined);
	t.diagnostic(`200 answered in ${seconds.toFixed(1)} s; 200 runs; static data unchanged`);
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
