'use strict';
/**
 * Row P10 of `npm run bench` (docs/performance.md): examples/production.json as `npm start` imports it, in n8n
 * 2.41.1 with the packed package and the emulator. The documented post of 20 documents on an empty Data Table
 * and with 100,000 rows (inserted through n8n's Data Table REST API: `done` but for BENCH_P10_PENDING `pending`
 * whose delivery was lost), a catch-up run, and the room a row takes as n8n counts it for its size limit.
 *   BENCH_P10_DB (sqlite; postgres, or sqlite,postgres: each in turn; PostgreSQL from scripts/queue-services.sh),
 *   BENCH_P10_ROWS (100000), BENCH_P10_POSTS (5), BENCH_P10_PENDING (50),
 *   BENCH_P10_N8N_ENV ("NAME=value,…": more environment for n8n, e.g. DB_SQLITE_POOL_SIZE=4)
 * Needs NODE24, N8N_BIN and N8N_DIR (scripts/ensure-runtime.sh) in the environment.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { createEmulator } = require('../emulator/server.js');
const { installPackage, writeCredential } = require('../scripts/n8n-local.js');
const { localExample, PRODUCTION_PROJECT } = require('../scripts/local-examples.js');
const { freePort, n8nCliOk, startN8n, stopN8n, rest, executionsOf, waitFor, waitPublished } = require('../harness/n8n.js');
const { packPackage } = require('../harness/pack.js');
const { CRED, FILES, GOOD_KEY, sleep } = require('../harness/fixtures.js');
const state = require('../harness/state.js');
const { median, positive } = require('./common.js');

const ROWS = positive('BENCH_P10_ROWS', 100000);
const POSTS = positive('BENCH_P10_POSTS', 5);
const PENDING = positive('BENCH_P10_PENDING', 50);
const DBS = (process.env.BENCH_P10_DB || 'sqlite').split(',');
const SERVICES = path.join(__dirname, '../scripts/queue-services.sh');
const N8N_ENV = Object.fromEntries((process.env.BENCH_P10_N8N_ENV || '').split(',').filter(Boolean).map((kv) => kv.split('=')));
const DOCUMENTS = 20;
/** Long enough that each task finishes after Intake recorded its task_id, as a real service does. */
const PROCESSING_MS = 3000;
const CHUNK = 5000;
const INTAKE_KEY = 'bench-intake-key-0123456789abcdef';
const LIMIT_BYTES = 200 * 1024 * 1024; // n8n's default N8N_DATA_TABLES_MAX_SIZE_BYTES
const NEVER = { interval: [{ field: 'cronExpression', expression: '0 0 1 1 *' }] };
const scheduleOf = (wf) => wf.nodes.find((n) => n.type === 'n8n-nodes-base.scheduleTrigger');
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
let wf;
let shippedRule;
let env; // n8n's environment in this run: N8N_ENV, and DB_* on PostgreSQL

/** The workflow as `npm start` imports it (credentials, project, type), catch-up off, published; n8n started. */
async function install(emu) {
	state.userFolder = path.join(state.tmp, 'home');
	state.n8nPort = await freePort();
	fs.mkdirSync(path.join(state.userFolder, '.n8n', 'nodes'), { recursive: true });
	installPackage(packPackage(state.tmp), path.join(state.userFolder, '.n8n', 'nodes'));
	const { id, name } = CRED.documentExtractionApi;
	writeCredential(path.join(state.tmp, 'credentials.json'), { id, name, apiKey: GOOD_KEY, baseUrl: emu.url, intakeKey: INTAKE_KEY });
	await n8nCliOk(['import:credentials', `--input=${path.join(state.tmp, 'credentials.json')}`], env);
	wf = localExample(JSON.parse(fs.readFileSync(path.join(__dirname, '../examples/production.json'), 'utf8')), emu.url);
	shippedRule = scheduleOf(wf).parameters.rule;
	scheduleOf(wf).parameters.rule = NEVER;
	fs.writeFileSync(path.join(state.tmp, 'production.json'), JSON.stringify(wf));
	await n8nCliOk(['import:workflow', `--input=${path.join(state.tmp, 'production.json')}`], env);
	await n8nCliOk(['publish:workflow', `--id=${wf.id}`], env);
	await startN8n(env);
	await waitPublished(wf.id);
	await waitFor('the trigger to register its webhook', () => emu.state.webhooks.size > 0, 120000);
}

