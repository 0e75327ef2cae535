'use strict';

/**
 * Row P4 of `npm run bench`: the Document Extraction Trigger under load, against n8n's own
 * Webhook node, in a real n8n (the packed package installed as a community package).
 *
 * Two published workflows: (a) Document Extraction Trigger → No Op, (b) Webhook (POST, respond
 * immediately) → No Op. Each gets the same burst: DELIVERIES distinct, correctly signed
 * task.completed deliveries (X-Service-Signature = hex HMAC-SHA256 of the raw body with the secret
 * the trigger registered at the emulator), CONCURRENCY in flight at a time, each on a new
 * connection from 127.0.0.1. Bursts alternate over ROUNDS rounds (order swapped every round);
 * the medians are reported. After each burst, the runs are counted per task_id from n8n's
 * execution records once all have finished (lost: a 2xx-answered delivery without a run;
 * duplicated: more than one run for one task_id).
 *
 * The n8n process is started with bench/p4-probe.js preloaded (BENCH_P4_PROBE=0: without), which
 * times the phases n8n goes through for every webhook request; the CPU time of the n8n process
 * (/proc/<pid>/stat) is read around every burst.
 *
 * Regular mode: one `n8n start` on SQLite. Queue mode (unless BENCH_P4_QUEUE=0): PostgreSQL, Redis,
 * main, two workers and a webhook process (harness/queue/stack.js); deliveries go to the webhook
 * process, runs happen on the workers.
 *
 *   BENCH_P4_DELIVERIES    deliveries per burst (200)
 *   BENCH_P4_CONCURRENCY   deliveries in flight (50)
 *   BENCH_P4_ROUNDS        rounds in regular mode (3; 1 with BENCH_QUICK=1)
 *   BENCH_P4_QUEUE_ROUNDS  rounds in queue mode (2)
 *   BENCH_P4_QUEUE=0       no queue-mode variant (BENCH_QUICK=1 implies it)
 *   BENCH_P4_PROBE=0       no phase timer in n8n
 *   BENCH_P4_N8N_ENV       more environment for the n8n processes, "NAME=value,NAME=value"
 *                          (for experiments, e.g. N8N_EXPRESSION_ENGINE=legacy)
 *   BENCH_P4_LAZY=0        no second regular-mode run with n8n's lazy isolate setting
 *                          (N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true)
 *   BENCH_P4_TRIGGER_VERSION  the trigger's typeVersion in the workflow (1.1; 1 to compare)
 *   BENCH_P4_KEEP=1        keep the work folder (n8n logs, probe records)
 *   BENCH_P4_REF=<commit>  measure the package as built from that commit (default: the checkout's dist/)
 *
 * Needs NODE24, N8N_BIN and N8N_DIR (scripts/ensure-runtime.sh) in the environment before it is
 * required.
 */

const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const { installPackage, waitReady } = require('../scripts/n8n-local.js');
const {
	ROOT,
	N8N_BIN,
	freePort,
	startProcess,
	stopProcess,
	killAllSync,
	n8nEnv,
	n8nCliOk,
	rest,
	executionData,
	waitFor,
	waitPublished,
} = require('../harness/n8n.js');
const { CRED, GOOD_KEY, INVOICES_ID, sleep } = require('../harness/fixtures.js');
const { node, workflow, project } = require('../harness/workflows.js');
const state = require('../harness/state.js');
const { webhook: webhookNode } = require('../harness/queue/workflows.js');

const NODE24 = process.env.NODE24 || process.execPath;
const LAZY_ENV = { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };
const LAZY_ENV_TEXT = Object.entries(LAZY_ENV).map(([k, v]) => `${k}=${v}`).join(' ');
const PROBE = path.join(__dirname, 'p4-probe.js');
const TRIGGER_TYPE = 'n8n-nodes-document-extraction.documentExtractionTrigger';
const SIGNATURE_HEADER = 'x-service-signature';

const WF = { trigger: 'BenchP4Trigger01', webhook: 'BenchP4Webhook01' };
const WEBHOOK_PATH = 'bench-p4-webhook';
const TRIGGER_WEBHOOK_ID = '4b3f0c2e-7d1a-4e5b-9c8d-0a1b2c3d4e5f';
const NAMES = { trigger: 'Document Extraction Trigger', webhook: 'Webhook node' };

/** The service's limit: a delivery without a 2xx within this time counts as failed and is re-sent. */
const SERVICE_LIMIT_MS = 10000;
/** Target: no answer slower than this, and trigger ÷ webhook ≤ TARGET_RATIO. */
const TARGET_SLOWEST_MS = 5000;
const TARGET_RATIO = 1.1;
/** Every delivery request is given up after this. */
const REQUEST_TIMEOUT_MS = 60000;
const WARMUP_DELIVERIES = 20;

