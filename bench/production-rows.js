'use strict';
/**
 * Row P10 of `npm run bench`: examples/production.json as the e2e suite imports it, in n8n 2.41.1
 * with the packed package, against the emulator. A post of 20 documents to Intake on an empty Data
 * Table and with 100,000 rows in it (medians of BENCH_P10_POSTS posts after one unmeasured post,
 * fresh keys each, the next one once the last one's deliveries were handled), a
 * catch-up run with those rows (its execution's startedAt/stoppedAt), and the room a row takes in
 * n8n's Data Table size accounting (GET /rest/data-tables-global/limits, the figure n8n compares
 * with N8N_DATA_TABLES_MAX_SIZE_BYTES before every insert, upsert and update).
 *
 * The rows go in through n8n's Data Table REST API (POST …/data-tables/<id>/insert, 5,000 a
 * request), as n8n's table view inserts rows. Most are `done`; BENCH_P10_PENDING are `pending`
 * with tasks the service finished before n8n registered its webhook (delivery lost), so the
 * catch-up asks for each and takes it downstream. The catch-up: the Schedule Trigger set to every
 * 10 s and published; the first run and the next (nothing left pending) are reported.
 *
 *   BENCH_P10_ROWS (100000), BENCH_P10_POSTS (5), BENCH_P10_PENDING (50),
 *   BENCH_P10_N8N_ENV ("NAME=value,…": more environment for n8n, e.g. DB_SQLITE_POOL_SIZE=4)
 *
 * Needs NODE24, N8N_BIN and N8N_DIR (scripts/ensure-runtime.sh) in the environment before it is required.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { createEmulator } = require('../emulator/server.js');
const { installPackage } = require('../scripts/n8n-local.js');
const { freePort, n8nCliOk, startN8n, stopN8n, rest, executionsOf, waitFor, waitPublished } = require('../harness/n8n.js');
const { packPackage } = require('../harness/pack.js');
const { CRED, FILES, GOOD_KEY, intakeKeyCredential } = require('../harness/fixtures.js');
const state = require('../harness/state.js');
const { submitDirect } = require('../test/e2e/lib/emulator-client.js');
const { PROD, productionWorkflow, findTable, intakeDocuments, intake } = require('../test/e2e/lib/production.js');
const { median, positive } = require('./common.js');

const ROWS = positive('BENCH_P10_ROWS', 100000);
const POSTS = positive('BENCH_P10_POSTS', 5);
const PENDING = positive('BENCH_P10_PENDING', 50);
const N8N_ENV = Object.fromEntries((process.env.BENCH_P10_N8N_ENV || '').split(',').filter(Boolean).map((kv) => kv.split('=')));
const DOCUMENTS = 20;
/** Long enough that each task finishes after Intake recorded its task_id, as a real service does. */
const PROCESSING_MS = 3000;
const CHUNK = 5000;
const LIMIT_BYTES = 200 * 1024 * 1024; // n8n's default N8N_DATA_TABLES_MAX_SIZE_BYTES
const NEVER = { interval: [{ field: 'cronExpression', expression: '0 0 1 1 *' }] };
const EVERY_10_S = { interval: [{ field: 'seconds', secondsInterval: 10 }] };
const scheduleOf = (wf) => wf.nodes.find((n) => n.type === 'n8n-nodes-base.scheduleTrigger');
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
const yesNo = (ok) => (ok ? '**yes**' : '**NO**');