/** The documented curl post (docs/production.md), repeated while n8n has not registered the webhook. */
async function post(documents) {
	for (;;) {
		const headers = { 'content-type': 'application/json', 'x-intake-key': INTAKE_KEY };
		const res = await fetch(`http://127.0.0.1:${state.n8nPort}/webhook/document-extraction-intake`, { method: 'POST', headers, body: JSON.stringify({ documents }) });
		const text = await res.text();
		if (res.status === 200) return [].concat(JSON.parse(text));
		if (res.status !== 404) throw new Error(`P10: Intake answered ${res.status}: ${text.slice(0, 300)}`);
		await sleep(500);
	}
}

/** POSTS posts of 20 fresh documents after one unmeasured: the time to each answer (ms). */
async function posts(emu, label) {
	const times = [];
	for (let i = 0; i <= POSTS; i++) {
		const tag = `${label}${i}-${Date.now()}`;
		const started = performance.now();
		const answer = await post(Array.from({ length: DOCUMENTS }, (_, j) => ({ key: `${tag}-${j}`, file_name: `${tag}-${j}.pdf`, url: `${state.emulatorUrl}/_emulator/files/${tag}-${j}.pdf`, customer: `CUST-${j}` })));
		if (i) times.push(performance.now() - started);
		const accepted = answer.filter((e) => e.state === 'accepted').length;
		if (accepted !== DOCUMENTS) throw new Error(`P10: ${accepted} of ${DOCUMENTS} accepted: ${JSON.stringify(answer[0])}`);
		// settled: every task of the post delivered and no run of the workflow left running
		const ids = answer.map((e) => e.task_id);
		const settled = async () => emu.state.deliveries.filter((d) => ids.includes(d.task_id) && d.state !== 'pending').length === DOCUMENTS
			&& !(await executionsOf(wf.id)).some((e) => ['new', 'running'].includes(e.status));
		await waitFor(`the deliveries of ${tag} to be handled`, settled, 180000, 1000);
	}
	return times;
}

/** A row as the workflow leaves it: `done`, or `pending` with `taskId`; a context of about 300 characters. */
function row(i, taskId) {
	const key = `INV-2026-${String(i).padStart(6, '0')}`;
	const context = { file_name: `${key}.pdf`, customer: `CUST-${i % 4000}`, order_id: `PO-${700000 + i}`, cost_center: 'EU-ZH-4410', received_by: 'ap-inbox@example.com', note: 'Monthly invoice for the framework agreement; net 30 days; approved by purchasing before upload; scan of the signed original attached.', pages: 1 + (i % 7) };
	const changed = new Date(Date.now() - (i % 29) * 86400000 - (i % 86400) * 1000).toISOString();
	return { document_key: key, task_id: taskId ?? crypto.randomUUID(), file_name: `${key}.pdf`, context: JSON.stringify(context), url: `${state.emulatorUrl}/_emulator/files/${key}.pdf`, status: taskId ? 'pending' : 'done', outcome: taskId ? '' : 'complete', note: '', status_changed_at: changed };
}

async function fill(table, taskIds) {
	const every = Math.floor(ROWS / taskIds.length);
	for (let start = 0; start < ROWS; start += CHUNK) {
		const data = [];
		for (let i = start; i < Math.min(ROWS, start + CHUNK); i++) data.push(row(i, i % every === 0 ? taskIds[i / every] : undefined));
		await rest('POST', `/projects/${table.projectId}/data-tables/${table.id}/insert`, { data, returnType: 'count' });
	}
}