function positive(name, fallback) {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const value = Number(raw);
	if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number (got "${raw}")`);
	return value;
}

function settings({ quick = false } = {}) {
	return {
		deliveries: positive('BENCH_P4_DELIVERIES', 200),
		concurrency: positive('BENCH_P4_CONCURRENCY', 50),
		rounds: positive('BENCH_P4_ROUNDS', quick ? 1 : 3),
		queueRounds: positive('BENCH_P4_QUEUE_ROUNDS', 2),
		queue: process.env.BENCH_P4_QUEUE ? process.env.BENCH_P4_QUEUE !== '0' : !quick,
		lazy: process.env.BENCH_P4_LAZY !== '0',
		probe: process.env.BENCH_P4_PROBE !== '0',
		keep: process.env.BENCH_P4_KEEP === '1',
		ref: process.env.BENCH_P4_REF || undefined,
		extraEnv: parseEnvList(process.env.BENCH_P4_N8N_ENV),
	};
}

function parseEnvList(text) {
	const env = {};
	for (const part of (text ?? '').split(',')) {
		const m = /^\s*([A-Z0-9_]+)=(.*?)\s*$/.exec(part);
		if (m) env[m[1]] = m[2];
	}
	return env;
}

// ------------------------------------------------------------------ workflows

function p4Workflows() {
	const trigger = node(
		'Document Extraction Trigger',
		TRIGGER_TYPE,
		Number(process.env.BENCH_P4_TRIGGER_VERSION || 1.1),
		{ project: project(INVOICES_ID), options: {} },
		{ credentials: CRED, webhookId: TRIGGER_WEBHOOK_ID },
	);
	const next = () => node('Next Step', 'n8n-nodes-base.noOp', 1, {});
	return [
		workflow(WF.trigger, 'bench P4: Document Extraction Trigger → No Op', [trigger, next()]),
		workflow(WF.webhook, 'bench P4: Webhook (respond immediately) → No Op', [webhookNode(WEBHOOK_PATH), next()]),
	];
}

// ------------------------------------------------------------------ deliveries

function deliveryBody(taskId, i) {
	return JSON.stringify({
		event: 'task.completed',
		task_id: taskId,
		status: 'complete',
		result: {
			invoice_number: `INV-P4-${10000 + i}`,
			invoice_date: '2026-11-22',
			vendor_name: 'Bench Supplies GmbH',
			total_amount: 100 + i,
			currency: 'EUR',
		},
		project_id: INVOICES_ID,
		document_type: 'invoice',
		timestamp: new Date().toISOString(),
	});
}

const sign = (secret, body) => crypto.createHmac('sha256', secret).update(body).digest('hex');

/** One POST on a new connection to 127.0.0.1; resolves with {status} (0 and error on failure). */
function post(url, body, signature) {
	return new Promise((resolve) => {
		let settled = false;
		const done = (r) => {
			if (!settled) {
				settled = true;
				resolve(r);
			}
		};
		const req = http.request(
			{
				host: '127.0.0.1',
				port: url.port,
				path: url.pathname,
				method: 'POST',
				agent: false,
				headers: {
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(body),
					[SIGNATURE_HEADER]: signature,
				},
			},
			(res) => {
				res.resume();
				res.on('end', () => done({ status: res.statusCode }));
				res.on('error', (error) => done({ status: 0, error: error.message }));
			},
		);
		req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
		req.on('error', (error) => done({ status: 0, error: error.message }));
		req.end(body);
	});
}

/** Sends `count` distinct signed deliveries, `concurrency` at a time; the answers with their times. */
async function burst(url, secret, count, concurrency) {
	const target = new URL(url);
	if (target.hostname !== '127.0.0.1') throw new Error(`P4 sends only to 127.0.0.1, not ${target.hostname}`);
	const taskIds = Array.from({ length: count }, () => crypto.randomUUID());
	const answers = [];
	let next = 0;
	const startedWall = Date.now();
	const started = performance.now();
	const lane = async () => {
		while (next < count) {
			const i = next++;
			const body = deliveryBody(taskIds[i], i);
			const t0 = performance.now();
			const r = await post(target, body, sign(secret, body));
			const t1 = performance.now();
			answers.push({ taskId: taskIds[i], ...r, ms: t1 - t0, doneMs: t1 - started });
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
	return { taskIds, answers, startedWall, endedWall: Date.now(), wallMs: performance.now() - started };
}

// ------------------------------------------------------------- n8n inspection

/** n8n's REST call with a time limit, so that a request n8n never answers cannot stall the benchmark. */
async function restWithin(method, urlPath, ms = 30000) {
	let timer;
	const limit = new Promise((_, reject) => {
		timer = setTimeout(() => reject(new Error(`n8n ${method} ${urlPath.split('?')[0]} gave no answer within ${ms / 1000} s`)), ms);
	});
	try {
		return await Promise.race([rest(method, urlPath), limit]);
	} finally {
		clearTimeout(timer);
	}
}

/** Every execution of the workflow (REST, page by page). */
async function allExecutions(workflowId) {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const list = [];
	let cursor;
	for (let page = 0; page < 1000; page++) {
		const data = await restWithin(
			'GET',
			`/executions?filter=${filter}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
		);
		const results = data.results ?? data;
		list.push(...results);
		cursor = data.nextCursor;
		if (!cursor || !results.length) break;
	}
	const seen = new Set();
	return list.filter((e) => !seen.has(String(e.id)) && seen.add(String(e.id)));
}

const FINISHED = (e) => !['new', 'running', 'waiting'].includes(e.status);

