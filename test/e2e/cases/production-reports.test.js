'use strict';

/**
 * examples/production.json with its two red nodes replaced the way a user does it (in a copy; the
 * shipped file is never edited): Tell Someone by an HTTP Request node posting to a chat (the
 * emulator's sink `alerts`), Downstream Step by a Code node that outputs no item, several, unpaired
 * items or throws, as the document's context asks. On a fresh table. One case each: the outbox
 * (a chat answering 503, then back), the downstream contract, another client's task against the
 * upload window, keep_days, and a not_sent row the catch-up made.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { FILES, sleep } = require('../../../harness/fixtures.js');
const {
	n8nCliOk,
	startN8n,
	stopN8n,
	waitFor,
	waitPublished,
	IS_N8N_1,
	rest,
} = require('../../../harness/n8n.js');
const {
	addFault,
	clearFaults,
	registeredWebhooks,
	submitDirect,
	waitWebhookLive,
} = require('../lib/emulator-client.js');
const {
	PROD,
	ALERTS,
	productionWorkflow,
	completionWebhookId,
	createTable,
	deleteTable,
	findTable,
	tableRows,
	sinkCalls,
	emulatorSettings,
	intakeDocuments,
	intake,
} = require('../lib/production.js');
const {
	CATCH_UP_S,
	PROCESSING_MS,
	N8N_ENV,
	prod,
	n8nBase,
	catchUp,
	deliveriesOf,
} = require('../lib/production-cases.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const my = { table: undefined };
const minutesAgo = (m) => new Date(Date.now() - m * 60000).toISOString();
const alertsOf = async (match) => (await sinkCalls(ALERTS)).filter((c) => match(c.body ?? {}));
const rowsWhere = async (match) => (await tableRows(my.table)).filter(match);

/** The downstream the user put in: its output depends on the document's `mode`. */
const DOWNSTREAM_CODE = `const out = [];
for (const item of $input.all()) {
  const mode = JSON.parse(item.json.context || '{}').mode;
  if (mode === 'throw') throw new Error('the CRM refused the record');
  if (mode === 'several') out.push({ json: { n: 1 } }, { json: { n: 2 } }, { json: { n: 3 } });
  if (mode === 'unpaired') out.push({ json: { record: 'a' } }, { json: { record: 'b' } });
}
return out;`;

/** The shipped file, picked for the emulator, with the two red nodes replaced by the user's. */
function usersWorkflow(tableId) {
	const wf = productionWorkflow({
		sinkUrl: `${state.emulatorUrl}/_emulator/sink/crm`,
		catchUpSeconds: CATCH_UP_S,
		stuckMinutes: 0.2, // 12 s
		tableId,
	});
	// productionWorkflow put an HTTP post after each red node: take those out again
	for (const name of ['Downstream Step', 'Tell Someone']) {
		const post = `${name}: Post`;
		wf.connections[name] = wf.connections[post];
		delete wf.connections[post];
		wf.nodes = wf.nodes.filter((n) => n.name !== post);
	}
	const downstream = wf.nodes.find((n) => n.name === 'Downstream Step');
	Object.assign(downstream, {
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		parameters: { jsCode: DOWNSTREAM_CODE },
	});
	const tell = wf.nodes.find((n) => n.name === 'Tell Someone');
	const field = (name) => {
		const value = tell.parameters.assignments.assignments.find((a) => a.name === name).value;
		return String(value)
			.replace(/^=\{\{ /, '')
			.replace(/ \}\}$/, '');
	};
	const body = `={{ JSON.stringify({ status: $json.status, task_id: $json.task_id, document_key: $json.document_key, note: $json.note, sent_at: $json.sent_at, sent_until: $json.sent_until, what_to_do: ${field('what_to_do')} }) }}`;
	Object.assign(tell, {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'POST',
			url: `${state.emulatorUrl}/_emulator/sink/${ALERTS}`,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: body,
			options: {},
		},
	});
	return wf;
}

async function install() {
	if (!state.n8n?.alive) await startN8n(N8N_ENV);
	const old = await findTable();
	if (old) await deleteTable(old);
	my.table = await createTable();
	await ensureColumns();
	await stopN8n();
	const dir = path.join(state.tmp, 'production-reports');
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, `${PROD.id}.json`), JSON.stringify(usersWorkflow(my.table.id)));
	await n8nCliOk(['import:workflow', '--separate', `--input=${dir}`]);
	if (!IS_N8N_1) await n8nCliOk(['publish:workflow', `--id=${PROD.id}`]);
	await startN8n(N8N_ENV);
	if (IS_N8N_1) {
		const { versionId } = await rest('GET', `/workflows/${PROD.id}`);
		await rest('PATCH', `/workflows/${PROD.id}`, { active: true, versionId });
	}
	await waitPublished(PROD.id);
	const hook = await waitFor('the Completion trigger to register its webhook', async () =>
		(await registeredWebhooks()).find((w) => w.url.includes(completionWebhookId())),
	);
	prod.hookUrl = hook.url;
	prod.table = my.table;
	await waitWebhookLive(prod.hookUrl);
	await emulatorSettings({ processing_ms: PROCESSING_MS, time_scale: 1, sink_down: [] });
}

