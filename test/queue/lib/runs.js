'use strict';

/** Runs in the queue stack: production webhook calls, finished executions and their data. */

const assert = require('node:assert/strict');

const { executionsOf, executionData, waitFor } = require('../../../harness/n8n.js');
const { sleep } = require('../../../harness/fixtures.js');

const FINISHED = (e) => !['new', 'running', 'waiting', 'queued'].includes(e.status);

/** POST to a production webhook of the webhook process. */
async function callWebhook(stack, path, { body = '{}', contentType = 'application/json' } = {}) {
	const res = await fetch(`http://127.0.0.1:${stack.ports.webhook}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': contentType },
		body,
	});
	return { status: res.status, text: await res.text() };
}

/** Ids of the workflow's executions. */
async function executionIds(workflowId) {
	return new Set((await executionsOf(workflowId)).map((e) => String(e.id)));
}

/** Waits for executions of the workflow not in `known` until `count` of them finished; returns them. */
async function waitNewExecutions(workflowId, known, count, timeoutMs = 120000) {
	let fresh = [];
	await waitFor(
		() =>
			`${count} new finished executions of ${workflowId} (${fresh.length} so far: ${JSON.stringify(fresh.map((e) => [e.id, e.status]))})`,
		async () => {
			fresh = (await executionsOf(workflowId)).filter((e) => !known.has(String(e.id)));
			return fresh.filter(FINISHED).length >= count;
		},
		timeoutMs,
		500,
	);
	return fresh;
}

/**
 * Starts `runs` runs of the workflow at once through its production webhook (`request` as for
 * callWebhook), checks that each call is answered 200, and waits until as many new executions
 * finished; returns them.
 */
async function webhookRuns(stack, workflowId, path, { runs = 1, timeoutMs, ...request } = {}) {
	const known = await executionIds(workflowId);
	const answers = await Promise.all(
		Array.from({ length: runs }, () => callWebhook(stack, path, request)),
	);
	for (const a of answers) assert.equal(a.status, 200, `webhook answered ${a.status} ${a.text}`);
	return await waitNewExecutions(workflowId, known, runs, timeoutMs);
}

/** New executions of the workflow after `settleMs` (to see that no extra run arrives). */
async function newExecutionsAfter(workflowId, known, settleMs) {
	await sleep(settleMs);
	return (await executionsOf(workflowId)).filter((e) => !known.has(String(e.id)));
}

/** The run data of a stored execution. */
async function runDataOf(executionId) {
	const execution = await executionData(executionId);
	const data = Array.isArray(execution.data) ? execution.data[0] : execution.data;
	return { execution, runData: data.resultData.runData, error: data.resultData.error };
}

function outputItems(runData, nodeName) {
	const runs = runData[nodeName];
	assert.ok(runs?.length, `node "${nodeName}" did not run`);
	assert.ok(!runs[0].error, `node "${nodeName}" failed: ${runs[0].error?.message}`);
	return runs[0].data.main[0];
}

/** The output items of the workflows' "Submit and Wait" node in a stored execution. */
async function submitAndWaitOutput(executionId) {
	const { runData } = await runDataOf(executionId);
	return outputItems(runData, 'Submit and Wait');
}

/** The execution ran on exactly one worker and nowhere else; returns that worker's name. */
function assertRanOnWorker(stack, executionId) {
	const on = stack.ranOn(executionId);
	assert.equal(on.length, 1, `execution ${executionId} started on ${JSON.stringify(on)}`);
	assert.match(on[0], /^worker\d$/, `execution ${executionId} started on ${on[0]}`);
	return on[0];
}

module.exports = {
	callWebhook,
	executionIds,
	waitNewExecutions,
	webhookRuns,
	newExecutionsAfter,
	runDataOf,
	outputItems,
	submitAndWaitOutput,
	assertRanOnWorker,
};
