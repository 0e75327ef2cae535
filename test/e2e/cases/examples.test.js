'use strict';

/**
 * The examples in the n8n being tested: submit-and-wait.json, imported as `npm start` imports it,
 * runs; the email examples use only node types and versions this n8n has.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { EXAMPLE_SUBMIT_ID } = require('../../../harness/fixtures.js');
const { ROOT, N8N_DIR, N8N_VERSION, execute, nodeItems } = require('../../../harness/n8n.js');
const { expectSuccess } = require('../lib/judge.js');
const { useSuite } = require('../lib/setup.js');

useSuite();

test('Example workflow submit-and-wait.json runs', async (t) => {
	const res = await execute(EXAMPLE_SUBMIT_ID);
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.match(String(item.json.invoice_number), /^INV-/);
	assert.equal(item.binary, undefined, 'the output holds the extracted fields only, no file');
	assert.match(String(item.json.file_sha256), /^[0-9a-f]{64}$/);
	t.diagnostic(`${item.json.vendor_name}, ${item.json.invoice_number}`);
});

test('The email examples (IMAP, Gmail, Outlook): every node type and typeVersion is one this n8n has', (t) => {
	// the node types n8n serves to its editor (n8n-nodes-base's types/nodes.json), and this package's
	const base = path.join(N8N_DIR, 'node_modules', 'n8n-nodes-base', 'dist', 'types', 'nodes.json');
	const known = {};
	for (const type of JSON.parse(fs.readFileSync(base, 'utf8')))
		(known[`n8n-nodes-base.${type.name.replace(/^n8n-nodes-base\./, '')}`] ??= []).push(
			...[type.version].flat(),
		);
	const { DocumentExtraction } = require(
		path.join(ROOT, 'dist/nodes/DocumentExtraction/DocumentExtraction.node.js'),
	);
	known['n8n-nodes-document-extraction.documentExtraction'] = [
		new DocumentExtraction().description.version,
	].flat();
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
			const versions = known[node.type] ?? [];
			assert.ok(
				versions.includes(node.typeVersion),
				`${file}: n8n ${N8N_VERSION} has no ${node.type} version ${node.typeVersion} (it has ${versions.join(', ') || 'none'})`,
			);
		}
	}
	t.diagnostic(`${files.join(', ')}: every node known to n8n ${N8N_VERSION}`);
});