/** The Data Table's rows with `status` (all with none): their count. */
async function count(table, status) {
	const filter = status ? `&filter=${encodeURIComponent(JSON.stringify({ type: 'and', filters: [{ columnName: 'status', condition: 'eq', value: status }] }))}` : '';
	return (await rest('GET', `/projects/${table.projectId}/data-tables/${table.id}/rows?take=1${filter}`)).count;
}

/** Publishes the catch-up on its shipped schedule; the first run's duration (ms) and status. */
async function catchUp() {
	const live = await rest('GET', `/workflows/${wf.id}`);
	scheduleOf(live).parameters.rule = shippedRule;
	const { versionId } = await rest('PATCH', `/workflows/${wf.id}`, { nodes: live.nodes, connections: live.connections });
	await rest('POST', `/workflows/${wf.id}/activate`, { versionId });
	await waitPublished(wf.id, versionId);
	const run = await waitFor('a catch-up run', async () => (await executionsOf(wf.id)).find((e) => e.mode === 'trigger' && e.stoppedAt), 600000, 1000);
	return { ms: Date.parse(run.stoppedAt) - Date.parse(run.startedAt), status: run.status };
}

/** A task the service finishes while no webhook is registered: its delivery is lost. */
async function lostTask(emu) {
	const body = JSON.stringify({ file_base64: FILES.a.bytes.toString('base64'), project: PRODUCTION_PROJECT.value, document_type: 'invoice' });
	const headers = { 'content-type': 'application/json', authorization: `Bearer ${GOOD_KEY}` };
	return (await (await fetch(`${emu.url}/process_file`, { method: 'POST', headers, body })).json()).task_id;
}

async function measureOn(db, log) {
	const emu = await createEmulator({ port: 0, processingMs: PROCESSING_MS });
	Object.assign(state, { tmp: fs.mkdtempSync(path.join(os.tmpdir(), 'docex-bench-p10-')), emulatorUrl: emu.url, cookie: undefined });
	const services = path.join(state.tmp, 'services');
	try {
		if (db === 'postgres') fs.chmodSync(state.tmp, 0o711); // the `postgres` user passes through it
		const out = db === 'postgres' ? execFileSync('bash', [SERVICES, 'start', services], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }) : '';
		env = { ...N8N_ENV, ...Object.fromEntries((out.match(/^DB_\w+=.*$/gm) ?? []).map((kv) => kv.split('='))) };
		const taskIds = [];
		for (let i = 0; i < PENDING; i++) taskIds.push(await lostTask(emu));
		log(`P10 n8n on ${db} with examples/production.json ...`);
		await install(emu);
		const empty = await posts(emu, 'EMPTY');
		log(`P10 empty table: posts of ${DOCUMENTS} answered in ${empty.map(secs).join(', ')}`);
		const filter = encodeURIComponent(JSON.stringify({ name: 'document_extraction_tasks' }));
		const [table] = (await rest('GET', `/data-tables-global?filter=${filter}`)).data;
		const filling = performance.now();
		await fill(table, taskIds);
		const fillMs = performance.now() - filling;
		const filledAt = Date.now();
		await sleep(6000); // n8n caches the size for 5 s
		const rows = await count(table);
		const limits = await rest('GET', '/data-tables-global/limits');
		log(`P10 ${rows} rows in ${secs(fillMs)}; ${limits.dataTables[table.id].sizeBytes} bytes`);
		const full = await posts(emu, 'FULL');
		log(`P10 ${rows} rows: posts answered in ${full.map(secs).join(', ')}`);
		// Rows Still Pending takes rows created pending_minutes (a value of the Settings node) ago
		const minutes = wf.nodes.flatMap((n) => n.parameters?.assignments?.assignments ?? []).find((a) => a.name === 'pending_minutes').value;
		await sleep(Math.max(0, filledAt + minutes * 60000 - Date.now()));
		const pendingBefore = await count(table, 'pending');
		const run = await catchUp();
		const delivered = pendingBefore - (await count(table, 'pending'));
		log(`P10 catch-up run: ${secs(run.ms)} ${run.status}; ${delivered} of ${pendingBefore} pending rows settled`);
		return { db: db === 'postgres' ? 'PostgreSQL 15' : 'SQLite', rows, fillMs, empty, full, run, delivered, pending: pendingBefore, bytes: limits.dataTables[table.id].sizeBytes };
	} finally {
		await stopN8n().catch(() => {});
		await emu.close();
		if (db === 'postgres') execFileSync('bash', [SERVICES, 'stop', services], { stdio: 'ignore' });
		fs.rmSync(state.tmp, { recursive: true, force: true });
	}
}

