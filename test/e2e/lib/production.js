'use strict';

/**
 * examples/production.json as the e2e and queue suites import it (the downstream and alert steps
 * pointed at the emulator's sink, the catch-up shortened), and its Data Table and sink read back.
 */

const fs = require('node:fs');
const path = require('node:path');

const { IS_N8N_1, rest, waitFor } = require('../../../harness/n8n.js');
const state = require('../../../harness/state.js');
const { emulatorAdmin, emulatorTasks, servedFiles } = require('./emulator-client.js');
const { sleep, INTAKE_KEY } = require('../../../harness/fixtures.js');
const { DEFAULT_PROJECTS } = require('../../../emulator/lib/fixtures.js');

const EXAMPLES = path.resolve(__dirname, '../../../examples');
/** n8n 1.x imports the variant in examples/n8n1 (Data table node version 1). */
const FILE = path.join(EXAMPLES, IS_N8N_1 ? 'n8n1' : '', 'production.json');

const PROD = { id: 'DocExtrProduct01' };
const TABLE = 'document_extraction_tasks';
const INTAKE_PATH = 'document-extraction-intake';
const TRIGGER = 'Document Extraction Trigger';
/** The sink the example's "Tell Someone" node posts to instead of email or chat. */
const ALERTS = 'alerts';
const INVOICES = DEFAULT_PROJECTS.find((p) => p.name === 'Invoices');

const readExample = (file = FILE) => JSON.parse(fs.readFileSync(file, 'utf8'));

function nodeOf(workflow, name) {
	const found = workflow.nodes.find((n) => n.name === name);
	if (!found) throw new Error(`${workflow.name} has no node "${name}"`);
	return found;
}

/** An HTTP Request node posting each item to `url`, put after `name`: the user's own node there. */
function postAfter(workflow, name, url, settings = {}) {
	const from = nodeOf(workflow, name);
	const post = {
		id: `e2e00000-0000-4000-8000-${String(workflow.nodes.length).padStart(12, '0')}`,
		name: `${name}: Post`,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [from.position[0] + 120, from.position[1] + 160],
		parameters: {
			method: 'POST',
			url,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: '={{ JSON.stringify($json) }}',
			options: {},
		},
		...settings,
	};
	workflow.nodes.push(post);
	if (workflow.connections[name]) workflow.connections[post.name] = workflow.connections[name];
	workflow.connections[name] = { main: [[{ node: post.name, type: 'main', index: 0 }]] };
}

function settingOf(workflow, name) {
	const found = nodeOf(workflow, 'Settings').parameters.assignments.assignments.find(
		(a) => a.name === name,
	);
	if (!found) throw new Error(`${workflow.name}: Settings has no ${name}`);
	return found;
}

/** The targets of every output that leads to more than one node: [{from, targets}]. */
function fanOuts(workflow) {
	const found = [];
	for (const [from, byType] of Object.entries(workflow.connections))
		for (const targets of byType.main ?? [])
			if ((targets ?? []).length > 1) found.push({ from, targets: targets.map((c) => c.node) });
	return found;
}

/** The order execution order v1 gives a fan-out's targets: top to bottom, then left to right. */
function canvasOrder(nodes, names) {
	const at = (name) => nodes.find((n) => n.name === name).position;
	return [...names].sort((a, b) => at(a)[1] - at(b)[1] || at(a)[0] - at(b)[0]);
}

/**
 * The canvas as a drag or n8n's Tidy up may leave it: every node moved, every fan-out's targets
 * in the reverse of their shipped order top to bottom. Fails if it cannot reverse a fan-out.
 */
function scrambled(workflow) {
	const wf = structuredClone(workflow);
	const shipped = structuredClone(workflow.nodes);
	for (const [i, node] of wf.nodes.entries())
		node.position = [
			Math.round(node.position[0] * 1.25 + 40 + ((i * 71) % 160)),
			Math.round(node.position[1] * 1.5 + 30 + ((i * 53) % 110)),
		];
	for (const { targets } of fanOuts(wf)) {
		const slots = canvasOrder(wf.nodes, targets).map((name) => nodeOf(wf, name).position);
		for (const [i, name] of canvasOrder(shipped, targets).reverse().entries())
			nodeOf(wf, name).position = [...slots[i]];
	}
	for (const { from, targets } of fanOuts(wf)) {
		const now = canvasOrder(wf.nodes, targets);
		if (JSON.stringify(now) !== JSON.stringify(canvasOrder(shipped, targets).reverse()))
			throw new Error(`scrambled: the targets of ${from} are not reversed (${now.join(', ')})`);
	}
	const at = Object.fromEntries(shipped.map((n) => [n.name, JSON.stringify(n.position)]));
	const still = wf.nodes.filter((n) => JSON.stringify(n.position) === at[n.name]);
	if (still.length) throw new Error(`scrambled: ${still.map((n) => n.name)} did not move`);
	return wf;
}