/** The columns this file's cases read, added as a person does to a table made by an earlier file. */
async function ensureColumns() {
	const base = `/projects/${my.table.projectId}/data-tables/${my.table.id}/columns`;
	const have = (await rest('GET', base)).map((c) => c.name);
	const wanted = {
		report: 'string',
		reported_at: 'date',
		claimed_by: 'string',
		sent_at: 'date',
		sent_until: 'date',
	};
	for (const [name, type] of Object.entries(wanted))
		if (!have.includes(name)) await rest('POST', base, { name, type });
}

/** Adds rows as a person does in the table view: returns them with their ids. */
async function insertRows(rows) {
	const base = `/projects/${my.table.projectId}/data-tables/${my.table.id}`;
	return await rest('POST', `${base}/insert`, { data: rows, returnType: 'all' });
}

async function rowsUntil(what, match, check, timeoutMs = 90000) {
	let rows = [];
	await waitFor(
		() => `${what} (${JSON.stringify(rows.map((r) => [r.document_key, r.status, r.report]))})`,
		async () => check((rows = await rowsWhere(match))),
		timeoutMs,
		500,
	);
	return rows;
}

test('Production reports: an alert channel answering 503 delays a report and never loses it: the row stays owed, and once the channel is back it is reported exactly once', async (t) => {
	await install();
	const key = 'REPORT-503';
	await emulatorSettings({ sink_down: [ALERTS] });
	try {
		// an upload whose answer was lost, left sending: the catch-up makes it possibly_sent
		await insertRows([
			{
				document_key: key,
				url: 'http://127.0.0.1:9/a.pdf',
				status: 'sending',
				status_changed_at: minutesAgo(1),
			},
		]);
		const mine = (r) => r.document_key === key;
		await rowsUntil(
			'the row to be possibly_sent, owing its report',
			mine,
			(rows) => rows[0]?.status === 'possibly_sent' && rows[0]?.report === 'due',
		);
		await catchUp(); // a run that tries to tell, and fails on the 503
		const [owed] = await rowsWhere(mine);
		assert.equal(owed.report, 'due', 'the failed report was marked sent');
		assert.equal((await alertsOf((b) => b.document_key === key)).length, 0);
	} finally {
		await emulatorSettings({ sink_down: [] });
	}
	const backAt = Date.now();
	await waitFor(
		'the report once the channel is back',
		async () => (await alertsOf((b) => b.document_key === key)).length > 0,
	);
	const afterS = (Date.now() - backAt) / 1000;
	await catchUp();
	const told = await alertsOf((b) => b.document_key === key);
	const [row] = await rowsWhere((r) => r.document_key === key);
	t.diagnostic(
		`503 while owed: 0 messages, report ${'due'}; back: told ${afterS.toFixed(1)} s later, ${told.length} message(s) in all; row report '${row.report}', reported_at ${row.reported_at}`,
	);
	assert.equal(told.length, 1, JSON.stringify(told.map((c) => c.body)));
	assert.equal(told[0].body.status, 'possibly_sent');
	assert.ok(told[0].body.what_to_do);
	assert.ok(
		!row.report && row.reported_at,
		`the row is not marked reported: ${JSON.stringify(row)}`,
	);
});

test('Production reports: a downstream step that outputs no item, several items or unpaired items marks the row done once; one that throws leaves it stuck, reported once', async (t) => {
	const modes = ['none', 'several', 'unpaired', 'throw'];
	const docs = intakeDocuments(modes.length, 'CONTRACT').map((d, i) => ({ ...d, mode: modes[i] }));
	const answer = await intake(n8nBase(), docs);
	assert.deepEqual(
		answer.map((e) => e.state),
		modes.map(() => 'accepted'),
		JSON.stringify(answer),
	);
	const keys = docs.map((d) => d.key);
	const mine = (r) => keys.includes(r.document_key);
	const expected = ['done', 'done', 'done', 'stuck'];
	const rows = await rowsUntil(
		'done ×3, stuck ×1',
		mine,
		(found) =>
			found.length === 4 &&
			keys.every((k, i) => found.find((r) => r.document_key === k)?.status === expected[i]),
	);
	await waitFor(
		'the stuck row to be reported',
		async () => (await alertsOf((b) => b.document_key === keys[3])).length > 0,
	);
	await catchUp();
	const told = await alertsOf((b) => keys.includes(b.document_key));
	const byKey = Object.fromEntries((await rowsWhere(mine)).map((r) => [r.document_key, r]));
	t.diagnostic(
		`${modes.map((m, i) => `${m}: ${byKey[keys[i]].status}`).join(', ')}; messages ${told.length} (${told.map((c) => c.body.status)})`,
	);
	for (const [i, key] of keys.entries()) assert.equal(byKey[key].status, expected[i], key);
	assert.equal(told.length, 1, JSON.stringify(told.map((c) => c.body)));
	assert.equal(told[0].body.status, 'stuck');
	// done once: Mark the Row Done changed each row in one run
	for (const key of keys.slice(0, 3))
		assert.equal(byKey[key].report ?? '', '', `${key} owes a report`);
	assert.equal(rows.length, 4);
});