/** Waits until the runs of a burst have all finished (and no more arrive); returns them. */
async function settleRuns(workflowId, known, expected, timeoutMs = 300000) {
	let fresh = [];
	const freshOf = async () => (await allExecutions(workflowId)).filter((e) => !known.has(String(e.id)));
	await waitFor(
		() => `${expected} runs of ${workflowId} to finish (${fresh.filter(FINISHED).length} finished, ${fresh.length} seen)`,
		async () => {
			fresh = await freshOf();
			return fresh.length >= expected && fresh.every(FINISHED);
		},
		timeoutMs,
		500,
	);
	await sleep(2000);
	fresh = await freshOf();
	return fresh;
}

/** The task_id a run was started with (trigger: the item; Webhook node: the request body). */
async function taskIdOfRun(executionId) {
	let timer;
	const execution = await Promise.race([
		executionData(executionId),
		new Promise((_, reject) => {
			timer = setTimeout(() => reject(new Error(`execution ${executionId}: no answer within 30 s`)), 30000);
		}),
	]).finally(() => clearTimeout(timer));
	const data = Array.isArray(execution.data) ? execution.data[0] : execution.data;
	const runData = data?.resultData?.runData ?? {};
	for (const nodeName of ['Document Extraction Trigger', 'Webhook']) {
		const json = runData[nodeName]?.[0]?.data?.main?.[0]?.[0]?.json;
		if (json) return json.task_id ?? json.body?.task_id;
	}
	return undefined;
}

async function mapLimit(items, limit, fn) {
	const out = new Array(items.length);
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.min(limit, items.length) }, async () => {
			while (next < items.length) {
				const i = next++;
				out[i] = await fn(items[i]);
			}
		}),
	);
	return out;
}

/** CPU time (ms) the process has used so far: utime + stime of /proc/<pid>/stat; undefined if unreadable. */
function cpuMs(pid) {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
	} catch {
		return undefined;
	}
}

const CLOCK_TICKS = (() => {
	try {
		return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
	} catch {
		return 100;
	}
})();

// ------------------------------------------------------------------ figures

