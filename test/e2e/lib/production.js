'use strict';

/**
 * The production-setup examples (examples/production-*.json) as the suites run them: Intake,
 * Completion, Catch-up and the shared delivery workflow, with the downstream step pointed at the
 * emulator's sink and the catch-up's timing shortened. Also the Data Table rows and the sink's
 * calls, read back for the checks (shared by the e2e and queue suites).
 */

const fs = require('node:fs');
const path = require('node:path');

const { IS_N8N_1, rest, waitFor } = require('../../../harness/n8n.js');
const state = require('../../../harness/state.js');
const { emulatorTasks, servedFiles } = require('./emulator-client.js');
const { sleep, INTAKE_KEY } = require('../../../harness/fixtures.js');
const { DEFAULT_PROJECTS } = require('../../../emulator/lib/fixtures.js');

/** n8n 1.x imports the variant in examples/n8n1 (Data table node version 1). */
const EXAMPLES = path.resolve(__dirname, '../../../examples', IS_N8N_1 ? 'n8n1' : '');
const FILE = 'production.json';

/** The one production workflow: intake, completion and catch-up. */
const PROD = { id: 'DocExtrProduct01' };

const TABLE = 'document_extraction_tasks';
const INTAKE_PATH = 'document-extraction-intake';
const TRIGGER = 'Document Extraction Trigger';
const SINK_NAME = 'crm';
/** The emulator's project and document type, picked as a user picks theirs after the import. */
const INVOICES = DEFAULT_PROJECTS.find((p) => p.name === 'Invoices');
const PROJECT = {
	__rl: true,
	mode: 'list',
	value: INVOICES.project_id,
	cachedResultName: INVOICES.name,
};
const DOCUMENT_TYPE = INVOICES.document_types[0];
/** The sink the example's "Tell Someone" node calls instead of email or chat. */
const ALERTS = 'alerts';

function readExample() {
	return JSON.parse(fs.readFileSync(path.join(EXAMPLES, FILE), 'utf8'));
}

function nodeOf(workflow, name) {
	const found = workflow.nodes.find((n) => n.name === name);
	if (!found) throw new Error(`${workflow.name} has no node "${name}"`);
	return found;
}

/**
 * Puts an HTTP Request node that posts each item to `url` after the node `name`, in its place in
 * the chain: what the user's own node does where the example has a placeholder that only shows
 * what it gets.
 */
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

/** Every output of the workflow that leads to more than one node: [{from, output, targets}]. */
function fanOuts(workflow) {
	const found = [];
	for (const [from, byType] of Object.entries(workflow.connections))
		for (const [output, targets] of (byType.main ?? []).entries())
			if ((targets ?? []).length > 1)
				found.push({ from, output, targets: targets.map((c) => c.node) });
	return found;
}

/** The order n8n's execution order v1 gives a fan-out's targets: top to bottom, then left to right. */
function canvasOrder(workflow, names) {
	const at = (name) => nodeOf(workflow, name).position;
	return [...names].sort((a, b) => at(a)[1] - at(b)[1] || at(a)[0] - at(b)[0]);
}

/**
 * A copy of the workflow with its canvas scrambled as a user's hands (a drag, n8n's Tidy up) may
 * leave it: every node moved, and every fan-out's targets in the reverse of their order top to
 * bottom. Only positions change; fails if it cannot reverse every fan-out.
 */
