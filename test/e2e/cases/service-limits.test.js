'use strict';

/**
 * A service that behaves the way production APIs and their gateways do, answered through the
 * HTTP client n8n gives the node (its timeouts, its handling of 429 and 5xx answers): a rate
 * limit, and a gateway's 504 after the upload was passed on. Each case counts the tasks the
 * emulator created. How the node reads each answer (Retry-After, which answers are sent again,
 * timeouts, Max Wait) is unit-tested (test/unit/nodes/shared/transport/).
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
const { LIMITS_WF, RATE_BATCH, RATE_FILES } = require('../lib/limits-workflows.js');
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
