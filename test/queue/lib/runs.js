'use strict';

/** Runs in the queue stack: production webhook calls, finished executions and their data. */

const assert = require('node:assert/strict');

const { executionsOf, executionData, waitFor } = require('../../../harness/n8n.js');
const { UNFINISHED } = require('../../e2e/lib/deliveries.js');

/** POST to a production webhook of the webhook process. */
async function callWebhook(stack, path, { body = '{}', contentType = 'application/json' } = {}) {
	const res = await fetch(`http://127.0.0.1:${stack.ports.webhook}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': contentType },
		body,
	});
	return { status: res.status, text: await res.text() };
}

async function executionIds(workflowId) {
	return new Set((await executionsOf(workflowId)).map((e) => String(e.id)));
}

/** Waits until `count` executions of the workflow not in `known` finished; returns the new ones. */
async function waitNewExecutions(workflowId, known, count, timeoutMs = 120000) {
	let fresh = [];
	await waitFor(
		() => `${count} new finished executions of ${workflowId} (${JSON.stringify(fresh)})`,
		async () => {
			fresh = (await executionsOf(workflowId)).filter((e) => !known.has(String(e.id)));
			return fresh.filter((e) => !UNFINISHED.includes(e.status)).length >= count;
		},
		timeoutMs,
		500,
	);
	return fresh;
}

/** One run through the workflow's production webhook (answered 200), once finished. */
async function webhookRun(stack, workflowId, path, request) {
	const known = await executionIds(workflowId);
	const answer = await callWebhook(stack, path, request);
	assert.equal(answer.status, 200, `webhook answered ${answer.status} ${answer.text}`);
	return (await waitNewExecutions(workflowId, known, 1))[0];
}

/** The run data of a stored execution. */
async function runDataOf(executionId) {
	const execution = await executionData(executionId);
	const data = Array.isArray(execution.data) ? execution.data[0] : execution.data;
	return { execution, runData: data.resultData.runData, error: data.resultData.error };
}

/** The output items of a node that ran without error. */
function outputItems(runData, nodeName) {
	const runs = runData[nodeName];
	assert.ok(runs?.length, `node "${nodeName}" did not run`);
	assert.ok(!runs[0].error, `node "${nodeName}" failed: ${runs[0].error?.message}`);
	return runs[0].data.main[0];
}

const submitAndWaitOutput = async (executionId) =>
	outputItems((await runDataOf(executionId)).runData, 'Submit and Wait');

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
	webhookRun,
	runDataOf,
	submitAndWaitOutput,
	assertRanOnWorker,
};
