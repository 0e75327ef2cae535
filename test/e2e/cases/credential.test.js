'use strict';

/** The credential test n8n's editor runs, against the n8n server (started here if no case started it). */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { CRED } = require('../../../harness/fixtures.js');
const { startN8n, rest } = require('../../../harness/n8n.js');
const { requestCount } = require('../lib/emulator-client.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

test("Credential test in n8n's editor: a good key passes, a key without vnd_ is refused with no request sent", async (t) => {
	if (!state.n8n?.alive) await startN8n();
	const check = async (apiKey) =>
		await rest('POST', '/credentials/test', {
			credentials: {
				id: CRED.documentExtractionApi.id,
				name: 'credential test',
				type: 'documentExtractionApi',
				// a trailing slash on the base URL is tolerated
				data: { apiKey, baseUrl: `${state.emulatorUrl}/` },
			},
		});
	const good = await check('vnd_test_key');
	assert.equal(good.status, 'OK', JSON.stringify(good));
	const before = await requestCount('projects');
	const bad = await check('sk_live_0123456789');
	const after = await requestCount('projects');
	assert.equal(bad.status, 'Error');
	assert.match(bad.message, /keys look like vnd_.*web dashboard/s);
	assert.ok(!bad.message.includes('sk_live_0123456789'), 'the key is echoed');
	assert.equal(after, before, 'a request was sent with the malformed key');
	const unknown = await check('vnd_not_a_real_key');
	assert.equal(unknown.status, 'Error');
	t.diagnostic(
		`good: ${good.message}; malformed: refused before sending; unknown: ${unknown.message}`,
	);
});
