'use strict';

/**
 * A trigger whose webhook URL the service refuses (it wants https): the publication fails, and
 * the message n8n itself records for it (2.41: the publication status, what the editor shows;
 * 1.x: the activation error) names the reason, the URL and WEBHOOK_URL. Nothing is registered.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { IS_N8N_1, startN8n, rest, waitFor } = require('../../../harness/n8n.js');
const { emulatorAdmin, registeredWebhooks } = require('../lib/emulator-client.js');
const { HTTPS_ONLY_TRIGGER: WF, useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

// n8n 2.41 records the message; n8n 1.x answers with the description (the field list on its own line)
const REASON =
	/refused the webhook registration as invalid \(422\):\s+url: URL scheme should be https/;

/** Publishes the workflow; returns the error message n8n records for the failed publication. */
async function publishAndReadError(workflowId) {
	const wf = await rest('GET', `/workflows/${workflowId}`);
	if (IS_N8N_1) {
		// n8n 1.x activates at once and answers the failure with the activation error.
		try {
			await rest('POST', `/workflows/${workflowId}/activate`, { versionId: wf.versionId });
		} catch (error) {
			// "n8n POST …: HTTP 400 {"code":400,"message":"…"}": the message, line breaks unescaped
			return error.message.slice(error.message.indexOf('{')).replace(/\\n/g, '\n');
		}
		assert.fail('the activation should have failed');
	}
	await rest('POST', `/workflows/${workflowId}/activate`, { versionId: wf.versionId });
	const status = await waitFor('the publication to fail', async () => {
		const s = await rest('GET', `/workflows/${workflowId}/publication-status`);
		return s.status === 'failed' ? s : undefined;
	});
	return status.triggers.map((trigger) => trigger.errorMessage ?? '').join('\n');
}

test('Trigger refused: publishing while the service wants https fails with the reason, nothing registered', async (t) => {
	if (!state.n8n?.alive) await startN8n();
	const hooksBefore = (await registeredWebhooks()).length;
	let message;
	await emulatorAdmin('POST', '/webhook_policy', { https_only: true });
	try {
		message = await publishAndReadError(WF);
	} finally {
		await rest('POST', `/workflows/${WF}/deactivate`, {}).catch(() => {});
		await emulatorAdmin('POST', '/webhook_policy', { https_only: false });
	}
	assert.match(message, REASON);
	assert.match(message, /n8n gave the webhook URL http:\/\/127\.0\.0\.1:\d+\/webhook\//);
	assert.match(message, /WEBHOOK_URL/);
	assert.equal((await registeredWebhooks()).length, hooksBefore, 'a webhook was registered');
	t.diagnostic(message);
});
