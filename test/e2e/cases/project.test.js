'use strict';

/** Project operations through `n8n execute`: List Projects, Register Webhook. */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { IDENTITY_ID, INVOICES_ID, REGISTERED_HOOK_URL } = require('../lib/fixtures.js');
const { execute, expectSuccess, nodeItems } = require('../lib/n8n.js');
const { registeredWebhooks } = require('../lib/emulator-client.js');
const { WF } = require('../lib/workflows.js');
const { useSuite } = require('../lib/setup.js');

useSuite();

test('List Projects', async (t) => {
	const res = await execute(WF.list);
	expectSuccess(res);
	const items = nodeItems(res.run, 'List Projects').map((i) => i.json);
	const text = JSON.stringify(items);
	for (const needle of [INVOICES_ID, IDENTITY_ID, 'Invoices', 'Identity', 'Invoices EU – Zürich (2025)'])
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
