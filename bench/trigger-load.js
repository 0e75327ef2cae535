'use strict';

/** The load of row P4: its settings, the signed deliveries of a burst, what n8n recorded for them, and the figures of a burst and of the rounds. */

const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const { execFileSync } = require('node:child_process');
const { rest, executionData, waitFor } = require('../harness/n8n.js');
const { INVOICES_ID, sleep } = require('../harness/fixtures.js');

const NODE24 = process.env.NODE24 || process.execPath;
const LAZY_ENV = { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };
const LAZY_ENV_TEXT = Object.entries(LAZY_ENV).map(([k, v]) => `${k}=${v}`).join(' ');
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

const { sign } = require('../emulator/lib/outbound.js');

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

/** One measured burst at `target` ({kind, url, secret, workflowId, pathPart}), with its runs counted. */
async function measureBurst({ target, opts, pid, log }) {
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
async function rounds({ targets, count, opts, pid, log }) {
	const results = [];
	for (let r = 0; r < count; r++) {
		const order = r % 2 === 0 ? ['trigger', 'webhook'] : ['webhook', 'trigger'];
		const round = { order };
		for (const kind of order) {
			await sleep(3000);
			log(`round ${r + 1}/${count}: ${NAMES[kind]} ...`);
			round[kind] = await measureBurst({ target: targets[kind], opts, pid, log });
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
	}
	summary.ratioAllAnswered = summary.trigger.allAnsweredMs / summary.webhook.allAnsweredMs;
	summary.ratioSlowest = summary.trigger.slowestMs / summary.webhook.slowestMs;
	summary.roundRatios = roundResults.map((r) => ({
		allAnswered: r.trigger.allAnsweredMs / r.webhook.allAnsweredMs,
		slowest: r.trigger.slowestMs / r.webhook.slowestMs,
	}));
	return summary;
}

module.exports = {
	LAZY_ENV,
	LAZY_ENV_TEXT,
	NAMES,
	NODE24,
	SERVICE_LIMIT_MS,
	TARGET_RATIO,
	TARGET_SLOWEST_MS,
	TRIGGER_TYPE,
	TRIGGER_WEBHOOK_ID,
	WEBHOOK_PATH,
	WF,
	rounds,
	settings,
	warmUp,
};