const median = (xs) => {
	const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
	if (!v.length) return undefined;
	const m = Math.floor(v.length / 2);
	return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const quantile = (xs, q) => {
	const v = [...xs].sort((a, b) => a - b);
	return v.length ? v[Math.min(v.length - 1, Math.floor(q * v.length))] : undefined;
};
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** Phase figures from the probe records of one burst (the request paths of one workflow). */
function phaseFigures(records, deliveries) {
	const phases = {};
	for (const r of records) {
		const p = (phases[r.phase] ??= { count: 0, ms: [], changed: 0, bytes: [] });
		p.count++;
		p.ms.push(r.ms);
		if (r.changed) {
			p.changed++;
			if (r.bytes !== undefined) p.bytes.push(r.bytes);
		}
	}
	const out = {};
	for (const [phase, p] of Object.entries(phases)) {
		out[phase] = {
			count: p.count,
			perDelivery: p.count / deliveries,
			mean: sum(p.ms) / p.count,
			p50: quantile(p.ms, 0.5),
			p95: quantile(p.ms, 0.95),
			max: Math.max(...p.ms),
			changed: p.changed,
			bytes: p.bytes.length ? sum(p.bytes) / p.bytes.length : undefined,
		};
	}
	return out;
}

function readProbe(file) {
	if (!file || !fs.existsSync(file)) return [];
	return fs
		.readFileSync(file, 'utf8')
		.split('\n')
		.filter(Boolean)
		.map((line) => {
			try {
				return JSON.parse(line);
			} catch {
				return undefined;
			}
		})
		.filter(Boolean);
}

/** One measured burst at `target` ({kind, url, secret, workflowId, pathPart}), with its runs counted. */
async function measureBurst({ target, opts, pid, probeFile, log }) {
	const known = new Set((await allExecutions(target.workflowId)).map((e) => String(e.id)));
	const cpuBefore = cpuMs(pid);
	const b = await burst(target.url, target.secret, opts.deliveries, opts.concurrency);
	const cpuAnswered = cpuMs(pid);
	const ok = b.answers.filter((a) => a.status >= 200 && a.status < 300);
	const runs = await settleRuns(target.workflowId, known, ok.length);
	const cpuRuns = cpuMs(pid);
	const lastStop = Math.max(...runs.map((e) => Date.parse(e.stoppedAt)).filter(Number.isFinite));
	const runTaskIds = await mapLimit(runs, 8, (e) => taskIdOfRun(e.id));
	const perTask = new Map();
	for (const id of runTaskIds) perTask.set(id, (perTask.get(id) ?? 0) + 1);
	const okIds = new Set(ok.map((a) => a.taskId));
	const lost = [...okIds].filter((id) => !perTask.has(id)).length;
	const duplicated = [...perTask.values()].reduce((n, c) => n + Math.max(0, c - 1), 0);
	const foreign = [...perTask.keys()].filter((id) => !b.taskIds.includes(id)).length;
	const times = b.answers.map((a) => a.ms);
	const statuses = {};
	for (const a of b.answers) statuses[a.status || a.error] = (statuses[a.status || a.error] ?? 0) + 1;
	const records = readProbe(probeFile).filter(
		(r) => r.t >= b.startedWall && r.t <= b.endedWall + 1000 && String(r.path ?? '').includes(target.pathPart),
	);
	const result = {
		kind: target.kind,
		deliveries: opts.deliveries,
		allAnsweredMs: Math.max(...b.answers.map((a) => a.doneMs)),
		slowestMs: Math.max(...times),
		p50Ms: quantile(times, 0.5),
		p95Ms: quantile(times, 0.95),
		non2xx: b.answers.length - ok.length,
		over10s: times.filter((t) => t > SERVICE_LIMIT_MS).length,
		statuses,
		runs: runs.length,
		failedRuns: runs.filter((e) => e.status !== 'success').length,
		lost,
		duplicated,
		foreign,
		runsDoneMs: Number.isFinite(lastStop) ? lastStop - b.startedWall : undefined,
		cpuAnsweredMs: cpuAnswered !== undefined && cpuBefore !== undefined ? cpuAnswered - cpuBefore : undefined,
		cpuTotalMs: cpuRuns !== undefined && cpuBefore !== undefined ? cpuRuns - cpuBefore : undefined,
		phases: records.length ? phaseFigures(records, opts.deliveries) : undefined,
	};
	log(
		`${NAMES[target.kind]}: all answered ${(result.allAnsweredMs / 1000).toFixed(2)} s, slowest ${(result.slowestMs / 1000).toFixed(2)} s, ` +
			`${result.non2xx} not 2xx, runs ${result.runs} (lost ${lost}, duplicated ${duplicated})` +
			(result.cpuTotalMs !== undefined ? `, n8n CPU ${(result.cpuTotalMs / opts.deliveries).toFixed(1)} ms per delivery` : ''),
	);
	return result;
}

/** Warm-up: a few deliveries to each target (retrying while n8n still answers 404), not counted. */
async function warmUp(targets, log) {
	for (const target of targets) {
		await waitFor(`${target.url} to accept deliveries`, async () => {
			const b = await burst(target.url, target.secret, 1, 1);
			return b.answers[0].status === 200;
		}, 60000, 500);
		const b = await burst(target.url, target.secret, WARMUP_DELIVERIES, 5);
		const bad = b.answers.filter((a) => a.status !== 200);
		if (bad.length) throw new Error(`warm-up of ${target.kind}: ${bad.length} deliveries answered ${bad[0].status || bad[0].error}`);
	}
	log(`warmed up (${WARMUP_DELIVERIES + 1} deliveries each)`);
	// let the warm-up runs finish before measuring
	for (const target of targets) await settleRuns(target.workflowId, new Set(), WARMUP_DELIVERIES + 1, 120000);
}

/** ROUNDS rounds of both bursts, order swapped every round. */
async function rounds({ targets, count, opts, pid, probeFile, log }) {
	const results = [];
	for (let r = 0; r < count; r++) {
		const order = r % 2 === 0 ? ['trigger', 'webhook'] : ['webhook', 'trigger'];
		const round = { order };
		for (const kind of order) {
			await sleep(3000);
			log(`round ${r + 1}/${count}: ${NAMES[kind]} ...`);
			round[kind] = await measureBurst({ target: targets[kind], opts, pid, probeFile, log });
		}
		results.push(round);
	}
	return summarize(results);
}

function summarize(roundResults) {
	const pick = (kind, key) => roundResults.map((r) => r[kind][key]);
	const med = (kind, key) => median(pick(kind, key));
	const summary = { rounds: roundResults };
	for (const kind of ['trigger', 'webhook']) {
		summary[kind] = {};
		for (const key of ['allAnsweredMs', 'slowestMs', 'p50Ms', 'p95Ms', 'runsDoneMs', 'cpuAnsweredMs', 'cpuTotalMs']) {
			summary[kind][key] = med(kind, key);
		}
		for (const key of ['non2xx', 'over10s', 'lost', 'duplicated', 'failedRuns', 'foreign']) {
			summary[kind][key] = sum(pick(kind, key));
		}
		summary[kind].phases = mergePhases(roundResults.map((r) => r[kind].phases).filter(Boolean));
	}
	summary.ratioAllAnswered = summary.trigger.allAnsweredMs / summary.webhook.allAnsweredMs;
	summary.ratioSlowest = summary.trigger.slowestMs / summary.webhook.slowestMs;
	summary.roundRatios = roundResults.map((r) => ({
		allAnswered: r.trigger.allAnsweredMs / r.webhook.allAnsweredMs,
		slowest: r.trigger.slowestMs / r.webhook.slowestMs,
	}));
	return summary;
}

/** Per phase: the median over rounds of each figure. */
function mergePhases(list) {
	if (!list.length) return undefined;
	const out = {};
	const names = new Set(list.flatMap((p) => Object.keys(p)));
	for (const name of names) {
		const entries = list.map((p) => p[name]).filter(Boolean);
		out[name] = {};
		for (const key of ['perDelivery', 'mean', 'p50', 'p95', 'max', 'changed', 'bytes']) {
			out[name][key] = median(entries.map((e) => e[key]));
		}
	}
	return out;
}

// --------------------------------------------------------------- regular mode

function packPackage(dir, sourceRoot = ROOT) {
	const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: sourceRoot, encoding: 'utf8' })
		.trim()
		.split('\n')
		.pop();
	return path.join(dir, tarball);
}

/**
 * The package as built from commit `ref` (BENCH_P4_REF): its tree exported into `dir`, built
 * with this checkout's development tools, packed. Without a ref: the checkout's dist/, packed.
 */
