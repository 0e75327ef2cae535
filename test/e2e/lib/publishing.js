'use strict';

/** Editing, publishing and unpublishing the example trigger workflow through n8n's REST API. */

const assert = require('node:assert/strict');

const { EXAMPLE_TRIGGER_ID, TRIGGER_NODE } = require('../../../harness/fixtures.js');
const { rest, waitFor, waitPublished } = require('../../../harness/n8n.js');
const { probeWebhook } = require('./emulator-client.js');
const state = require('../../../harness/state.js');

/**
 * Saves the trigger with `options` merged into its Options as a new version and publishes that
 * version: n8n deactivates the old one (the node's delete) and activates the new one
 * (checkExists, create). Remembers and returns the new versionId.
 */
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

module.exports = { editTriggerAndPublish, unpublishAndPublish };