/** The packed package, the credentials and the workflow (catch-up off) in a fresh n8n; n8n started. */
async function install(emu) {
	Object.assign(state, { tmp: fs.mkdtempSync(path.join(os.tmpdir(), 'docex-bench-p10-')), emulatorUrl: emu.url, cookie: undefined });
	state.userFolder = path.join(state.tmp, 'home');
	state.n8nPort = await freePort();
	fs.mkdirSync(path.join(state.userFolder, '.n8n', 'nodes'), { recursive: true });
	installPackage(packPackage(state.tmp), path.join(state.userFolder, '.n8n', 'nodes'));
	const c = CRED.documentExtractionApi;
	const credentials = [{ ...c, type: 'documentExtractionApi', data: { apiKey: GOOD_KEY, baseUrl: emu.url } }, intakeKeyCredential()];
	fs.writeFileSync(path.join(state.tmp, 'credentials.json'), JSON.stringify(credentials));
	await n8nCliOk(['import:credentials', `--input=${path.join(state.tmp, 'credentials.json')}`]);
	const wf = productionWorkflow({ sinkUrl: `${emu.url}/_emulator/sink/crm` });
	scheduleOf(wf).parameters.rule = NEVER;
	fs.writeFileSync(path.join(state.tmp, 'production.json'), JSON.stringify(wf));
	await n8nCliOk(['import:workflow', `--input=${path.join(state.tmp, 'production.json')}`]);
	await n8nCliOk(['publish:workflow', `--id=${PROD.id}`]);
	await startN8n(N8N_ENV);
	await waitPublished(PROD.id);
	await waitFor('the trigger to register its webhook', () => emu.state.webhooks.size > 0, 120000);
}

/** POSTS posts of 20 fresh documents after one unmeasured: the time to each answer (ms). */
async function posts(emu, label) {
	const times = [];
	for (let i = 0; i <= POSTS; i++) {
		const tag = `${label}${i}-${Date.now()}`;
		const started = performance.now();
		const answer = await intake(`http://127.0.0.1:${state.n8nPort}`, intakeDocuments(DOCUMENTS, tag));
		if (i) times.push(performance.now() - started);
		const accepted = answer.filter((e) => e.state === 'accepted').length;
		if (accepted !== DOCUMENTS) throw new Error(`P10: ${accepted} of ${DOCUMENTS} accepted: ${JSON.stringify(answer[0])}`);
		// settled: every task of the post delivered and no run of the workflow left running
		const ids = answer.map((e) => e.task_id);
		const settled = async () => emu.state.deliveries.filter((d) => ids.includes(d.task_id) && d.state !== 'pending').length === DOCUMENTS
			&& !(await executionsOf(PROD.id)).some((e) => ['new', 'running'].includes(e.status));
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

/** Publishes the catch-up every 10 s; the first two runs' durations (ms) and status. */
async function catchUps() {
	const wf = await rest('GET', `/workflows/${PROD.id}`);
	scheduleOf(wf).parameters.rule = EVERY_10_S;
	const { versionId } = await rest('PATCH', `/workflows/${PROD.id}`, { nodes: wf.nodes, connections: wf.connections });
	await rest('POST', `/workflows/${PROD.id}/activate`, { versionId });
	await waitPublished(PROD.id, versionId);
	const runs = await waitFor('two catch-up runs', async () => {
		const done = (await executionsOf(PROD.id)).filter((e) => e.mode === 'trigger' && e.stoppedAt);
		return done.length >= 2 && done;
	}, 300000, 1000);
	return runs.sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt)).slice(0, 2)
		.map((e) => ({ ms: Date.parse(e.stoppedAt) - Date.parse(e.startedAt), status: e.status }));
}

async function measureRows({ log }) {
	const emu = await createEmulator({ port: 0, processingMs: PROCESSING_MS });
	try {
		state.emulatorUrl = emu.url;
		// tasks finished before n8n listens: their delivery is lost, their rows stay pending
		const taskIds = [];
		for (let i = 0; i < PENDING; i++) taskIds.push(await submitDirect(FILES.a));
		log(`P10 n8n with examples/production.json ...`);
		await install(emu);
		const empty = await posts(emu, 'EMPTY');
		log(`P10 empty table: posts of ${DOCUMENTS} answered in ${empty.map(secs).join(', ')}`);
		const table = await findTable();
		const filling = performance.now();
		await fill(table, taskIds);
		const fillMs = performance.now() - filling;
		await new Promise((resolve) => setTimeout(resolve, 6000)); // n8n caches the size for 5 s
		const { count } = await rest('GET', `/projects/${table.projectId}/data-tables/${table.id}/rows?take=1`);
		const limits = await rest('GET', '/data-tables-global/limits');
		log(`P10 ${count} rows in ${secs(fillMs)}; ${JSON.stringify(limits).slice(0, 300)}`);
		const full = await posts(emu, 'FULL');
		log(`P10 ${count} rows: posts answered in ${full.map(secs).join(', ')}`);
		const catchUp = await catchUps();
		const delivered = (emu.state.sinkCalls ?? []).filter((x) => taskIds.includes(x.body?.task_id)).length;
		log(`P10 catch-up runs: ${catchUp.map((r) => `${secs(r.ms)} ${r.status}`).join(', ')}; ${delivered} of ${PENDING} pending rows delivered`);
		const bytes = limits.dataTables[table.id].sizeBytes;
		return { rows: count, filled: ROWS, fillMs, empty, full, catchUp, delivered, pending: PENDING, bytes, totalBytes: limits.totalBytes, env: N8N_ENV };
	} finally {
		await stopN8n().catch(() => {});
		await emu.close();
		if (state.tmp) fs.rmSync(state.tmp, { recursive: true, force: true });
	}
}

