#!/usr/bin/env node
'use strict';

/**
 * The example workflows as `npm start` imports them: examples/*.json with the settings the local
 * setup needs, so that each one runs as imported.
 *
 * - The examples name the emulator at its default address, http://127.0.0.1:8790; the local copy
 *   names the address the emulator was started on (EMULATOR_PORT).
 * - A Document Extraction node that downloads its document by URL (Input Source: URL) gets
 *   Allow Private Addresses on: the local documents are the emulator's, on 127.0.0.1, which the
 *   download refuses otherwise. The files in examples/ keep it off, as it belongs in production.
 * - The production workflow (examples/production.json) listens on an emulator project of its own,
 *   "Invoices EU – Zürich (2025)", and its intake submits there: the tasks the other examples
 *   create in "Invoices" never reach it, and its own tasks never reach Trigger to CRM. Its
 *   Submit sends the type "invoice": the file leaves the project and the type for the user to pick.
 *
 *   node scripts/local-examples.js <out dir> <emulator URL>   writes the local copies into <out dir>
 */

const fs = require('node:fs');
const path = require('node:path');

const EXAMPLES = path.resolve(__dirname, '../examples');
const DEFAULT_EMULATOR_URL = 'http://127.0.0.1:8790';
const PRODUCTION_ID = 'DocExtrProduct01';
/** The emulator's project the local production workflow uses (emulator/lib/fixtures.js). */
const PRODUCTION_PROJECT = {
	__rl: true,
	mode: 'list',
	value: 'c7e2d1f0-4b3a-4e5d-9f8a-1b2c3d4e5f60',
	cachedResultName: 'Invoices EU – Zürich (2025)',
};
/** The document type its Submit sends, which the file leaves for the user to pick. */
const PRODUCTION_DOCUMENT_TYPE = 'invoice';
const TRIGGER_TYPE = 'n8n-nodes-document-extraction.documentExtractionTrigger';
const ACTION_TYPES = [
	'n8n-nodes-document-extraction.documentExtraction',
	'n8n-nodes-document-extraction.documentExtractionTool',
];

/** The local copy of one example workflow (a new object; the argument is left as it is). */
function localExample(workflow, emulatorUrl = DEFAULT_EMULATOR_URL) {
	const base = emulatorUrl.replace(/\/+$/, '');
	const local = JSON.parse(JSON.stringify(workflow).split(DEFAULT_EMULATOR_URL).join(base));
	for (const node of local.nodes) {
		if (!ACTION_TYPES.includes(node.type) || node.parameters?.inputSource !== 'url') continue;
		node.parameters.options = { ...node.parameters.options, allowPrivateAddresses: true };
	}
	if (local.id === PRODUCTION_ID)
		for (const node of local.nodes) {
			if (node.type === TRIGGER_TYPE) node.parameters.project = { ...PRODUCTION_PROJECT };
			else if (ACTION_TYPES.includes(node.type) && node.parameters.documentType === '')
				node.parameters.documentType = PRODUCTION_DOCUMENT_TYPE;
		}
	return local;
}

/** Writes the local copy of every example into `outDir`; returns the files written. */
function writeLocalExamples(outDir, emulatorUrl) {
	fs.mkdirSync(outDir, { recursive: true });
	return fs
		.readdirSync(EXAMPLES)
		.filter((name) => name.endsWith('.json'))
		.sort()
		.map((name) => {
			const workflow = JSON.parse(fs.readFileSync(path.join(EXAMPLES, name), 'utf8'));
			const file = path.join(outDir, name);
			fs.writeFileSync(file, `${JSON.stringify(localExample(workflow, emulatorUrl), null, 2)}\n`);
			return file;
		});
}

module.exports = { localExample, writeLocalExamples, DEFAULT_EMULATOR_URL, PRODUCTION_PROJECT };

if (require.main === module) {
	const [outDir, emulatorUrl] = process.argv.slice(2);
	if (!outDir || !emulatorUrl) {
		console.error('usage: node scripts/local-examples.js <out dir> <emulator URL>');
		process.exit(2);
	}
	for (const file of writeLocalExamples(outDir, emulatorUrl)) console.log(file);
}