/**
 * The production workflow as the suites import it. sinkUrl: the downstream step's URL (the
 * emulator's sink); batchSize: documents per Intake loop (the example's 5 when absent); tableId:
 * n8n 1.x, the Data Table's ID pasted into Settings; layout 'scrambled': see scrambled().
 */
function productionWorkflow({
	layout = 'shipped',
	sinkUrl,
	catchUpSeconds = 10,
	stuckMinutes = 10,
	batchSize,
	tableId,
}) {
	const wf = layout === 'scrambled' ? scrambled(readExample()) : readExample();
	if (IS_N8N_1) {
		if (!tableId) throw new Error('n8n 1.x: the workflow needs the Data Table ID (tableId)');
		settingOf(wf, 'data_table_id').value = tableId;
	}
	// the user's picks after the import: the Intake Key credential, the project, the document type
	nodeOf(wf, 'Receive Documents').credentials = {
		documentExtractionIntakeApi: { id: INTAKE_KEY.id, name: INTAKE_KEY.name },
	};
	nodeOf(wf, TRIGGER).parameters.project = {
		__rl: true,
		mode: 'list',
		value: INVOICES.project_id,
		cachedResultName: INVOICES.name,
	};
	const submit = nodeOf(wf, 'Submit');
	submit.parameters.documentType = INVOICES.document_types[0];
	// the test documents are served by the emulator, on 127.0.0.1
	submit.parameters.options = { ...submit.parameters.options, allowPrivateAddresses: true };
	postAfter(wf, 'Downstream Step', sinkUrl, {
		retryOnFail: true,
		maxTries: 3,
		waitBetweenTries: 2000,
	});
	postAfter(wf, 'Tell Someone', sinkUrl.replace(/\/sink\/[^/]*$/, `/sink/${ALERTS}`));
	if (batchSize !== undefined) nodeOf(wf, 'Loop Over Documents').parameters.batchSize = batchSize;
	const schedule = wf.nodes.find((n) => n.type === 'n8n-nodes-base.scheduleTrigger');
	schedule.parameters.rule = { interval: [{ field: 'seconds', secondsInterval: catchUpSeconds }] };
	settingOf(wf, 'pending_minutes').value = 0.1;
	settingOf(wf, 'stuck_minutes').value = stuckMinutes;
	return wf;
}

/** The webhook id of the workflow's Document Extraction Trigger (its registration URL holds it). */
const completionWebhookId = () => nodeOf(readExample(), TRIGGER).webhookId;

/** The Data Table, once it exists: {id, projectId, name}. */
async function findTable() {
	const filter = encodeURIComponent(JSON.stringify({ name: TABLE }));
	const data = await rest('GET', `/data-tables-global?filter=${filter}&take=10`);
	return (data.data ?? []).find((t) => t.name === TABLE);
}

/**
 * Creates the table as a user does under Overview → Data tables (n8n 1.x's Data table node has no
 * table operations), with the columns of the 2.x "Create the Table If Missing", unless it exists.
 */
async function createTable() {
	const found = await findTable();
	if (found) return found;
	const create = nodeOf(
		readExample(path.join(EXAMPLES, 'production.json')),
		'Create the Table If Missing',
	);
	const { id: projectId } = await rest('GET', '/projects/personal');
	const columns = create.parameters.columns.column.map(({ name, type }) => ({ name, type }));
	await rest('POST', `/projects/${projectId}/data-tables`, { name: TABLE, columns });
	return await waitFor(`the Data Table ${TABLE} to be created`, findTable, 60000);
}

async function deleteTable(table) {
	await rest('DELETE', `/projects/${table.projectId}/data-tables/${table.id}`);
	await waitFor(`the Data Table ${TABLE} to be deleted`, async () => !(await findTable()), 30000);
}

const rowsPath = (table) => `/projects/${table.projectId}/data-tables/${table.id}/rows`;

async function tableRows(table) {
	const rows = [];
	for (;;) {
		const data = await rest('GET', `${rowsPath(table)}?take=250&skip=${rows.length}`);
		rows.push(...data.data);
		if (data.data.length === 0 || rows.length >= data.count) return rows;
	}
}

