'use strict';

/**
 * What n8n's editor gets from the node beyond its items: the output schemas n8n serves from the
 * installed package's __schema__ folder. (The execution hints n8n keeps in the run it stores: the
 * case Inbox, on both versions; which hint each outcome gets: the unit tests of hints.ts.)
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const fs = require('node:fs');
const path = require('node:path');

const { startN8n } = require('../../../harness/n8n.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const SCHEMAS = path.resolve(__dirname, '../../../nodes/DocumentExtraction/__schema__/v1.0.0');

test("Schema: n8n serves each operation's output schema to the editor, as the editor asks for it", async (t) => {
	if (!state.n8n?.alive) await startN8n();
	const served = [];
	for (const route of ['document/submit', 'project/list', 'project/registerWebhook']) {
		// the address the editor's schema preview requests: node type, padded version, resource, operation
		const url = `http://127.0.0.1:${state.n8nPort}/schemas/n8n-nodes-document-extraction.documentExtraction/1.0.0/${route}.json`;
		const res = await fetch(url);
		assert.equal(res.status, 200, `${route}: HTTP ${res.status}`);
		const schema = await res.json();
		assert.deepEqual(
			schema,
			JSON.parse(fs.readFileSync(path.join(SCHEMAS, `${route}.json`), 'utf8')),
		);
		served.push(`${route}: ${Object.keys(schema.properties).length} fields`);
	}
	// these output the project's fields: no schema, rather than fields the output lacks
	for (const route of ['document/submitAndWait', 'document/getStatus', 'document/nothing']) {
		const missing = await fetch(
			`http://127.0.0.1:${state.n8nPort}/schemas/n8n-nodes-document-extraction.documentExtraction/1.0.0/${route}.json`,
		);
		assert.equal(missing.status, 404, `${route}: HTTP ${missing.status}`);
	}
	t.diagnostic(served.join('; '));
});
