'use strict';

/** Submit and Wait with the URL input source: the node downloads the document the emulator serves. */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { UUID_RE, sha256 } = require('../../../harness/fixtures.js');
const { execute, nodeItems, binaryBytes } = require('../../../harness/n8n.js');
const { expectSuccess } = require('../lib/judge.js');
const { requestCount, servedFiles } = require('../lib/emulator-client.js');
const { WF, LARGE_URL_BYTES, badUrlCases } = require('../../../harness/workflows.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

/** The last file the emulator served under `name`. */
async function served(name) {
	const files = (await servedFiles()).filter((f) => f.name === name);
	assert.ok(files.length, `the emulator served no ${name}`);
	return files[files.length - 1];
}

test('URL input: Submit and Wait downloads the document (2 redirects), the service gets the same bytes', async (t) => {
	const res = await execute(WF.urlOk);
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.match(item.json.task_id, UUID_RE);
	assert.equal(item.json.status, 'complete');
	const file = await served('url-invoice.pdf');
	assert.equal(
		item.json.result.file_sha256,
		file.sha256,
		'the service received other bytes than were served',
	);
	assert.equal(item.json.result.file_size, file.size);
	const binary = item.binary?.data;
	assert.ok(binary, 'the downloaded file is not in the output');
	assert.equal(binary.fileName, 'March invoice.pdf', 'file name from Content-Disposition');
	assert.equal(
		binary.mimeType,
		'application/pdf',
		'MIME type from the file name when the response has none',
	);
	const bytes = binaryBytes(binary);
	if (bytes)
		assert.equal(sha256(bytes), file.sha256, 'the output binary differs from the download');
	t.diagnostic(`${file.size} bytes, invoice ${item.json.result.invoice_number}`);
});

test('URL input: bad inputs get clear item errors (not http, 404, HTML, too large, too large streamed, empty)', async (t) => {
	const submissionsBefore = await requestCount('process_file');
	const res = await execute(WF.urlBad);
	expectSuccess(res);
	const items = nodeItems(res.run, 'Submit and Wait');
	const cases = badUrlCases(state.emulatorUrl);
	assert.equal(items.length, cases.length);
	const expected = {
		'not-http': /^"ftp:\/\/127\.0\.0\.1\/invoice\.pdf" is not an http\(s\) URL$/,
		404: /could not be downloaded from http:\/\/127\.0\.0\.1:\d+\/_emulator\/files\/missing\.pdf: the host answered 404/,
		html: /did not return a PDF or an image \(content type text\/html\)/,
		'too-large': /is too large: 2 MB, the limit is 1 MB$/,
		'too-large-streamed': /is too large: more than 1 MB$/,
		empty: /is empty \(0 bytes\)$/,
	};
	items.forEach((item, i) => {
		const name = cases[i].case;
		assert.equal(
			typeof item.json.error,
			'string',
			`case ${name} did not fail: ${JSON.stringify(item.json)}`,
		);
		assert.match(item.json.error, expected[name], `case ${name}`);
		assert.equal(item.json.task_id, undefined, `case ${name} submitted a task`);
	});
	assert.equal(
		await requestCount('process_file'),
		submissionsBefore,
		'a bad input reached the service',
	);
	t.diagnostic(items.map((item, i) => `${cases[i].case}: ${item.json.error}`).join(' | '));
});

test('URL input: a 40 MB document by URL (filesystem binary mode), byte-exact', async (t) => {
	const started = Date.now();
	const res = await execute(WF.url40mb, { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' });
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.equal(item.json.status, 'complete');
	const file = await served('large.pdf');
	assert.equal(file.size, LARGE_URL_BYTES);
	assert.equal(item.json.result.file_size, LARGE_URL_BYTES);
	assert.equal(
		item.json.result.file_sha256,
		file.sha256,
		'the service received other bytes than were served',
	);
	assert.equal(item.binary, undefined, 'the downloaded file is output only when asked');
	t.diagnostic(`${((Date.now() - started) / 1000).toFixed(1)} s including n8n start`);
});
