#!/usr/bin/env node
'use strict';

/**
 * Writes examples/n8n1/production.json, the production workflow for n8n 1.x, from
 * examples/production.json (n8n 2.x). n8n 1.x has only version 1 of the Data table node: rows
 * only (no table create) and the table by ID or from the list (no "By Name"). So in the 1.x file:
 *   - every Data table node is version 1 and finds the table by the ID in the Settings node
 *     (`data_table_id`), read as a parameter (`$('Settings').params`), so that the intake and the
 *     completion read it too, though their runs never pass through Settings: one value to paste;
 *   - "Create the Table If Missing" is left out (the chains of Receive Documents and Every 2 Minutes
 *     go from the trigger straight on): the table is created under Overview → Data tables; the note
 *     says so.
 * Everything else (nodes, ids, webhook ids, connections) is the same as the 2.x file.
 *
 *   node scripts/examples-n8n1.js          write the file
 *   node scripts/examples-n8n1.js --check  exit 1 when the file differs from what it would write
 */

const fs = require('node:fs');
const path = require('node:path');

const EXAMPLES = path.resolve(__dirname, '../examples');
const OUT = path.join(EXAMPLES, 'n8n1');
const FILES = ['production.json'];
const DATA_TABLE = 'n8n-nodes-base.dataTable';
const SETTINGS = 'Settings';
const TABLE_ID_FIELD = 'data_table_id';
/** What the Data table nodes show until the table's ID is pasted; its error names it. */
const PLACEHOLDER = 'paste-the-id-of-document_extraction_tasks';
const TABLE_ID = `={{ $('${SETTINGS}').params.assignments.assignments.find((a) => a.name === '${TABLE_ID_FIELD}').value }}`;
const SETTINGS_NOTE =
	'Paste the ID of the Data table document_extraction_tasks into data_table_id (Overview → Data tables → the table; the ID is in its URL).';
/** The sticky note with the setup steps, which the 1.x file words for n8n 1.x. */
const START_HERE = 'Start Here';
/** The 2.x nodes n8n 1.x has no counterpart for. */
const TABLE_NODES = ['Create the Table If Missing'];

/** What the note says about the table and the credential, in the 2.x file and in this one. */
const NOTE = [
	[
		'The first post, or the first catch-up run, creates the table.',
		'First create the Data table document_extraction_tasks under **Overview → Data tables** and paste its ID into **Settings** (docs/production.md, n8n 1.x).',
	],
	[
		'On import, n8n puts your Document Extraction credential into **Document Extraction Trigger**, **Submit**, **Get Status** and **When It Was Created**: check it there.',
		'Pick your credential in **Document Extraction Trigger**, **Submit**, **Get Status** and **When It Was Created**: n8n 1.x does not put it in on import.',
	],
	[
		'Then publish.',
		'Then save, and turn the **Inactive** switch at the top right to **Active** (n8n 1.x has no Publish).',
	],
];

/** The note for n8n 1.x; fails when the 2.x note no longer has the text it replaces. */
function note(content) {
	return NOTE.reduce((text, [from, to]) => {
		const next = text.replace(from, to);
		if (next === text) throw new Error(`production.json: its note no longer says ${from}`);
		return next;
	}, content);
}

/** Removes a node and every connection to or from it; a node in a chain is bypassed (its inputs go on to its outputs). */
function removeNode(wf, name) {
	const after = (wf.connections[name]?.main ?? []).flat();
	for (const byType of Object.values(wf.connections))
		for (const output of byType.main ?? [])
			if (output.some((c) => c.node === name))
				for (const target of after)
					if (!output.some((c) => c.node === target.node && c.index === target.index))
						output.push({ ...target });
	delete wf.connections[name];
	for (const byType of Object.values(wf.connections))
		for (const output of byType.main ?? [])
			for (let i = output.length - 1; i >= 0; i--) if (output[i].node === name) output.splice(i, 1);
	wf.nodes = wf.nodes.filter((n) => n.name !== name);
}

function convert(wf) {
	for (const name of TABLE_NODES) {
		if (!wf.nodes.some((n) => n.name === name)) throw new Error(`production.json has no "${name}"`);
		removeNode(wf, name);
	}
	const settings = wf.nodes.find((n) => n.name === SETTINGS);
	settings.parameters.assignments.assignments.push({
		id: 'data-table-id',
		name: TABLE_ID_FIELD,
		value: PLACEHOLDER,
		type: 'string',
	});
	settings.notes = SETTINGS_NOTE;
	const start = wf.nodes.find((n) => n.name === START_HERE);
	if (!start) throw new Error(`production.json has no sticky note "${START_HERE}"`);
	start.parameters.content = note(start.parameters.content);
	for (const node of wf.nodes) {
		if (node.type !== DATA_TABLE) continue;
		if (node.parameters.resource === 'table')
			throw new Error(`"${node.name}" uses a table operation, which n8n 1.x lacks`);
		node.typeVersion = 1;
		node.parameters.dataTableId = { __rl: true, mode: 'id', value: TABLE_ID };
	}
	return wf;
}

function render(file) {
	const wf = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
	return `${JSON.stringify(convert(wf), null, 2)}\n`;
}

function main() {
	const check = process.argv.includes('--check');
	fs.mkdirSync(OUT, { recursive: true });
	const stale = [];
	for (const file of FILES) {
		const text = render(file);
		const target = path.join(OUT, file);
		if (check) {
			if (!fs.existsSync(target) || fs.readFileSync(target, 'utf8') !== text) stale.push(target);
		} else fs.writeFileSync(target, text);
	}
	if (stale.length) {
		console.error(`out of date (run node scripts/examples-n8n1.js): ${stale.join(', ')}`);
		process.exit(1);
	}
}

if (require.main === module) main();

module.exports = { convert, render, FILES, OUT, SETTINGS, TABLE_ID_FIELD, PLACEHOLDER };
