#!/usr/bin/env node
'use strict';

/**
 * Writes examples/n8n1/production-*.json, the production setup for n8n 1.x, from
 * examples/production-*.json (n8n 2.x). n8n 1.x has only version 1 of the Data table node: rows
 * only (no table create) and the table by ID or from the list (no "By Name"). So in the 1.x set:
 *   - every Data table node is version 1 and finds the table by the ID in a Settings node of its
 *     own workflow (`data_table_id`): one value to paste per workflow, Intake, Catch-up and Deliver;
 *   - Intake's "Create the Table If Missing" becomes that Settings node, and its manual "Create
 *     the Table (Run Once)" branch is left out: the table is created under Overview → Data tables;
 *     Intake's note says so, and leaves out the local copy `npm start` imports (it runs n8n 2.x).
 * Everything else (nodes, ids, webhook ids, connections) is the same as the 2.x set.
 *
 *   node scripts/examples-n8n1.js          write the files
 *   node scripts/examples-n8n1.js --check  exit 1 when the files differ from what it would write
 */

const fs = require('node:fs');
const path = require('node:path');

const EXAMPLES = path.resolve(__dirname, '../examples');
const OUT = path.join(EXAMPLES, 'n8n1');
const FILES = [
	'production-intake.json',
	'production-completion.json',
	'production-catch-up.json',
	'production-deliver.json',
];
const DATA_TABLE = 'n8n-nodes-base.dataTable';
const SETTINGS = 'Settings';
const TABLE_ID_FIELD = 'data_table_id';
/** What the Data table nodes show until the table's ID is pasted; its error names it. */
const PLACEHOLDER = 'paste-the-id-of-document_extraction_tasks';
const TABLE_ID = `={{ $('${SETTINGS}').first().json.${TABLE_ID_FIELD} }}`;

/**
 * n8n 1.x's Data table node pairs every row it inserts with the first input item when the table
 * ID is an expression (it inserts one item at a time then). "Record as Sending" is such a node,
 * so Submit's `$('Loop Over Documents').item` would name the batch's first document for all five:
 * the 1.x Submit takes the document at its own position in the batch instead (output 1, "loop").
 */
const LOOP = 'Loop Over Documents';
const SUBMIT_URL = `={{ $('${LOOP}').all(1)[$itemIndex].json.url }}`;
const SUBMIT_NOTE =
	"The document at this item's position in the batch: on n8n 1.x, Record as Sending does not keep each row paired with its document.";

const tableIdAssignment = {
	id: 'data-table-id',
	name: TABLE_ID_FIELD,
	value: PLACEHOLDER,
	type: 'string',
};

function settingsNode(id, position, includeOtherFields) {
	return {
		id,
		name: SETTINGS,
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		position,
		parameters: {
			mode: 'manual',
			includeOtherFields,
			assignments: { assignments: [tableIdAssignment] },
			options: {},
		},
		notes:
			'Paste the ID of the Data table document_extraction_tasks (Overview → Data tables → the table; the ID is in its URL).',
	};
}

/** What Intake's note says about the table and the local copy, in the 2.x set and in this one. */
const INTAKE_NOTE = [
	[
		'The table is created on the first call.',
		'First create the Data table document_extraction_tasks under **Overview → Data tables** and paste its ID into **Settings** (docs/production.md, n8n 1.x).',
	],
	[
		/\n\nThe local copy that `npm start` imports turns \*Allow Private Addresses\* on [^\n]*$/,
		'\n\nTurn *Allow Private Addresses* on in **Submit** only for documents on your own network.',
	],
];

/** Intake's sticky note for n8n 1.x; fails when the 2.x note no longer has the text it replaces. */
function intakeNote(content) {
	return INTAKE_NOTE.reduce((text, [from, to]) => {
		const next = text.replace(from, to);
		if (next === text) throw new Error(`production-intake.json: its note no longer says ${from}`);
		return next;
	}, content);
}

/** Removes a node and its connections; links its inputs to its outputs when `bridge`. */
function removeNode(wf, name, bridge) {
	const outs = (wf.connections[name]?.main ?? []).flat();
	delete wf.connections[name];
	for (const byType of Object.values(wf.connections))
		for (const output of byType.main ?? [])
			for (let i = output.length - 1; i >= 0; i--)
				if (output[i].node === name) output.splice(i, 1, ...(bridge ? outs : []));
	wf.nodes = wf.nodes.filter((n) => n.name !== name);
}

/** Puts `node` between `from` and everything `from` connected to. */
function insertAfter(wf, from, node) {
	wf.connections[node.name] = { main: [wf.connections[from].main[0]] };
	wf.connections[from].main[0] = [{ node: node.name, type: 'main', index: 0 }];
	wf.nodes.push(node);
}

function convert(file, wf) {
	if (file === 'production-intake.json') {
		const create = wf.nodes.find((n) => n.name === 'Create the Table If Missing');
		const settings = settingsNode(create.id, create.position, false);
		const next = wf.connections[create.name];
		removeNode(wf, create.name, false);
		wf.connections['Receive Documents'].main[0] = [{ node: SETTINGS, type: 'main', index: 0 }];
		wf.connections[SETTINGS] = next;
		wf.nodes.push(settings);
		const once = wf.nodes.find((n) => n.name === 'Create the Table (Run Once)');
		for (const name of wf.connections[once.name].main[0].map((c) => c.node))
			removeNode(wf, name, false);
		removeNode(wf, once.name, false);
		for (const note of wf.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote'))
			note.parameters.content = intakeNote(note.parameters.content);
		const submit = wf.nodes.find((n) => n.name === 'Submit');
		if (submit.parameters.documentUrl !== `={{ $('${LOOP}').item.json.url }}`)
			throw new Error(`${file}: Submit's Document URL is not the one this script rewrites`);
		submit.parameters.documentUrl = SUBMIT_URL;
		submit.notes = SUBMIT_NOTE;
	}
	if (file === 'production-deliver.json') {
		const trigger = wf.nodes.find((n) => n.type === 'n8n-nodes-base.executeWorkflowTrigger');
		insertAfter(
			wf,
			trigger.name,
			settingsNode(
				'a4000000-0000-4000-8000-0000000000f1',
				[trigger.position[0] + 110, trigger.position[1] + 160],
				true,
			),
		);
	}
	if (file === 'production-catch-up.json') {
		const settings = wf.nodes.find((n) => n.name === SETTINGS);
		settings.parameters.assignments.assignments.push(tableIdAssignment);
		settings.notes = settingsNode('', [0, 0], false).notes;
	}
	for (const node of wf.nodes) {
		if (node.type !== DATA_TABLE) continue;
		if (node.parameters.resource === 'table')
			throw new Error(`${file}: "${node.name}" uses a table operation, which n8n 1.x lacks`);
		node.typeVersion = 1;
		node.parameters.dataTableId = { __rl: true, mode: 'id', value: TABLE_ID };
	}
	return wf;
}

function render(file) {
	const wf = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
	return `${JSON.stringify(convert(file, wf), null, 2)}\n`;
}

function main() {
	const check = process.argv.includes('--check');
	fs.mkdirSync(OUT, { recursive: true });
	let stale = [];
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