function preparePackage(ref, dir) {
	if (!ref) return packPackage(dir);
	const src = path.join(dir, 'src');
	fs.mkdirSync(src, { recursive: true });
	execFileSync('bash', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'export', ROOT, ref, src], { stdio: 'inherit' });
	fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(src, 'node_modules'), 'dir');
	execFileSync('npm', ['run', '--silent', 'build'], { cwd: src, stdio: ['ignore', 'ignore', 'inherit'] });
	return packPackage(dir, src);
}

async function importInto(cli, workflows, emulatorUrl) {
	const credFile = path.join(state.tmp, 'p4-credentials.json');
	const c = CRED.documentExtractionApi;
	fs.writeFileSync(
		credFile,
		JSON.stringify([{ id: c.id, name: c.name, type: 'documentExtractionApi', data: { apiKey: GOOD_KEY, baseUrl: emulatorUrl } }]),
	);
	await cli(['import:credentials', `--input=${credFile}`]);
	const dir = path.join(state.tmp, 'p4-workflows');
	fs.mkdirSync(dir, { recursive: true });
	for (const wf of workflows) fs.writeFileSync(path.join(dir, `${wf.id}.json`), JSON.stringify(wf, null, 2));
	await cli(['import:workflow', '--separate', `--input=${dir}`]);
}

/** The trigger's registration at the emulator for an n8n serving webhooks at `baseUrl`: {url, secret}. */
async function registrationFor(emu, baseUrl) {
	return await waitFor(`the trigger to register its webhook for ${baseUrl}`, async () => {
		const hook = [...emu.state.webhooks.values()].find((w) => w.url.startsWith(`${baseUrl}/`));
		return hook ? { url: hook.url, secret: hook.secret } : undefined;
	}, 120000, 500);
}

async function targetsFor(emu, baseUrl) {
	const registration = await registrationFor(emu, baseUrl);
	await waitPublished(WF.trigger);
	await waitPublished(WF.webhook);
	return {
		trigger: {
			kind: 'trigger',
			workflowId: WF.trigger,
			url: registration.url,
			secret: registration.secret,
			pathPart: new URL(registration.url).pathname,
		},
		webhook: {
			kind: 'webhook',
			workflowId: WF.webhook,
			url: `${baseUrl}/webhook/${WEBHOOK_PATH}`,
			// the Webhook node ignores the signature; the same signed bodies are sent to both
			secret: registration.secret,
			pathPart: `/webhook/${WEBHOOK_PATH}`,
		},
	};
}

/** Kills what P4 started when the benchmark is interrupted; returns the function that removes the handlers. */
function onInterrupt(cleanupSync) {
	const handler = (signal) => {
		try {
			cleanupSync();
		} finally {
			process.exit(signal === 'SIGINT' ? 130 : 143);
		}
	};
	process.once('SIGINT', handler);
	process.once('SIGTERM', handler);
	return () => {
		process.removeListener('SIGINT', handler);
		process.removeListener('SIGTERM', handler);
	};
}