test('Production reports: another client’s task created after a row’s upload ended gets no row and no message; one created during an upload is reported unmatched, naming the row as a candidate with its created_at and the upload window', async (t) => {
	// a possibly_sent row whose upload ended a minute ago (its report is not this case's)
	const ended = 'WINDOW-ENDED';
	await insertRows([
		{
			document_key: ended,
			url: 'http://127.0.0.1:9/ended.pdf',
			status: 'possibly_sent',
			sent_at: minutesAgo(2),
			sent_until: minutesAgo(1),
			status_changed_at: minutesAgo(1),
		},
	]);
	const after = await submitDirect(FILES.a);
	await waitFor('the task after the window to be delivered', async () =>
		(await deliveriesOf([after])).some((d) => d.state === 'delivered'),
	);
	await sleep(3000); // its run ends
	const rowsAfter = await rowsWhere((r) => r.task_id === after);
	const toldAfter = await alertsOf((b) => b.task_id === after);
	assert.deepEqual(rowsAfter, [], 'a row for a task created after the upload window');
	assert.deepEqual(toldAfter, [], 'a message for a task created after the upload window');
	// an upload under way: a task created now may be its document's
	const open = 'WINDOW-OPEN';
	await insertRows([
		{
			document_key: open,
			url: 'http://127.0.0.1:9/open.pdf',
			status: 'sending',
			sent_at: new Date(Date.now() - 2000).toISOString(),
			sent_until: '2999-12-31T00:00:00.000Z',
			status_changed_at: new Date().toISOString(),
		},
	]);
	const during = await submitDirect(FILES.a);
	const [told] = await waitFor(
		'the task created during the upload to be reported',
		async () => {
			const found = await alertsOf((b) => b.task_id === during);
			return found.length ? found : undefined;
		},
		90000,
	);
	await catchUp();
	assert.equal((await alertsOf((b) => b.task_id === during)).length, 1, 'reported once');
	const { body } = told;
	t.diagnostic(
		`after the window: ${rowsAfter.length} rows, ${toldAfter.length} messages; during it: ${body.status}, note: ${String(body.note).slice(0, 220)}`,
	);
	assert.equal(body.status, 'unmatched');
	assert.match(String(body.note), /created at \d{4}-\d\d-\d\dT/, body.note);
	assert.match(
		String(body.note),
		new RegExp(`candidate for that row \\(${open}, sent_at \\d{4}-`),
		body.note,
	);
	assert.match(String(body.what_to_do), /candidate/);
	assert.doesNotMatch(String(body.what_to_do), /^Its document is/);
});

test('Production reports: done rows older than keep_days are deleted by the catch-up, newer ones and rows in other states kept', async (t) => {
	const days = (d) => minutesAgo(d * 24 * 60);
	const rows = [
		['KEEP-OLD-DONE', 'done', days(31)],
		['KEEP-NEW-DONE', 'done', days(29)],
		['KEEP-OLD-STUCK', 'stuck', days(40)],
	];
	await insertRows(
		rows.map(([key, status, at]) => ({
			document_key: key,
			status,
			status_changed_at: at,
			task_id: key,
		})),
	);
	const keys = rows.map(([key]) => key);
	const left = await rowsUntil(
		'the old done row to be deleted',
		(r) => keys.includes(r.document_key),
		(found) => !found.some((r) => r.document_key === 'KEEP-OLD-DONE'),
	);
	t.diagnostic(
		`keep_days 30: left ${left.map((r) => `${r.document_key} (${r.status})`).join(', ')}`,
	);
	assert.deepEqual(left.map((r) => r.document_key).sort(), ['KEEP-NEW-DONE', 'KEEP-OLD-STUCK']);
});

test('Production reports: a row a stopped post left claimed, which the service refuses when the catch-up sends it, is not_sent and reported once', async (t) => {
	const [doc] = intakeDocuments(1, 'CATCHUP-REFUSED');
	await addFault({ endpoint: 'process_file', status: 422, count: 1 });
	try {
		await insertRows([
			{ document_key: doc.key, url: doc.url, file_name: doc.file_name, context: '{}' },
		]);
		await rowsUntil(
			'the catch-up to send it and get refused',
			(r) => r.document_key === doc.key,
			(found) => found[0]?.status === 'not_sent',
		);
	} finally {
		await clearFaults();
	}
	await waitFor(
		'the not_sent row to be reported',
		async () => (await alertsOf((b) => b.document_key === doc.key)).length > 0,
	);
	await catchUp();
	const told = await alertsOf((b) => b.document_key === doc.key);
	const [row] = await rowsWhere((r) => r.document_key === doc.key);
	t.diagnostic(`row ${row.status} (${String(row.note).slice(0, 80)}); messages ${told.length}`);
	assert.equal(told.length, 1, JSON.stringify(told.map((c) => c.body)));
	assert.equal(told[0].body.status, 'not_sent');
	assert.match(told[0].body.what_to_do, /post the document again/);
});
