'use strict';

/**
 * A retry from the Executions list after n8n restarted, with each of the editor's two options
 * (Retry with original workflow, Retry with currently saved workflow: the REST call the editor
 * makes, `POST /rest/executions/:id/retry` with `loadWorkflow` false or true). Two published
 * workflows, each started by a production webhook with four documents (by binary data and by
 * URL), one of which the service fails, so the execution fails. n8n is stopped and started
 * before each retry, so nothing of the first run is left in any process: what the retry knows
 * of the documents it read from the execution n8n stored. Each document has exactly one task at
 * the service after all three runs, and the failed document's error reaches every retry.
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

/** The error message of an execution, as n8n stored it. */
async function storedError(executionId) {
	const { data } = await executionData(executionId);
	return data?.resultData?.error?.message ?? '';
}

/**
 * Restarts n8n (as an upgrade, a redeploy or a crash recovery does), then retries each execution
 * with the editor's option `loadWorkflow`; resolves to {workflowId: the retry}.
 */
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
	const expected = {
		[WF.retryListBinary]: RETRY_FILES.map((f) => sha256(f.bytes)).sort(),
	};
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
			assert.match(
				await storedError(retried.id),
				FAILED,
				`${option} ${id}: the failed document's error`,
			);
		}
	}
	const binary = created.filter((task) => expected[WF.retryListBinary].includes(task.file_sha256));
	assert.equal(binary.length, RETRY_FILES.length, `binary: ${binary.length} tasks`);
	assert.equal(
		created.length,
		RETRY_FILES.length + RETRY_URL_NAMES.length,
		`tasks created: ${created.length} for ${RETRY_FILES.length + RETRY_URL_NAMES.length} documents in 3 runs each`,
	);
	assert.equal(uploads, RETRY_FILES.length + RETRY_URL_NAMES.length, `uploads: ${uploads}`);
	t.diagnostic(
		`${created.length} tasks and ${uploads} uploads for ${RETRY_FILES.length} binary + ${RETRY_URL_NAMES.length} URL documents over the first run and two retries after restarts (original and saved workflow)`,
	);
});
