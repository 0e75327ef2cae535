'use strict';

/**
 * A service that behaves the way production APIs and their gateways do: a rate limit, a status
 * answer that trickles, a gateway's 504 after the upload was passed on, and a refusal whose
 * field list must reach the user's error item. Each case counts the tasks the emulator created.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { FILES, sha256 } = require('../../../harness/fixtures.js');
const { execute, nodeItems, nodeRun } = require('../../../harness/n8n.js');
const {
	tasksCreatedDuring,
	addFault,
	emulatorAdmin,
	requestCount,
} = require('../lib/emulator-client.js');
const { WF } = require('../../../harness/workflows.js');
const { expectSuccess, expectFailure } = require('../lib/judge.js');
const { LIMITS_WF, RATE_BATCH, RATE_FILES, HTTP_HOOK_URL } = require('../lib/limits-workflows.js');
const { useSuite } = require('../lib/setup.js');

useSuite();

test('Limits: a batch under a rate limit of 2 requests a second completes, one task per document', async (t) => {
	let res;
	let limits;
	const created = await tasksCreatedDuring(async () => {
		await emulatorAdmin('POST', '/rate_limit', { per_second: 2, burst: 2 });
		res = await execute(LIMITS_WF.rateLimited);
		limits = await emulatorAdmin('GET', '/limits');
	});
	expectSuccess(res);
	const items = nodeItems(res.run, 'Submit and Wait');
	assert.equal(items.length, RATE_BATCH);
	assert.deepEqual(
		items.map((item) => item.json.status),
		Array(RATE_BATCH).fill('complete'),
	);
	assert.equal(created.length, RATE_BATCH, `tasks created: ${created.length}`);
	assert.deepEqual(
		new Set(created.map((task) => task.file_sha256)),
		new Set(RATE_FILES.map((file) => sha256(file.bytes))),
		'one task per document',
	);
	assert.ok(
		limits.counts.rate_limited > 0,
		'the service never rate-limited: the case proves nothing',
	);
	const { executionTime } = nodeRun(res.run, 'Submit and Wait');
	t.diagnostic(
		`${limits.counts.accepted} requests accepted, ${limits.counts.rate_limited} answered 429, ${(executionTime / 1000).toFixed(1)} s for the node (at least ${(limits.counts.accepted / 2).toFixed(1)} s at 2 requests a second)`,
	);
});

test('Limits: a status answer that trickles ends at Max Wait with the task_id', async (t) => {
	let res;
	const created = await tasksCreatedDuring(async () => {
		// Every status answer: headers at once, then a byte every 200 ms for 8 s.
		await emulatorAdmin('POST', '/trickle', {
			endpoint: 'task_status',
			count: 100,
			interval_ms: 200,
			duration_ms: 8000,
		});
		res = await execute(LIMITS_WF.trickle);
	});
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.equal(created.length, 1);
	assert.equal(item.json.task_id, created[0].task_id);
	assert.equal(item.json.timedOut, true);
	assert.equal(item.json.status, null, 'no status check was answered: none may be invented');
	const { executionTime } = nodeRun(res.run, 'Submit and Wait');
	assert.ok(executionTime < 5000, `the node ran ${executionTime} ms with a Max Wait of 3 s`);
	t.diagnostic(`${executionTime} ms: ${item.json.message} (${item.json.lastPollError})`);
});

test('Limits: an upload a gateway answers with 504 is not sent again: at most one task', async (t) => {
	let res;
	const uploadsBefore = await requestCount('process_file');
	const created = await tasksCreatedDuring(async () => {
		// The gateway passed the document on (the task exists), then answered 504.
		await addFault({ endpoint: 'process_file', mode: 'handle_then_answer', status: 504 });
		res = await execute(WF.saw);
	});
	const error = expectFailure(res);
	assert.match(error, /answered 504; it may have received the document, so it was not sent again/);
	assert.equal(
		(await requestCount('process_file')) - uploadsBefore,
		1,
		'the upload was sent again',
	);
	assert.equal(created.length, 1, `tasks created: ${created.length}`);
	assert.equal(created[0].file_sha256, sha256(FILES.a.bytes));
	t.diagnostic(error);
});

test('Limits: under On Error Continue, the error item carries the 422 field list', async (t) => {
	let res;
	await tasksCreatedDuring(async () => {
		await emulatorAdmin('POST', '/webhook_policy', { https_only: true });
		res = await execute(LIMITS_WF.refusedItem);
	});
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Register Webhook');
	assert.equal(item.json.httpCode, 422);
	assert.deepEqual(item.json.detail, [
		{ loc: ['body', 'url'], msg: 'URL scheme should be https', type: 'value_error.url.scheme' },
	]);
	assert.match(
		item.json.error,
		/refused the webhook registration as invalid \(422\): url: URL scheme should be https/,
	);
	assert.ok(item.json.error.includes(HTTP_HOOK_URL), 'the message names the URL n8n gave');
	t.diagnostic(item.json.error);
});