function scrambled(workflow) {
	const wf = JSON.parse(JSON.stringify(workflow));
	const original = Object.fromEntries(wf.nodes.map((n) => [n.name, [...n.position]]));
	// every node moved: stretched and shifted, by an offset of its own
	for (const [i, node] of wf.nodes.entries())
		node.position = [
			Math.round(node.position[0] * 1.25 + 40 + ((i * 71) % 160)),
			Math.round(node.position[1] * 1.5 + 30 + ((i * 53) % 110)),
		];
	// every fan-out's targets reversed: the positions they now have, handed out in reverse order
	for (const { targets } of fanOuts(wf)) {
		const before = canvasOrder(
			{ nodes: wf.nodes.map((n) => ({ ...n, position: original[n.name] })) },
			targets,
		);
		const slots = canvasOrder(wf, targets).map((name) => [...nodeOf(wf, name).position]);
		for (const [i, name] of [...before].reverse().entries()) nodeOf(wf, name).position = slots[i];
	}
	const shipped = { nodes: wf.nodes.map((n) => ({ ...n, position: original[n.name] })) };
	for (const { from, targets } of fanOuts(wf)) {
		const now = canvasOrder(wf, targets);
		if (JSON.stringify(now) !== JSON.stringify(canvasOrder(shipped, targets).reverse()))
			throw new Error(`scrambled: the targets of ${from} are not reversed (${now.join(', ')})`);
	}
	for (const node of wf.nodes)
		if (JSON.stringify(node.position) === JSON.stringify(original[node.name]))
			throw new Error(`scrambled: ${node.name} did not move`);
	return wf;
}

/**
 * The production workflow as the suites import it:
 *   sinkUrl            the downstream step's URL (the emulator's sink)
 *   catchUpSeconds     the catch-up's schedule, in seconds
 *   pendingMinutes     how old a pending row must be before the catch-up asks for it
 *   stuckMinutes       how long a row may stay processing or sending before it is reported
 *   claim              false: the control without de-duplication (the row is looked up by
 *                      task_id and the downstream step runs for every copy)
 *   batchSize          documents per Intake loop (the example's 5 when absent)
 *   tableId            n8n 1.x: the Data Table's ID, pasted into the Settings node
 *   layout             'scrambled': the canvas scrambled (see scrambled()), else as shipped
 */
function productionWorkflow({
	layout = 'shipped',
	sinkUrl,
	catchUpSeconds = 10,
	pendingMinutes = 0.1,
	stuckMinutes = 10,
	claim = true,
	batchSize,
	tableId,
}) {
	const wf = layout === 'scrambled' ? scrambled(readExample()) : readExample();
	if (IS_N8N_1) {
		if (!tableId) throw new Error('n8n 1.x: the workflow needs the Data Table ID (tableId)');
		settingOf(wf, 'data_table_id').value = tableId;
	}
	// the user's picks after the import: the Intake Key credential, the emulator's project and
	// document type
	nodeOf(wf, 'Receive Documents').credentials = {
		httpHeaderAuth: { id: INTAKE_KEY.id, name: INTAKE_KEY.name },
	};
	nodeOf(wf, TRIGGER).parameters.project = { ...PROJECT };
	const submit = nodeOf(wf, 'Submit');
	submit.parameters.documentType = DOCUMENT_TYPE;
	// the test documents are served by the emulator, on 127.0.0.1
	submit.parameters.options = { ...submit.parameters.options, allowPrivateAddresses: true };
	// the user's own CRM and alert nodes after the two placeholders: the emulator's sink
	postAfter(wf, 'Downstream Step', sinkUrl, {
		retryOnFail: true,
		maxTries: 3,
		waitBetweenTries: 2000,
	});
	postAfter(wf, 'Tell Someone', sinkUrl.replace(/\/sink\/[^/]*$/, `/sink/${ALERTS}`));
	if (batchSize !== undefined) nodeOf(wf, 'Loop Over Documents').parameters.batchSize = batchSize;
	if (!claim) {
		const lookup = nodeOf(wf, 'Claim the Pending Row');
		lookup.parameters = {
			resource: 'row',
			operation: 'get',
			dataTableId: lookup.parameters.dataTableId,
			matchType: 'allConditions',
			filters: {
				conditions: [{ keyName: 'task_id', condition: 'eq', keyValue: '={{ $json.task_id }}' }],
			},
			returnAll: true,
		};
	}
	const schedule = wf.nodes.find((n) => n.type === 'n8n-nodes-base.scheduleTrigger');
	schedule.parameters.rule = { interval: [{ field: 'seconds', secondsInterval: catchUpSeconds }] };
	settingOf(wf, 'pending_minutes').value = pendingMinutes;
	settingOf(wf, 'stuck_minutes').value = stuckMinutes;
	return wf;
}

