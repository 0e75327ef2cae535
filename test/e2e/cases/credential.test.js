'use strict';

/** The credential test n8n's editor runs, against the n8n server (started here if no case started it). */

const assert = require('node:assert/strict');
const http = require('node:http');
const { test } = require('node:test');

const { CRED, GOOD_KEY, INACTIVE_KEY } = require('../../../harness/fixtures.js');
const { freePort, startN8n, rest } = require('../../../harness/n8n.js');
const { requestCount } = require('../lib/emulator-client.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

/** POST /rest/credentials/test, the call of the editor's Test button, for a credential's data. */
async function check(apiKey, baseUrl = `${state.emulatorUrl}/`) {
	return await rest('POST', '/credentials/test', {
		credentials: {
			id: CRED.documentExtractionApi.id,
			name: 'credential test',
			type: 'documentExtractionApi',
			data: { apiKey, baseUrl },
		},
	});
}

test("Credential test in n8n's editor: a good key passes, a key without vnd_ is refused with no request sent", async (t) => {
	if (!state.n8n?.alive) await startN8n();
	// a trailing slash on the base URL is tolerated
	const good = await check(GOOD_KEY);
	assert.equal(good.status, 'OK', JSON.stringify(good));
	const before = await requestCount('projects');
	const bad = await check('sk_live_0123456789');
	const after = await requestCount('projects');
	assert.equal(bad.status, 'Error');
	assert.match(bad.message, /keys look like vnd_.*web dashboard/s);
	assert.ok(!bad.message.includes('sk_live_0123456789'), 'the key is echoed');
	assert.equal(after, before, 'a request was sent with the malformed key');
	t.diagnostic(`good: ${good.message}; malformed: refused before sending`);
});

test("Credential test in n8n's editor: a wrong key, an inactive subscription and a wrong Base URL each say their cause and what to do", async (t) => {
	if (!state.n8n?.alive) await startN8n();
	// a web page where the service should be (a sign-in page, a dashboard), on this machine
	const page = http.createServer((_req, res) => res.end('<!doctype html><title>Sign in</title>'));
	await new Promise((resolve) => page.listen(0, '127.0.0.1', resolve));
	t.after(() => page.close());
	const pageUrl = `http://127.0.0.1:${page.address().port}`;
	const closed = `http://127.0.0.1:${await freePort()}`;
	const cases = [
		[
			'wrong key',
			check('vnd_not_a_real_key'),
			/rejected the API key \(401\).*Check the API key in the credential/,
		],
		[
			'inactive subscription',
			check(INACTIVE_KEY),
			/subscription is inactive \(402\).*Renew it in the web dashboard/,
		],
		[
			'closed port',
			check(GOOD_KEY, closed),
			new RegExp(
				`Could not reach the Document Extraction Service.*connection was refused.*Check the Base URL in the credential \\(${closed}\\)`,
			),
		],
		[
			'path that answers 404',
			check(GOOD_KEY, `${state.emulatorUrl}/v9`),
			/does not lead to the service: .*\/v9\/projects answered 404\. Enter the address of the service/,
		],
		[
			'a web page',
			check(GOOD_KEY, pageUrl),
			/does not lead to the service: .*\/projects answered 200 with a page that is not JSON\. Enter the address/,
		],
	];
	for (const [name, answer, expected] of cases) {
		const { status, message } = await answer;
		assert.equal(status, 'Error', `${name}: ${message}`);
		assert.match(message, expected, `${name}: ${message}`);
		t.diagnostic(`${name}: ${message}`);
	}
});
