'use strict';

/**
 * n8n's Retry On Fail on a worker: the worker runs Submit and Wait again with the same items in
 * the same execution. Four documents, one of which the service fails, three tries: still one
 * task and one upload per document, and the failed document's error is the execution's error.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { oneTaskPerDocument } = require('../../e2e/lib/retry.js');
const { useQueueSuite, queue } = require('../../../harness/queue/setup.js');
const { QWF, PATHS } = require('../../../harness/queue/workflows.js');
const { webhookRuns, runDataOf, assertRanOnWorker } = require('../lib/runs.js');

useQueueSuite();

test('Retry On Fail on a worker: Submit and Wait, 3 tries, 4 documents (1 failing): one task per document, the error reaches the user', async (t) => {
	const { stack } = queue;
	let executions = [];
	const { created, uploads } = await oneTaskPerDocument(async () => {
		executions = await webhookRuns(stack, QWF.retry, PATHS.retry, { timeoutMs: 120000 });
	});
	const [execution] = executions;
	assert.equal(execution.status, 'error', `execution ${execution.id} is ${execution.status}`);
	const worker = assertRanOnWorker(stack, execution.id);
	const { runData } = await runDataOf(execution.id);
	const tries = runData['Submit and Wait'];
	const message = tries?.at(-1)?.error?.message ?? '';
	assert.match(message, /Extraction failed: the document could not be read/);
	t.diagnostic(
		`execution ${execution.id} on ${worker}: ${created.length} tasks, ${uploads} uploads for 4 documents in 3 tries; error: ${message.split('\n')[0]}`,
	);
});