function summaryRows(p) {
	const [e, f] = [median(p.empty), median(p.full)];
	const perRow = p.bytes / p.rows;
	return [
		`| P10 post of ${DOCUMENTS} documents to Intake, empty table vs ${p.rows.toLocaleString('en')} rows | ${secs(e)} vs ${secs(f)}: ${(f / e).toFixed(2)}× | ≤ 1.5× | ${yesNo(f / e <= 1.5)} |`,
		`| P10 catch-up run with ${p.rows.toLocaleString('en')} rows, ${p.pending} pending | ${secs(p.catchUp[0].ms)} (${p.delivered} delivered; next run ${secs(p.catchUp[1].ms)}) | ≤ 10 s | ${yesNo(p.catchUp[0].ms <= 10000 && p.catchUp[0].status === 'success')} |`,
		`| P10 room per row in n8n's Data Table accounting | ${Math.round(perRow)} bytes: ${Math.floor(LIMIT_BYTES / perRow).toLocaleString('en')} rows per 200 MB | (informative) | |`,
	];
}

function section(p) {
	return [
		`## P10: the production workflow with ${p.rows.toLocaleString('en')} rows`,
		'',
		`examples/production.json in n8n 2.41.1 (SQLite${Object.keys(p.env).length ? `, ${JSON.stringify(p.env)}` : ''}) with the packed package, the emulator as the service (${PROCESSING_MS} ms processing). ${p.filled.toLocaleString('en')} rows inserted through n8n's Data Table REST API in ${secs(p.fillMs)} (${CHUNK.toLocaleString('en')} a request; n8n counts and reads them as any row): ${p.filled - p.pending} \`done\`, ${p.pending} \`pending\` whose delivery was lost, each with a context of about 300 characters; with the posts' rows, ${p.rows.toLocaleString('en')}. Posts: ${DOCUMENTS} fresh documents each, after one unmeasured post, the next once the last one's deliveries were handled; time from the request to Intake's answer.`,
		'',
		'| Table | Posts (s) | Median |',
		'|---|---|---|',
		`| empty | ${p.empty.map((ms) => (ms / 1000).toFixed(2)).join(', ')} | ${secs(median(p.empty))} |`,
		`| ${p.rows.toLocaleString('en')} rows | ${p.full.map((ms) => (ms / 1000).toFixed(2)).join(', ')} | ${secs(median(p.full))} |`,
		'',
		`Catch-up (Schedule Trigger every 10 s, execution startedAt to stoppedAt): first run ${secs(p.catchUp[0].ms)} (${p.catchUp[0].status}; ${p.delivered} of ${p.pending} pending rows taken downstream), next run ${secs(p.catchUp[1].ms)} (${p.catchUp[1].status}).`,
		'',
		`Size as n8n counts it (SQLite: SUM(pgsize) of the table's pages in dbstat; PostgreSQL: pg_total_relation_size): ${(p.bytes / 1e6).toFixed(1)} MB for ${p.rows.toLocaleString('en')} rows, ${Math.round(p.bytes / p.rows)} bytes per row; ${Math.floor(LIMIT_BYTES / (p.bytes / p.rows)).toLocaleString('en')} rows fit in the default 200 MB (209,715,200 bytes, all Data Tables together).`,
		'',
	].join('\n');
}

module.exports = { measureRows, summaryRows, section };
