'use strict';

/**
 * Process control: every child process the suite starts (emulator, n8n CLI commands,
 * the n8n server) runs in its own process group and is tracked, so teardown and the
 * signal handlers can kill them all. Also n8n's REST API and the run JSON of `n8n execute`.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

const { waitReady, setupOwner, login } = require('../scripts/n8n-local.js');
const { sleep } = require('./fixtures.js');
const state = require('./state.js');

const ROOT = path.resolve(__dirname, '..');
const NODE24 = process.env.NODE24 || process.execPath;
const N8N_BIN = process.env.N8N_BIN;
const N8N_DIR = process.env.N8N_DIR;

/**
 * The n8n under test. The cases speak n8n 2.x (publish:workflow, publication status); on n8n 1.x
 * the few calls that differ are translated here (see n8nCli and waitPublished), and a case whose
 * feature 1.x lacks is skipped with the reason (skipOnN8n1).
 */
const N8N_VERSION = N8N_DIR
	? JSON.parse(fs.readFileSync(path.join(N8N_DIR, 'node_modules', 'n8n', 'package.json'), 'utf8'))
			.version
	: undefined;
const N8N_MAJOR = N8N_VERSION ? Number(N8N_VERSION.split('.')[0]) : undefined;
const IS_N8N_1 = N8N_MAJOR === 1;

const children = new Set();

function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/** Spawns a tracked child in its own process group; `exited` resolves with {code, signal}. */
function spawnTracked(command, args, options) {
	const child = spawn(command, args, { ...options, detached: true });
	child.alive = true;
	child.exited = new Promise((resolve) =>
		child.on('exit', (code, signal) => {
			child.alive = false;
			children.delete(child);
			resolve({ code, signal });
		}),
	);
	children.add(child);
	return child;
}

function killGroup(child, signal) {
	try {
		process.kill(-child.pid, signal);
		return true;
	} catch {
		return false;
	}
}

/** Starts a long-running process, output appended to `logFile`. */
function startProcess(command, args, env, logFile) {
	const out = fs.openSync(logFile, 'a');
	const child = spawnTracked(command, args, { env, cwd: ROOT, stdio: ['ignore', out, out] });
	fs.closeSync(out);
	return child;
}

/** SIGTERM to the process group, SIGKILL after `timeoutMs`. */
async function stopProcess(child, timeoutMs = 30000) {
	if (!child || !child.alive || !killGroup(child, 'SIGTERM')) return;
	// the timer is cleared: node:test ends the run only once the event loop is empty
	const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
	await child.exited;
	clearTimeout(timer);
}

/** Kills every process the suite started and that still runs (synchronous: usable on exit). */
function killAllSync() {
	for (const child of children) killGroup(child, 'SIGKILL');
}

/**
 * Environment of an n8n process with its own user folder: quiet, offline, on 127.0.0.1 only.
 * Used by the suites (n8nEnv) and by the benchmarks.
 */
async function n8nProcessEnv(userFolder, extra = {}) {
	return {
		PATH: process.env.PATH,
		HOME: process.env.HOME,
		TMPDIR: process.env.TMPDIR || os.tmpdir(),
		LANG: process.env.LANG || 'C.UTF-8',
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: 'e2e-document-extraction-0123456789abcdef',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		// n8n 1.x has no mcp-registry module and refuses to start when an unknown one is named
		...(IS_N8N_1 ? {} : { N8N_DISABLED_MODULES: 'mcp-registry' }),
		N8N_LOG_LEVEL: 'info',
		N8N_HOST: '127.0.0.1',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		// n8n 1.x offers the database binary data mode only when it is listed as available
		...(IS_N8N_1 ? { N8N_AVAILABLE_BINARY_DATA_MODES: 'filesystem,database' } : {}),
		// publishing is asynchronous in n8n 2.41 (outbox + reconciler): work it off quickly
		N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '1000',
		N8N_WORKFLOW_PUBLICATION_RECONCILE_INTERVAL_SECONDS: '2',
		// one claim transaction per poll, not five: SQLite has one write connection, which the
		// suite's webhook runs need too (n8n gives up on a write that waited 60 s, then answers
		// every request 503 "Database is not ready!" while the queue lasts)
		N8N_WORKFLOW_PUBLICATION_CONCURRENCY: '1',
		...extra,
	};
}

/** Environment of every n8n process of the suite: the suite's user folder and port. */
async function n8nEnv(extra = {}) {
	const env = await n8nProcessEnv(state.userFolder, extra);
	if (state.n8nPort) {
		env.N8N_PORT ??= String(state.n8nPort);
		env.N8N_WEBHOOK_URL ??= `http://127.0.0.1:${state.n8nPort}/`;
	}
	return env;
}

