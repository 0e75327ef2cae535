'use strict';

/**
 * An email as n8n's email triggers output it, one item with its attachments in binary fields
 * attachment_0, attachment_1, …: Submit and Wait with Files to Send → All Binary Fields sends
 * each PDF as its own document and outputs one item per document, paired with the email and
 * naming its binary field and file name; a text file is not sent and is named in the hint; a
 * document the service fails is an error item of its own under Continue, beside its sibling.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { FILES, UUID_RE, sha256 } = require('../../../harness/fixtures.js');
const { execute, nodeItems, nodeRun, pairedIndex } = require('../../../harness/n8n.js');
const { expectSuccess } = require('../lib/judge.js');
const { emulatorTask, requestCount } = require('../lib/emulator-client.js');
const { WF } = require('../../../harness/workflows.js');
const { useSuite } = require('../lib/setup.js');

useSuite();

const hintMessages = (run) => (nodeRun(run, 'Submit and Wait').hints ?? []).map((h) => h.message);

test('Email attachments: two PDFs and a text file, every attachment: 2 tasks, 2 items paired with the email, the text file in the hint', async (t) => {
	const before = await requestCount('process_file');
	const res = await execute(WF.emailAll);
	expectSuccess(res);
	const uploads = (await requestCount('process_file')) - before;
	assert.equal(uploads, 2, `process_file called ${uploads} times`);
	const items = nodeItems(res.run, 'Submit and Wait');
	assert.equal(items.length, 2, `expected 2 output items, got ${items.length}`);
	const expected = [
		['attachment_0', FILES.a],
		['attachment_1', FILES.c],
	];
	items.forEach((item, i) => {
		const [field, file] = expected[i];
		assert.equal(pairedIndex(item), 0, `item ${i} is paired with input ${pairedIndex(item)}`);
		assert.equal(item.json.binaryField, field);
		assert.equal(item.json.fileName, file.name);
		assert.equal(item.json.subject, 'Invoices for March', 'Keep Input Fields: the email fields');
		assert.equal(item.json.status, 'complete');
		assert.match(item.json.task_id, UUID_RE);
		assert.equal(item.json.result.file_sha256, sha256(file.bytes), `${file.name}: other bytes`);
	});
	assert.notEqual(items[0].json.task_id, items[1].json.task_id);
	const hints = hintMessages(res.run);
	assert.ok(
		hints.some((m) => m.includes('attachment_2') && m.includes('notes.txt')),
		`no hint names the skipped text file: ${JSON.stringify(hints)}`,
	);
	t.diagnostic(hints.join(' | '));
});

test('Email attachments under Continue: the PDF the service fails is its own error item, its sibling a result', async (t) => {
	const before = await requestCount('process_file');
	const res = await execute(WF.emailContinue);
	expectSuccess(res);
	assert.equal((await requestCount('process_file')) - before, 2, 'one upload per PDF');
	const items = nodeItems(res.run, 'Submit and Wait');
	assert.equal(items.length, 2, `expected 2 output items, got ${items.length}`);
	const [ok, failed] = items;
	for (const item of items) assert.equal(pairedIndex(item), 0);
	assert.equal(ok.json.fileName, FILES.a.name);
	assert.equal(ok.json.binaryField, 'attachment_0');
	assert.equal(ok.json.status, 'complete');
	assert.equal(ok.json.result.file_sha256, sha256(FILES.a.bytes));
	assert.equal(failed.json.fileName, FILES.b.name);
	assert.equal(failed.json.binaryField, 'attachment_1');
	assert.match(String(failed.json.error), /EMULATOR_FAIL/, JSON.stringify(failed.json));
	assert.match(String(failed.json.task_id), UUID_RE, 'the error item names its task');
	assert.equal((await emulatorTask(failed.json.task_id)).file_sha256, sha256(FILES.b.bytes));
	t.diagnostic(`error item: "${failed.json.error}" (${failed.json.fileName})`);
});
