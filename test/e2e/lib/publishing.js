'use strict';

/** Publishing as the editor does (REST API), and starting a workflow by its production webhook. */

const assert = require('node:assert/strict');

const { EXAMPLE_TRIGGER_ID, TRIGGER_NODE } = require('../../../harness/fixtures.js');
const { rest, waitFor, waitPublished } = require('../../../harness/n8n.js');
const { probeWebhook } = require('./emulator-client.js');
const state = require('../../../harness/state.js');

/** Saves the trigger with `options` merged into its Options as a new version, and publishes it. */
async function editTriggerAndPublish(options) {
	const wf = await rest('GET', `/workflows/${EXAMPLE_TRIGGER_ID}`);
	const nodes = wf.nodes.map((n) =>
		n.name === TRIGGER_NODE
			? { ...n, parameters: { ...n.parameters, options: { ...n.parameters.options, ...options } } }
			: n,
	);
	const updated = await rest('PATCH', `/workflows/${EXAMPLE_TRIGGER_ID}`, {
		nodes,
		connections: wf.connections,
	});
	assert.notEqual(
		updated.versionId,
		wf.activeVersionId ?? wf.versionId,
		'editing made no new version',
	);
	await rest('POST', `/workflows/${EXAMPLE_TRIGGER_ID}/activate`, { versionId: updated.versionId });
	await waitPublished(EXAMPLE_TRIGGER_ID, updated.versionId);
	state.triggerVersionId = updated.versionId;
	return updated.versionId;
}

/** Unpublishes the trigger workflow, waits until its URL answers 404, and publishes it again. */
async function unpublishAndPublish() {
	await rest('POST', `/workflows/${EXAMPLE_TRIGGER_ID}/deactivate`, {});
	await waitFor(
		'the webhook to be unpublished',
		async () => (await probeWebhook(state.triggerUrl)) === 404,
	);
	await rest('POST', `/workflows/${EXAMPLE_TRIGGER_ID}/activate`, {
		versionId: state.triggerVersionId,
	});
	await waitPublished(EXAMPLE_TRIGGER_ID, state.triggerVersionId);
}

/** Publishes the workflow as the editor does (its current version). */
async function publish(workflowId) {
	const wf = await rest('GET', `/workflows/${workflowId}`);
	await rest('POST', `/workflows/${workflowId}/activate`, { versionId: wf.versionId });
	await waitPublished(workflowId, wf.versionId);
}

/** POSTs `{}` to the production webhook /webhook/<path> until it answers 200 (a run started). */
async function callProductionWebhook(path) {
	const url = `http://127.0.0.1:${state.n8nPort}/webhook/${path}`;
	await waitFor(`${url} to start the workflow`, async () => {
		const res = await fetch(url, {
			method: 'POST',
			body: '{}',
			headers: { 'content-type': 'application/json' },
		});
		await res.text();
		return res.status === 200;
	});
}

module.exports = { editTriggerAndPublish, unpublishAndPublish, publish, callProductionWebhook };
