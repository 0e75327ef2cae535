'use strict';

/**
 * A retry from the Executions list after n8n restarted, with each of the editor's options (the
 * original or the currently saved workflow: `POST /rest/executions/:id/retry`, `loadWorkflow`
 * false or true). Two workflows started by a production webhook, four documents each (binary and
 * URL input), one of which the service fails. After a restart nothing of the first run is left in
 * any process: the retry knows the documents from the execution n8n stored.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { sha256 } = require('../../../harness/fixtures.js');
const {
	startN8n,
	stopN8n,
	rest,
	executionsOf,
	executionData,
	waitFor,
} = require('../../../harness/n8n.js');
const { requestCount, tasksCreatedDuring } = require('../lib/emulator-client.js');
const {
	WF,
	RETRY_FILES,
	RETRY_URL_NAMES,
	RETRY_LIST_PATHS,
} = require('../../../harness/workflows.js');
const { publish, callProductionWebhook } = require('../lib/publishing.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const FAILED = /Extraction failed: the document could not be read/;

/** Publishes the workflow as the editor does and starts it once through its production webhook. */
async function publishAndStart(workflowId) {
	await publish(workflowId);
	await callProductionWebhook(RETRY_LIST_PATHS[workflowId]);
	return await waitFor(
		`the execution of ${workflowId} to fail`,
		async () => (await executionsOf(workflowId)).find((e) => e.status === 'error'),
		120000,
	);
}

/** Restarts n8n, then retries each execution with the editor's `loadWorkflow`: {workflowId: retry}. */
async function restartAndRetry(runs, loadWorkflow) {
	await stopN8n();
	await startN8n();
	const retries = {};
	for (const [workflowId, { id }] of Object.entries(runs)) {
		retries[workflowId] = await rest('POST', `/executions/${id}/retry`, { loadWorkflow });
		assert.equal(retries[workflowId].retryOf, String(id));
	}
	return retries;
}

test('Retry from the Executions list after a restart, both options, binary and URL input: one task per document', async (t) => {
	if (!state.n8n?.alive) await startN8n();
	const uploadsBefore = await requestCount('process_file');
	const runs = {};
	const created = await tasksCreatedDuring(async () => {
		const first = {};
		for (const id of [WF.retryListBinary, WF.retryListUrl]) first[id] = await publishAndStart(id);
		// n8n restarts, then the owner clicks Retry → Retry with original workflow
		runs.original = await restartAndRetry(first, false);
		// and again after another restart: Retry → Retry with currently saved workflow
		runs.saved = await restartAndRetry(first, true);
	});
	const uploads = (await requestCount('process_file')) - uploadsBefore;

	for (const option of ['original', 'saved']) {
		for (const id of [WF.retryListBinary, WF.retryListUrl]) {
			const retried = runs[option][id];
			assert.equal(retried.status, 'error', `${option} ${id}: ${retried.status}`);
			const { data } = await executionData(retried.id);
			assert.match(data?.resultData?.error?.message ?? '', FAILED, `${option} ${id}: the error`);
		}
	}
	const binary = RETRY_FILES.map((f) => sha256(f.bytes));
	const count = RETRY_FILES.length + RETRY_URL_NAMES.length;
	assert.equal(created.filter((x) => binary.includes(x.file_sha256)).length, RETRY_FILES.length);
	assert.equal(created.length, count, `tasks created: ${created.length} for ${count} documents`);
	assert.equal(uploads, count, `uploads: ${uploads}`);
	t.diagnostic(`${created.length} tasks, ${uploads} uploads for ${count} documents in 3 runs each`);
});