/**
 * A copy of the workflow for the control without de-duplication: an id, trigger webhook id and
 * intake path of its own; the row is looked up by task_id, whatever its status, and the
 * downstream step runs for every copy that starts a run.
 */
function controlWorkflow(options) {
	const wf = productionWorkflow({ ...options, claim: false });
	wf.id = `${PROD.id.slice(0, -1)}C`;
	wf.name = `${wf.name} (control, no de-duplication)`;
	const trigger = nodeOf(wf, TRIGGER);
	trigger.webhookId = `${trigger.webhookId.slice(0, -1)}c`;
	const receive = nodeOf(wf, 'Receive Documents');
	receive.webhookId = `${receive.webhookId.slice(0, -1)}c`;
	receive.parameters.path = `${INTAKE_PATH}-control`;
	return wf;
}

/** Writes the workflows into a folder of their own under the work folder; returns it. */
function writeWorkflows(workflows, folderName = 'production-workflows') {
	const dir = path.join(state.tmp, folderName);
	fs.mkdirSync(dir, { recursive: true });
	for (const wf of workflows)
		fs.writeFileSync(path.join(dir, `${wf.id}.json`), JSON.stringify(wf, null, 2));
	return dir;
}

/** The webhook id of the workflow's Document Extraction Trigger (its registration URL contains it). */
function completionWebhookId() {
	return nodeOf(readExample(), TRIGGER).webhookId;
}

/** The Data Table, once it exists: {id, projectId, name}. */
async function findTable() {
	const filter = encodeURIComponent(JSON.stringify({ name: TABLE }));
	const data = await rest('GET', `/data-tables-global?filter=${filter}&take=10`);
	return (data.data ?? []).find((t) => t.name === TABLE);
}

/**
 * Creates the table as a user does under Overview → Data tables (n8n 1.x's Data table node has no
 * table operations; on n8n 2.x a first post creates it too), with the columns of the 2.x Intake's
 * "Create the Table If Missing", unless it exists.
 */
async function createTable() {
	const found = await findTable();
	if (found) return found;
	const source = path.resolve(__dirname, '../../../examples', FILE);
	const create = nodeOf(JSON.parse(fs.readFileSync(source, 'utf8')), 'Create the Table If Missing');
	const { id: projectId } = await rest('GET', '/projects/personal');
	const columns = create.parameters.columns.column.map(({ name, type }) => ({ name, type }));
	await rest('POST', `/projects/${projectId}/data-tables`, { name: TABLE, columns });
	return await waitFor(`the Data Table ${TABLE} to be created`, findTable, 60000);
}

/** Deletes the Data Table, as its menu under Overview → Data tables does. */
async function deleteTable(table) {
	await rest('DELETE', `/projects/${table.projectId}/data-tables/${table.id}`);
	await waitFor(`the Data Table ${TABLE} to be deleted`, async () => !(await findTable()), 30000);
}

/** Every row of the Data Table. */
async function tableRows(table) {
	const rows = [];
	for (;;) {
		const data = await rest(
			'GET',
			`/projects/${table.projectId}/data-tables/${table.id}/rows?take=250&skip=${rows.length}`,
		);
		rows.push(...data.data);
		if (data.data.length === 0 || rows.length >= data.count) return rows;
	}
}

const byId = (rowId) => ({
	type: 'and',
	filters: [{ columnName: 'id', condition: 'eq', value: rowId }],
});

/** Changes one row through the REST API, as the editor's table view does: {column: value}. */
async function updateRow(table, rowId, data) {
	await rest('PATCH', `/projects/${table.projectId}/data-tables/${table.id}/rows`, {
		filter: byId(rowId),
		data,
	});
}