/** P10 on each database of BENCH_P10_DB in turn. */
async function measureRows({ log }) {
	const runs = [];
	for (const db of DBS) runs.push(await measureOn(db, log));
	return runs;
}

function summaryRows(runs) {
	return runs.flatMap((p) => {
		const [e, f, on, perRow] = [median(p.empty), median(p.full), `, ${p.db}`, p.bytes / p.rows];
		return [
			`| P10 post of ${DOCUMENTS} documents to Intake, empty table vs ${p.rows.toLocaleString('en')} rows${on} | ${secs(e)} vs ${secs(f)}: ${(f / e).toFixed(2)}× | ≤ 1.5× | ${f / e <= 1.5 ? '**yes**' : '**NO**'} |`,
			`| P10 catch-up run with ${p.rows.toLocaleString('en')} rows, ${p.pending} pending${on} | ${secs(p.run.ms)} (${p.run.status}; ${p.delivered} settled) | ≤ 10 s | ${p.run.ms <= 10000 && p.run.status === 'success' ? '**yes**' : '**NO**'} |`,
			`| P10 room per row in n8n's Data Table accounting${on} | ${Math.round(perRow)} bytes: ${Math.floor(LIMIT_BYTES / perRow).toLocaleString('en')} rows per 200 MB | (informative) | |`,
		];
	});
}

function section(runs) {
	const env = Object.entries(N8N_ENV).map(([k, v]) => `, ${k}=${v}`).join('');
	return [
		`## P10: the production workflow with ${ROWS.toLocaleString('en')} rows`,
		'',
		`examples/production.json in n8n 2.41.1 (${runs.map((p) => p.db).join(', then ')}${env}) with the packed package, the emulator as the service (${PROCESSING_MS} ms processing). ${ROWS.toLocaleString('en')} rows inserted through n8n's Data Table REST API (${CHUNK.toLocaleString('en')} a request; n8n counts and reads them as any row): ${ROWS - PENDING} \`done\`, ${PENDING} \`pending\` whose delivery was lost, each with a context of about 300 characters; the posts' rows come on top. Posts: ${DOCUMENTS} fresh documents each, after one unmeasured post, the next once the last one's deliveries were handled; time from the request to Intake's answer. Catch-up: the Schedule Trigger as shipped, switched on after the posts; the first run's startedAt to stoppedAt. Size as n8n counts it (SQLite: SUM(pgsize) of the table's pages in dbstat; PostgreSQL: pg_total_relation_size), against the default 200 MB (209,715,200 bytes, all Data Tables together).`,
		'',
		'| Database | Rows inserted in | Posts, empty table (s) | Posts, full table (s) | Median empty vs full | Catch-up | Size |',
		'|---|---|---|---|---|---|---|',
		...runs.map((p) => `| ${p.db} | ${secs(p.fillMs)} | ${p.empty.map((ms) => (ms / 1000).toFixed(2)).join(', ')} | ${p.full.map((ms) => (ms / 1000).toFixed(2)).join(', ')} | ${secs(median(p.empty))} vs ${secs(median(p.full))} (${p.rows.toLocaleString('en')} rows) | ${secs(p.run.ms)} (${p.run.status}; ${p.delivered} of ${p.pending} pending rows settled) | ${(p.bytes / 1e6).toFixed(1)} MB, ${Math.round(p.bytes / p.rows)} bytes per row |`),
		'',
	].join('\n');
}

module.exports = { measureRows, summaryRows, section };
