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
const fs = require('node:fs');
const path = require('node:path');

const {
	ROOT,
	N8N_DIR,
	N8N_VERSION,
	execute,
	nodeItems,
	nodeRun,
	pairedIndex,
} = require('../../../harness/n8n.js');
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

test('The email examples (IMAP, Gmail, Outlook): every node type and typeVersion is one this n8n has', (t) => {
	// the node types n8n serves to its editor (n8n-nodes-base's types/nodes.json), and this package's
	const known = new Map();
	const types = JSON.parse(
		fs.readFileSync(
			path.join(N8N_DIR, 'node_modules', 'n8n-nodes-base', 'dist', 'types', 'nodes.json'),
			'utf8',
		),
	);
	for (const type of types)
		for (const version of [type.version].flat())
			known.set(`n8n-nodes-base.${type.name.replace(/^n8n-nodes-base\./, '')}`, [
				...(known.get(`n8n-nodes-base.${type.name.replace(/^n8n-nodes-base\./, '')}`) ?? []),
				version,
			]);
	const { DocumentExtraction } = require(
		path.join(ROOT, 'dist/nodes/DocumentExtraction/DocumentExtraction.node.js'),
	);
	known.set(
		'n8n-nodes-document-extraction.documentExtraction',
		[new DocumentExtraction().description.version].flat(),
	);
	const files = fs
		.readdirSync(path.join(ROOT, 'examples'))
		.filter((name) => /^email-to-crm-.*\.json$/.test(name));
	assert.deepEqual(files.sort(), [
		'email-to-crm-gmail.json',
		'email-to-crm-imap.json',
		'email-to-crm-outlook.json',
	]);
	for (const file of files) {
		const workflow = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', file), 'utf8'));
		for (const node of workflow.nodes) {
			const versions = known.get(node.type) ?? [];
			assert.ok(
				versions.includes(node.typeVersion),
				`${file}: n8n ${N8N_VERSION} has no ${node.type} version ${node.typeVersion} (it has ${versions.join(', ') || 'none'})`,
			);
		}
	}
	t.diagnostic(`${files.join(', ')}: every node known to n8n ${N8N_VERSION}`);
});