const byId = (rowId) => ({
	type: 'and',
	filters: [{ columnName: 'id', condition: 'eq', value: rowId }],
});

/** Changes one row as the editor's table view does: {column: value}. */
async function updateRow(table, rowId, data) {
	await rest('PATCH', rowsPath(table), { filter: byId(rowId), data });
}

async function deleteRow(table, rowId) {
	const filter = encodeURIComponent(JSON.stringify(byId(rowId)));
	await rest('DELETE', `${rowsPath(table)}?filter=${filter}`);
}

/** The calls to the emulator's sink `/_emulator/sink/<name>`. */
async function sinkCalls(name = 'crm') {
	return (await emulatorAdmin('GET', '/sink')).calls.filter((c) => c.name === name);
}

/** How many times each value of `keyOf(item)` occurs: {key: n}. */
function countBy(items, keyOf) {
	const counts = {};
	for (const item of items) counts[keyOf(item)] = (counts[keyOf(item)] ?? 0) + 1;
	return counts;
}

/** {key: 1} for each of `keys`: what countBy gives when each occurs once. */
const eachOnce = (keys) => Object.fromEntries(keys.map((key) => [key, 1]));

/** How many calls reached the sink per task_id: {taskId: n}. */
const callsPerTask = (calls) => countBy(calls, (c) => c.body?.task_id);

const emulatorSettings = (settings) => emulatorAdmin('POST', '/settings', settings);
const forgetTask = (taskId) => emulatorAdmin('POST', '/forget', { task_id: taskId });

/** Documents for Intake: file name, a URL the emulator serves, a customer, and key = file name. */
function intakeDocuments(count, tag) {
	return Array.from({ length: count }, (_, i) => {
		const fileName = `${tag}-${String(i + 1).padStart(3, '0')}.pdf`;
		return {
			key: fileName,
			file_name: fileName,
			url: `${state.emulatorUrl}/_emulator/files/${fileName}`,
			customer: `CUST-${tag}-${i + 1}`,
		};
	});
}

/** POSTs documents to Intake at `baseUrl`; returns its answer, one entry per document. */
async function intake(baseUrl, documents, intakePath = INTAKE_PATH) {
	const { status, text } = await postIntake(baseUrl, { documents }, { intakePath });
	if (status !== 200) throw new Error(`Intake answered ${status}: ${text.slice(0, 500)}`);
	return [].concat(JSON.parse(text));
}

/**
 * POSTs `body` to Intake with the Intake Key's header (`key`: another value, or null for none):
 * {status, text}. Repeats the post for up to 60 s while n8n answers that the webhook is not
 * registered (n8n 1.x activates workflows after it reports ready; it starts no run then).
 */
async function postIntake(
	baseUrl,
	body,
	{ intakePath = INTAKE_PATH, key = INTAKE_KEY.value } = {},
) {
	const deadline = Date.now() + 60000;
	for (;;) {
		const res = await fetch(`${baseUrl}/webhook/${intakePath}`, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				...(key === null ? {} : { [INTAKE_KEY.header]: key }),
			},
			body: JSON.stringify(body),
		});
		const text = await res.text();
		if (res.status !== 404 || !/is not registered/.test(text) || Date.now() > deadline)
			return { status: res.status, text };
		await sleep(500);
	}
}

/** The SHA-256 of the document a task was made from. */
const taskSha = (task) => task.result?.file_sha256 ?? task.file_sha256;

/** The downstream calls whose task was made from another document than file_name names: []. */
async function wrongDocuments(calls) {
	const shaOf = Object.fromEntries((await servedFiles()).map((f) => [f.name, f.sha256]));
	const shaOfTask = Object.fromEntries((await emulatorTasks()).map((x) => [x.task_id, taskSha(x)]));
	return calls
		.filter((c) => shaOfTask[c.body.task_id] !== shaOf[c.body.file_name])
		.map((c) => `${c.body.file_name} (task ${c.body.task_id})`);
}

module.exports = {
	ALERTS,
	PROD,
	TRIGGER,
	readExample,
	productionWorkflow,
	completionWebhookId,
	findTable,
	createTable,
	deleteTable,
	tableRows,
	updateRow,
	deleteRow,
	sinkCalls,
	countBy,
	eachOnce,
	callsPerTask,
	emulatorSettings,
	forgetTask,
	intakeDocuments,
	intake,
	postIntake,
	taskSha,
	wrongDocuments,
};