async function measureRegular({ emu, opts, log }) {
	state.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-bench-p4-'));
	state.userFolder = path.join(state.tmp, 'home');
	state.emulatorUrl = emu.url;
	state.cookie = undefined;
	const removeHandlers = onInterrupt(killAllSync);
	const probeFile = opts.probe ? path.join(state.tmp, 'probe.jsonl') : undefined;
	try {
		const nodesDir = path.join(state.userFolder, '.n8n', 'nodes');
		fs.mkdirSync(nodesDir, { recursive: true });
		installPackage(opts.tarball, nodesDir);
		state.n8nPort = await freePort();
		await importInto((args) => n8nCliOk(args), p4Workflows(), emu.url);
		for (const id of [WF.trigger, WF.webhook]) await n8nCliOk(['publish:workflow', `--id=${id}`]);

		const env = await n8nEnv({ ...opts.extraEnv, ...(probeFile ? { P4_PROBE_FILE: probeFile } : {}) });
		const args = [...(probeFile ? ['--require', PROBE] : []), N8N_BIN, 'start'];
		const logFile = path.join(state.tmp, 'n8n-p4.log');
		state.n8n = startProcess(NODE24, args, env, logFile);
		const baseUrl = `http://127.0.0.1:${state.n8nPort}`;
		try {
			await waitReady(`${baseUrl}/healthz/readiness`, 180000, () => state.n8n.alive);
		} catch (error) {
			throw new Error(`${error.message}\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
		}
		log(`regular mode: n8n on ${baseUrl} (SQLite)${Object.keys(opts.extraEnv).length ? `, ${JSON.stringify(opts.extraEnv)}` : ''}`);
		const targets = await targetsFor(emu, baseUrl);
		await warmUp([targets.trigger, targets.webhook], log);
		return await rounds({ targets, count: opts.rounds, opts, pid: state.n8n.pid, probeFile, log });
	} finally {
		await stopProcess(state.n8n).catch(() => {});
		state.n8n = undefined;
		removeHandlers();
		if (opts.keep) log(`kept ${state.tmp}`);
		else fs.rmSync(state.tmp, { recursive: true, force: true });
	}
}

// ----------------------------------------------------------------- queue mode

async function measureQueueMode({ emu, opts, log }) {
	const { QueueStack } = require('../harness/queue/stack.js');
	state.emulatorUrl = emu.url;
	state.cookie = undefined;
	let stack;
	const removeHandlers = onInterrupt(() => {
		stack?.killSync();
		stack?.stopServicesSync();
	});
	const started = Date.now();
	try {
		// the steps of harness/queue/setup.js prepareStack, with the package P4 measures
		state.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-bench-p4-queue-'));
		state.userFolder = path.join(state.tmp, 'main');
		stack = new QueueStack({ dir: state.tmp, env: opts.extraEnv });
		stack.installPackage(opts.tarball);
		stack.startServices();
		await stack.allocatePorts();
		await importInto((args) => stack.cli(args), p4Workflows(), emu.url);
		for (const id of [WF.trigger, WF.webhook]) await stack.cli(['publish:workflow', `--id=${id}`]);
		log('queue mode: PostgreSQL, Redis, main, 2 workers and a webhook process');
		await stack.startN8nProcesses();
		const startupMs = Date.now() - started;
		const baseUrl = `http://127.0.0.1:${stack.ports.webhook}`;
		const targets = await targetsFor(emu, baseUrl);
		await warmUp([targets.trigger, targets.webhook], log);
		const summary = await rounds({
			targets,
			count: opts.queueRounds,
			opts,
			pid: stack.processes.webhook.child.pid,
			probeFile: undefined,
			log,
		});
		const perProcess = {};
		for (const name of ['main', 'worker1', 'worker2']) {
			perProcess[name] = (stack.log(name).match(/Worker started execution/g) ?? []).length;
		}
		return { ...summary, startupMs, perProcess };
	} finally {
		if (stack) await stack.stop();
		removeHandlers();
		const left = stack ? stack.leftovers() : [];
		if (left.length) log(`warning: still running: ${left.join(', ')}`);
		else if (stack && !opts.keep) fs.rmSync(stack.dir, { recursive: true, force: true });
	}
}

// --------------------------------------------------------------------- entry

/** Runs P4: regular mode, then (unless switched off) queue mode. */
async function measureTrigger({ emu, quick = false, log }) {
	const opts = settings({ quick });
	log(`P4 ${opts.deliveries} signed deliveries, ${opts.concurrency} in flight, trigger vs Webhook node, ${opts.rounds} round(s)`);
	const packageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-bench-p4-package-'));
	let regular;
	try {
		opts.tarball = preparePackage(opts.ref, packageDir);
		opts.commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', opts.ref ?? 'HEAD'], { encoding: 'utf8' }).trim();
		if (!opts.ref) {
			const dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'nodes', 'credentials'], { encoding: 'utf8' }).trim();
			if (dirty) opts.commit += ' with uncommitted changes under nodes/ or credentials/';
		}
		log(`  package ${path.basename(opts.tarball)}${opts.ref ? ` built from ${opts.ref} (${opts.commit})` : ' from dist/'}`);
		regular = await measureRegular({ emu, opts, log: (m) => log(`  ${m}`) });
		if (opts.lazy) {
			// n8n takes an expression isolate for every request to a webhook whose start node is not
			// its own Webhook node, eagerly by default; with lazy acquisition only when an expression
			// is evaluated. The same bursts with that setting show what the trigger itself costs.
			const lazyOpts = { ...opts, extraEnv: { ...opts.extraEnv, ...LAZY_ENV } };
			regular.lazy = await measureRegular({ emu, opts: lazyOpts, log: (m) => log(`  lazy isolates: ${m}`) });
		}
	} catch (error) {
		fs.rmSync(packageDir, { recursive: true, force: true });
		throw error;
	}
	let queue;
	let queueError;
	if (opts.queue) {
		try {
			queue = await measureQueueMode({ emu, opts, log: (m) => log(`  queue: ${m}`) });
			if (opts.lazy) {
				const lazyOpts = { ...opts, extraEnv: { ...opts.extraEnv, ...LAZY_ENV } };
				queue.lazy = await measureQueueMode({ emu, opts: lazyOpts, log: (m) => log(`  queue, lazy isolates: ${m}`) });
			}
		} catch (error) {
			// reported in the table: the queue stack is the fragile part, the regular figures stand
			queueError = String(error.message || error).split('\n')[0];
			log(`  queue mode failed: ${queueError}`);
		}
	}
	fs.rmSync(packageDir, { recursive: true, force: true });
	return { opts: { ...opts, extraEnv: opts.extraEnv }, regular, queue, queueError };
}

// -------------------------------------------------------------------- report

