'use strict';

/**
 * A retry from the Executions list on another worker: four documents (one the service fails) run
 * on one worker, which is then stopped; the retry runs on the other worker, which never saw the
 * documents: still one task and one upload per document, and the failed document's error.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { sha256 } = require('../../../harness/fixtures.js');
const { rest } = require('../../../harness/n8n.js');
const { RETRY_FILES } = require('../../../harness/workflows.js');
const { requestCount, tasksCreatedDuring } = require('../../e2e/lib/emulator-client.js');
const { useQueueSuite, queue } = require('../../../harness/queue/setup.js');
const { QWF, PATHS } = require('../../../harness/queue/workflows.js');
const { webhookRun, runDataOf, assertRanOnWorker } = require('../lib/runs.js');

useQueueSuite();

test('Retry from the list on another worker: 4 documents (1 failing), the first worker stopped: one task per document', async (t) => {
	const { stack } = queue;
	let first;
	let retried;
	let stoppedWorker;
	const uploadsBefore = await requestCount('process_file');
	const created = await tasksCreatedDuring(async () => {
		first = await webhookRun(stack, QWF.retryList, PATHS.retryList);
		assert.equal(first.status, 'error', `execution ${first.id} is ${first.status}`);
		stoppedWorker = assertRanOnWorker(stack, first.id);
		await stack.stopProcess(stoppedWorker);
		try {
			retried = await rest('POST', `/executions/${first.id}/retry`, { loadWorkflow: false });
		} finally {
			await stack.startProcess(stoppedWorker);
		}
	});
	const uploads = (await requestCount('process_file')) - uploadsBefore;
	assert.deepEqual(
		created.map((task) => task.file_sha256).sort(),
		RETRY_FILES.map((f) => sha256(f.bytes)).sort(),
		'one task per document',
	);
	assert.equal(uploads, RETRY_FILES.length, 'one upload per document');
	assert.equal(retried.status, 'error', `retry ${retried.id} is ${retried.status}`);
	const worker = assertRanOnWorker(stack, retried.id);
	assert.notEqual(worker, stoppedWorker, 'the retry ran on the stopped worker');
	const { error } = await runDataOf(retried.id);
	assert.match(error?.message ?? '', /Extraction failed: the document could not be read/);
	t.diagnostic(
		`execution ${first.id} on ${stoppedWorker}, its retry ${retried.id} on ${worker}: ${created.length} tasks, ${uploads} uploads for 4 documents`,
	);
});