/** Deletes one row through the REST API, as the editor's table view does. */
async function deleteRow(table, rowId) {
	const filter = encodeURIComponent(JSON.stringify(byId(rowId)));
	await rest(
		'DELETE',
		`/projects/${table.projectId}/data-tables/${table.id}/rows?filter=${filter}`,
	);
}

async function emulatorAdmin(method, urlPath, body) {
	const res = await fetch(`${state.emulatorUrl}/_emulator${urlPath}`, {
		method,
		headers: { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	if (res.status >= 300)
		throw new Error(`emulator ${method} ${urlPath}: HTTP ${res.status} ${text}`);
	return JSON.parse(text);
}

/** The calls the downstream step made to the emulator's sink (`/_emulator/sink/<name>`). */
async function sinkCalls(name = SINK_NAME) {
	return (await emulatorAdmin('GET', '/sink')).calls.filter((c) => c.name === name);
}

/** How many calls reached the sink per task_id: {taskId: n}. */
function callsPerTask(calls) {
	const counts = {};
	for (const c of calls) counts[c.body?.task_id] = (counts[c.body?.task_id] ?? 0) + 1;
	return counts;
}

const emulatorSettings = (settings) => emulatorAdmin('POST', '/settings', settings);
const forgetTask = (taskId) => emulatorAdmin('POST', '/forget', { task_id: taskId });

/** The documents Intake receives: file name, a URL the emulator serves, and a customer of the user's own. */
function intakeDocuments(count, tag) {
	return Array.from({ length: count }, (_, i) => {
		const fileName = `${tag}-${String(i + 1).padStart(3, '0')}.pdf`;
		return {
			file_name: fileName,
			url: `${state.emulatorUrl}/_emulator/files/${fileName}`,
			customer: `CUST-${tag}-${i + 1}`,
		};
	});
}

/**
 * POSTs documents to the Intake's production webhook at `baseUrl` (`intakePath`, the example's
 * when absent); returns its answer: one entry per document ({key, file_name, state, status,
 * task_id, reason}).
 * While the webhook is not registered yet (404: n8n 1.x activates workflows after it reports
 * ready, and starts no run for such a request), the POST is repeated for up to 60 s.
 */
async function intake(baseUrl, documents, intakePath = INTAKE_PATH) {
	const { status, text } = await postIntake(baseUrl, { documents }, { intakePath });
	if (status !== 200) throw new Error(`Intake answered ${status}: ${text.slice(0, 500)}`);
	const answer = JSON.parse(text);
	return Array.isArray(answer) ? answer : [answer];
}

/**
 * POSTs `body` (any JSON) to Intake with the Intake Key's header (`key`: another value, or null for
 * none); returns {status, text}. Repeats the post while n8n has not registered the webhook yet.
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

/**
 * The downstream calls whose task the service made from another document than the call's
 * file_name names (the served file's SHA-256 against the task's): [] when each is right.
 */
async function wrongDocuments(calls) {
	const shaOf = Object.fromEntries((await servedFiles()).map((f) => [f.name, f.sha256]));
	const taskSha = Object.fromEntries(
		(await emulatorTasks()).map((x) => [x.task_id, x.result?.file_sha256 ?? x.file_sha256]),
	);
	return calls
		.filter((c) => taskSha[c.body.task_id] !== shaOf[c.body.file_name])
		.map((c) => `${c.body.file_name} (task ${c.body.task_id})`);
}

module.exports = {
	wrongDocuments,
	fanOuts,
	canvasOrder,
	scrambled,
	readExample,
	ALERTS,
	PROD,
	TABLE,
	TRIGGER,
	INTAKE_PATH,
	productionWorkflow,
	controlWorkflow,
	writeWorkflows,
	completionWebhookId,
	findTable,
	createTable,
	deleteTable,
	tableRows,
	updateRow,
	deleteRow,
	sinkCalls,
	callsPerTask,
	emulatorSettings,
	forgetTask,
	intakeDocuments,
	intake,
	postIntake,
};
