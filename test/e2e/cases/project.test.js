'use strict';

/** Project operations through `n8n execute`: List Projects, Register Webhook. */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const {
	FILES,
	IDENTITY_ID,
	INVOICES_ID,
	REGISTERED_HOOK_URL,
	sha256,
} = require('../../../harness/fixtures.js');
const { execute, nodeItems } = require('../../../harness/n8n.js');
const { expectSuccess } = require('../lib/judge.js');
const { registeredWebhooks } = require('../lib/emulator-client.js');
const { SPACED_PROJECT_NAME, WF } = require('../../../harness/workflows.js');
const { useSuite } = require('../lib/setup.js');

useSuite();

test('List Projects', async (t) => {
	const res = await execute(WF.list);
	expectSuccess(res);
	const items = nodeItems(res.run, 'List Projects').map((i) => i.json);
	const text = JSON.stringify(items);
	for (const needle of [
		INVOICES_ID,
		IDENTITY_ID,
		'Invoices',
		'Identity',
		'Invoices EU – Zürich (2025)',
	])
		assert.ok(text.includes(needle), `${needle} missing in ${text}`);
	assert.equal(items.length, 3, `expected one item per project, got ${items.length}`);
	t.diagnostic(`${items.length} projects`);
});

test('Register Webhook (generated whsec_ secret, registered at the service)', async (t) => {
	const res = await execute(WF.register);
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Register Webhook');
	assert.match(String(item.json.secret), /^whsec_[0-9a-f]{64}$/);
	const webhooks = await registeredWebhooks();
	const hooks = webhooks.filter((w) => w.url === REGISTERED_HOOK_URL);
	assert.equal(
		hooks.length,
		1,
		`registrations for ${REGISTERED_HOOK_URL}: ${JSON.stringify(webhooks)}`,
	);
	assert.equal(hooks[0].project_id, IDENTITY_ID);
	assert.deepEqual(hooks[0].events, ['task.completed']);
	t.diagnostic(`webhook ${hooks[0].webhook_id}`);
});

test('A project typed By ID or Name with spaces, an accent and punctuation runs', async (t) => {
	const res = await execute(WF.projectName);
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.equal(item.json.status, 'complete', JSON.stringify(item.json));
	assert.equal(item.json.result.file_sha256, sha256(FILES.c.bytes));
	t.diagnostic(`"${SPACED_PROJECT_NAME}": task ${item.json.task_id} complete`);
});