const s = (ms) => (ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(2)} s`);
const msf = (ms) => (ms === undefined ? 'n/a' : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);
const yes = (ok) => (ok ? '**yes**' : '**NO**');

const meetsTarget = (r) =>
	r.ratioAllAnswered <= TARGET_RATIO && r.ratioSlowest <= TARGET_RATIO && r.trigger.slowestMs <= TARGET_SLOWEST_MS;

function summaryRows(p4) {
	const r = p4.regular;
	const rows = [];
	const met = meetsTarget(r);
	rows.push(
		`| P4 trigger vs Webhook node, ${p4.opts.deliveries} signed deliveries, ${p4.opts.concurrency} in flight (regular mode, median of ${r.rounds.length}) | all answered ${s(r.trigger.allAnsweredMs)} vs ${s(r.webhook.allAnsweredMs)} = **${r.ratioAllAnswered.toFixed(2)}×**; slowest ${s(r.trigger.slowestMs)} vs ${s(r.webhook.slowestMs)} = **${r.ratioSlowest.toFixed(2)}×**; lost ${r.trigger.lost}, duplicated ${r.trigger.duplicated} | ratio ≤ ${TARGET_RATIO}, slowest ≤ ${s(TARGET_SLOWEST_MS)} | ${yes(met)} |`,
	);
	if (r.lazy) {
		const l = r.lazy;
		rows.push(
			`| P4 the same with n8n's lazy isolate setting (\`${LAZY_ENV_TEXT}\`, median of ${l.rounds.length}) | all answered ${s(l.trigger.allAnsweredMs)} vs ${s(l.webhook.allAnsweredMs)} = **${l.ratioAllAnswered.toFixed(2)}×**; slowest ${s(l.trigger.slowestMs)} vs ${s(l.webhook.slowestMs)} = **${l.ratioSlowest.toFixed(2)}×**; n8n CPU per delivery ${msf(l.trigger.cpuAnsweredMs / p4.opts.deliveries)} vs ${msf(l.webhook.cpuAnsweredMs / p4.opts.deliveries)}; lost ${l.trigger.lost}, duplicated ${l.trigger.duplicated} | ratio ≤ ${TARGET_RATIO}, slowest ≤ ${s(TARGET_SLOWEST_MS)} | ${yes(meetsTarget(l))} |`,
		);
	}
	if (p4.queue) {
		const q = p4.queue;
		rows.push(
			`| P4 queue mode (webhook process + 2 workers, median of ${q.rounds.length}) | all answered ${s(q.trigger.allAnsweredMs)} vs ${s(q.webhook.allAnsweredMs)} = ${q.ratioAllAnswered.toFixed(2)}×; slowest ${s(q.trigger.slowestMs)} vs ${s(q.webhook.slowestMs)} = ${q.ratioSlowest.toFixed(2)}×; lost ${q.trigger.lost}, duplicated ${q.trigger.duplicated} | (informative) | |`,
		);
		if (q.lazy) {
			const l = q.lazy;
			rows.push(
				`| P4 queue mode with n8n's lazy isolate setting (median of ${l.rounds.length}) | all answered ${s(l.trigger.allAnsweredMs)} vs ${s(l.webhook.allAnsweredMs)} = ${l.ratioAllAnswered.toFixed(2)}×; slowest ${s(l.trigger.slowestMs)} vs ${s(l.webhook.slowestMs)} = ${l.ratioSlowest.toFixed(2)}×; webhook process CPU per delivery ${msf(l.trigger.cpuAnsweredMs / p4.opts.deliveries)} vs ${msf(l.webhook.cpuAnsweredMs / p4.opts.deliveries)}; lost ${l.trigger.lost}, duplicated ${l.trigger.duplicated} | (informative) | |`,
			);
		}
	} else if (p4.queueError) {
		rows.push(`| P4 queue mode | failed: ${p4.queueError.replace(/\|/g, '/')} | (informative) | |`);
	}
	return rows;
}

const PHASE_ORDER = [
	['request', 'whole request in n8n (handler start → answer handed to the socket)'],
	['answered', 'handler start → response finished'],
	['findWebhook', 'webhook lookup'],
	['loadWorkflow', 'load the published workflow with its static data (DB read)'],
	['acquireIsolate', 'take an expression isolate (Expression.acquireIsolate)'],
	['runWebhook', "the node's webhook() method"],
	['runnerRun', 'WorkflowRunner.run: create the execution (DB insert) and start it'],
	['saveStaticData', 'save the static data (DB write when changed)'],
	['releaseIsolate', 'release (dispose) the isolate'],
];

function modeTable(out, name, m, opts) {
	out(`### ${name}`);
	out();
	out(`| | ${NAMES.trigger} | ${NAMES.webhook} | Trigger ÷ Webhook |`);
	out('|---|---|---|---|');
	const row = (label, key, fmt = s, ratio = true) =>
		out(`| ${label} | ${fmt(m.trigger[key])} | ${fmt(m.webhook[key])} | ${ratio && m.webhook[key] ? `${(m.trigger[key] / m.webhook[key]).toFixed(2)}×` : ''} |`);
	row(`All ${opts.deliveries} answered (median)`, 'allAnsweredMs');
	row('Slowest answer (median)', 'slowestMs');
	out(`| Answer time p50 / p95 (median) | ${s(m.trigger.p50Ms)} / ${s(m.trigger.p95Ms)} | ${s(m.webhook.p50Ms)} / ${s(m.webhook.p95Ms)} | |`);
	row('All runs finished (median, from the first delivery)', 'runsDoneMs');
	row('n8n CPU per delivery while answering (median)', 'cpuAnsweredMs', (v) => (v === undefined ? 'n/a' : msf(v / opts.deliveries)));
	row('n8n CPU per delivery incl. the runs (median)', 'cpuTotalMs', (v) => (v === undefined ? 'n/a' : msf(v / opts.deliveries)));
	row('Answers not 2xx (all rounds)', 'non2xx', String, false);
	row(`Answers slower than ${SERVICE_LIMIT_MS / 1000} s (service re-sends; all rounds)`, 'over10s', String, false);
	row('Lost: 2xx but no run (all rounds)', 'lost', String, false);
	row('Duplicated runs (all rounds)', 'duplicated', String, false);
	row('Runs not successful (all rounds)', 'failedRuns', String, false);
	out();
	out('Per round (order swapped every round):');
	out();
	out('| Round | Order | Trigger: all answered / slowest | Webhook: all answered / slowest | Ratio all answered / slowest |');
	out('|---|---|---|---|---|');
	m.rounds.forEach((r, i) => {
		out(
			`| ${i + 1} | ${r.order.map((k) => (k === 'trigger' ? 'trigger' : 'webhook')).join(' → ')} | ${s(r.trigger.allAnsweredMs)} / ${s(r.trigger.slowestMs)} | ${s(r.webhook.allAnsweredMs)} / ${s(r.webhook.slowestMs)} | ${m.roundRatios[i].allAnswered.toFixed(2)}× / ${m.roundRatios[i].slowest.toFixed(2)}× |`,
		);
	});
	out();
}