/**
 * Options for node:test's `test(name, options, fn)` that skip a case on n8n 1.x, for a feature
 * n8n 1.x lacks; the report prints the case as SKIP with `reason`.
 */
function skipOnN8n1(reason) {
	return { skip: IS_N8N_1 ? `not on n8n ${N8N_VERSION}: ${reason}` : false };
}

// ------------------------------------------------------------------- CLI

/**
 * n8n 1.x has no `publish:workflow`: `update:workflow --active=true` is its equivalent (it sets
 * the workflow active with its current version, which the next start activates).
 */
function cliArgs(args) {
	if (IS_N8N_1 && args[0] === 'publish:workflow')
		return ['update:workflow', ...args.slice(1), '--active=true'];
	return args;
}

/** Runs an n8n CLI command to completion; resolves with { code, output }. */
async function n8nCli(args, extraEnv = {}, timeoutMs = 180000) {
	args = cliArgs(args);
	const env = await n8nEnv(extraEnv);
	const child = spawnTracked(NODE24, [N8N_BIN, ...args], {
		env,
		cwd: state.tmp,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	child.stdout.on('data', (d) => (output += d));
	child.stderr.on('data', (d) => (output += d));
	let timer;
	const timedOut = new Promise((resolve, reject) => {
		timer = setTimeout(() => {
			killGroup(child, 'SIGKILL');
			reject(
				new Error(
					`n8n ${args.join(' ')} timed out after ${timeoutMs / 1000} s\n${output.slice(-2000)}`,
				),
			);
		}, timeoutMs);
	});
	try {
		const { code, signal } = await Promise.race([child.exited, timedOut]);
		const exit = signal ? `signal ${signal}` : `exit ${code}`;
		fs.appendFileSync(
			path.join(state.tmp, 'cli.log'),
			`\n$ n8n ${args.join(' ')}  (${exit})\n${output}`,
		);
		return { code, signal, output };
	} finally {
		clearTimeout(timer);
	}
}

async function n8nCliOk(args, extraEnv) {
	const res = await n8nCli(args, extraEnv);
	if (res.code !== 0)
		throw new Error(`n8n ${args.join(' ')} exited ${res.code}:\n${res.output.slice(-3000)}`);
	return res;
}

/** The run JSON that `n8n execute` prints (N8N_LOG_LEVEL=info) after its ==== line. */
function parseRun(output) {
	const lines = output.split('\n');
	const start = lines.indexOf('{');
	if (start === -1) return undefined;
	const end = lines.indexOf('}', start);
	if (end === -1) return undefined;
	return JSON.parse(lines.slice(start, end + 1).join('\n'));
}

/** `n8n execute --id`, returning the parsed run (also for failed runs). */
async function execute(workflowId, extraEnv = {}) {
	const { code, signal, output } = await n8nCli(['execute', `--id=${workflowId}`], extraEnv);
	const run = parseRun(output);
	if (!run)
		throw new Error(
			`n8n execute --id=${workflowId} printed no run (exit ${code}):\n${output.slice(-3000)}`,
		);
	return { code, signal, run, output };
}

// ------------------------------------------------------------ run output

function nodeRun(run, nodeName) {
	const runs = run.data.resultData.runData[nodeName];
	assert.ok(runs && runs.length, `node "${nodeName}" did not run`);
	return runs[0];
}

function nodeItems(run, nodeName) {
	const r = nodeRun(run, nodeName);
	assert.ok(
		!r.error,
		`node "${nodeName}" failed: ${r.error?.message} ${r.error?.description ?? ''}`,
	);
	return r.data.main[0];
}

function runError(run) {
	const e = run.data.resultData.error;
	return e ? `${e.message ?? ''}\n${e.description ?? ''}` : '';
}

/** The bytes n8n holds for an output binary, whatever the binary data mode. */
function binaryBytes(binary) {
	if (binary.id && binary.id.startsWith('filesystem')) {
		const rel = binary.id.slice(binary.id.indexOf(':') + 1);
		// n8n's filesystem store: <user folder>/.n8n/storage in 2.x, .n8n/binaryData in 1.x
		const store = IS_N8N_1 ? 'binaryData' : 'storage';
		return fs.readFileSync(path.join(state.userFolder, '.n8n', store, rel));
	}
	if (binary.data && !binary.id) return Buffer.from(binary.data, 'base64');
	return undefined; // database / object stores: not read back here
}

// ---------------------------------------------------------- n8n server

const n8nUrl = (p) => `http://127.0.0.1:${state.n8nPort}${p}`;

async function startN8n(extra = {}) {
	// One server at a time: a second one could not take the port, and the readiness checks would
	// pass on the first one, which would then serve the suite unseen (and outlive its stop).
	if (state.n8n?.alive) await stopN8n();
	const env = await n8nEnv(extra);
	const logFile = path.join(state.tmp, `n8n-${++state.n8nLogIndex}.log`);
	state.n8n = startProcess(NODE24, [N8N_BIN, 'start'], env, logFile);
	try {
		await waitReady(n8nUrl('/healthz/readiness'), 120000, () => state.n8n.alive);
		// n8n 1.x is "ready" before its REST API is mounted: wait for that too
		await waitReady(n8nUrl('/rest/settings'), 60000, () => state.n8n.alive);
	} catch (error) {
		throw new Error(`${error.message}\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
	}
	state.cookie = undefined;
}

async function stopN8n() {
	await stopProcess(state.n8n);
	state.n8n = undefined;
}

/** SIGKILL to the n8n server's process group, as a crash: nothing of n8n's shutdown runs. */
async function killN8n() {
	const child = state.n8n;
	if (!child?.alive) return;
	killGroup(child, 'SIGKILL');
	await child.exited;
	state.n8n = undefined;
}

async function rest(method, urlPath, body) {
	if (!state.cookie) {
		const owner = await setupOwner(n8nUrl(''), path.join(state.tmp, 'owner.json'));
		state.cookie = await login(n8nUrl(''), owner);
	}
	const res = await fetch(n8nUrl(`/rest${urlPath}`), {
		method,
		headers: {
			cookie: state.cookie,
			'content-type': 'application/json',
			'browser-id': 'e2e-suite',
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	if (res.status >= 300)
		throw new Error(`n8n ${method} /rest${urlPath}: HTTP ${res.status} ${text.slice(0, 500)}`);
	return JSON.parse(text).data;
}

async function executionsOf(workflowId) {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const data = await rest('GET', `/executions?filter=${filter}&limit=100`);
	return data.results ?? data;
}

async function executionData(executionId) {
	const { parse } = require(path.join(N8N_DIR, 'node_modules', 'flatted'));
	const execution = await rest('GET', `/executions/${executionId}`);
	return {
		...execution,
		data: typeof execution.data === 'string' ? parse(execution.data) : execution.data,
	};
}

/** Polls `fn` until it returns something truthy; returns that. `what` may be a function, read on timeout. */
async function waitFor(what, fn, timeoutMs = 60000, intervalMs = 500) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const last = await fn();
		if (last) return last;
		if (Date.now() > deadline) {
			const waited = typeof what === 'function' ? what() : what;
			throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${waited}`);
		}
		await sleep(intervalMs);
	}
}

/** Waits until `count` executions of the workflow finished, then makes sure no more arrive. */
async function waitExecutions(workflowId, count, { timeoutMs = 30000, settleMs = 2500 } = {}) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const list = await executionsOf(workflowId);
		const finished = list.filter((e) => !['new', 'running', 'waiting'].includes(e.status));
		if (finished.length >= count) break;
		await sleep(500);
	}
	await sleep(settleMs);
	return await executionsOf(workflowId);
}