let lines;

/** The P4 section of bench/results.md (starts with "## P4"). */
function section(p4) {
	lines = [];
	const out = (line = '') => lines.push(line);
	const o = p4.opts;
	out('## P4: the trigger under load, against n8n\'s Webhook node');
	out();
	out(
		`A real n8n (${process.env.N8N_DIR ? path.basename(process.env.N8N_DIR) : 'n8n'}, the packed package installed as a community package) with two published workflows: Document Extraction Trigger → No Op, and Webhook (POST, respond immediately) → No Op. Each gets the same burst: ${o.deliveries} distinct, correctly signed task.completed deliveries, ${o.concurrency} in flight, each on a new connection from 127.0.0.1. The bursts alternate (order swapped every round); figures are medians over the rounds. Runs are counted per task_id from n8n's execution records once all have finished. CPU is the n8n process's (in queue mode: the webhook process's) utime + stime over the burst. ${o.ref ? `Package built from commit ${o.commit} (\`BENCH_P4_REF=${o.ref}\`). ` : `Package: dist/ of commit ${o.commit}. `}The client, n8n and (in queue mode) PostgreSQL, Redis and the workers share the machine's CPUs; other work on the machine adds noise.${Object.keys(o.extraEnv).length ? ` n8n environment for this run: \`${Object.entries(o.extraEnv).map(([k, v]) => `${k}=${v}`).join(' ')}\`.` : ''}`,
	);
	out();
	out(`Target: trigger ÷ Webhook node ≤ ${TARGET_RATIO} for both figures, and no answer slower than ${s(TARGET_SLOWEST_MS)} (the service re-sends a delivery without a 2xx within ${SERVICE_LIMIT_MS / 1000} s).`);
	out();
	modeTable(out, `Regular mode (one n8n process, SQLite), ${p4.regular.rounds.length} round(s)`, p4.regular, o);
	const ph = p4.regular;
	if (ph.trigger.phases || ph.webhook.phases) {
		out('#### Where the time goes per delivery (regular mode, bench/p4-probe.js in the n8n process)');
		out();
		out('Wall time of each phase n8n runs for a production webhook request before it answers (under the burst\'s concurrency, so it includes waiting for the database and the event loop), median over rounds of each figure. "Calls" is per delivery; a phase the Webhook node does not go through has no calls.');
		out();
		out('| Phase | Trigger: calls / mean / p95 | Webhook node: calls / mean / p95 |');
		out('|---|---|---|');
		const cell = (p) => (p ? `${p.perDelivery.toFixed(2)} / ${msf(p.mean)} / ${msf(p.p95)}` : '—');
		for (const [phase, label] of PHASE_ORDER) {
			const t = ph.trigger.phases?.[phase];
			const w = ph.webhook.phases?.[phase];
			if (!t && !w) continue;
			out(`| ${phase}: ${label} | ${cell(t)} | ${cell(w)} |`);
		}
		const save = ph.trigger.phases?.saveStaticData;
		if (save) {
			out();
			out(
				`Static data written by n8n after a trigger delivery: ${save.changed ?? 0} of ${o.deliveries} deliveries per burst (median)${save.bytes ? `, ${Math.round(save.bytes)} bytes of JSON each (the whole static data is rewritten)` : ''}.`,
			);
		}
		out();
	}
	if (p4.regular.lazy) {
		modeTable(
			out,
			`Regular mode with n8n's lazy isolate setting (\`${LAZY_ENV_TEXT}\`), ${p4.regular.lazy.rounds.length} round(s)`,
			p4.regular.lazy,
			o,
		);
	}
	if (p4.queue) {
		modeTable(out, `Queue mode (deliveries to the webhook process; main, 2 workers, PostgreSQL, Redis), ${p4.queue.rounds.length} round(s)`, p4.queue, o);
		out(`Queue stack start-up (PostgreSQL, Redis, imports, main, workers, webhook process): ${s(p4.queue.startupMs)}. Runs per worker over the whole variant: ${Object.entries(p4.queue.perProcess).map(([k, v]) => `${k} ${v}`).join(', ')}.`);
		out();
		if (p4.queue.lazy) {
			modeTable(
				out,
				`Queue mode with n8n's lazy isolate setting (\`${LAZY_ENV_TEXT}\` on every process), ${p4.queue.lazy.rounds.length} round(s)`,
				p4.queue.lazy,
				o,
			);
		}
	} else if (p4.queueError) {
		out(`Queue mode: the variant failed: ${p4.queueError}`);
		out();
	}
	return lines.join('\n');
}

module.exports = { measureTrigger, summaryRows, section, p4Workflows, WF };