/**
 * n8n 2.41 publishes through an outbox that a background consumer works off (and activates
 * published workflows at startup through a reconciler), so publishing is asynchronous.
 */
async function waitPublished(workflowId, versionId) {
	if (IS_N8N_1) {
		// n8n 1.x activates synchronously and has no publication status: the workflow's own record
		return await waitFor(`workflow ${workflowId} to be active`, async () => {
			const wf = await rest('GET', `/workflows/${workflowId}`);
			const done = wf.active && (!versionId || (wf.activeVersionId ?? wf.versionId) === versionId);
			return done ? wf : undefined;
		});
	}
	return await waitFor(`workflow ${workflowId} to be published`, async () => {
		const s = await rest('GET', `/workflows/${workflowId}/publication-status`);
		const done =
			s.status === 'published' &&
			!s.pendingVersionId &&
			(!versionId || s.liveVersionId === versionId);
		return done ? s : undefined;
	});
}

module.exports = {
	ROOT,
	NODE24,
	N8N_BIN,
	N8N_DIR,
	N8N_VERSION,
	IS_N8N_1,
	skipOnN8n1,
	freePort,
	startProcess,
	stopProcess,
	killAllSync,
	n8nProcessEnv,
	n8nEnv,
	n8nCliOk,
	parseRun,
	execute,
	nodeItems,
	runError,
	binaryBytes,
	startN8n,
	stopN8n,
	killN8n,
	rest,
	executionsOf,
	executionData,
	waitFor,
	waitExecutions,
	waitPublished,
};
