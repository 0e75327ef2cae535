#!/usr/bin/env node
'use strict';

/**
 * End-to-end suite: the packed package installed as a community package in a real n8n
 * (NODE24 + N8N_BIN from scripts/ensure-runtime.sh), against the emulator on a free port.
 * Every check reads n8n's own output: the run JSON of `n8n execute --id`, or for the trigger
 * the executions n8n stored (REST API). Prints PASS/FAIL per case and "N passed, N failed".
 *
 *   NODE24=… N8N_BIN=… N8N_DIR=… node test/e2e/suite.js      (normally via test/e2e/run.sh)
 *   E2E_KEEP=1         keep the temporary folder (n8n user folder, logs)
 *   E2E_ONLY=<regexp>  run only matching cases (the trigger cases share one n8n server)
 *   E2E_PROCESSING_MS  emulator processing time (default 1500)
 */

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');

const {
	installPackage,
	waitReady,
	setupOwner,
	login,
	writeCredential,
} = require('../../scripts/n8n-local.js');
const { samplePdf } = require('./pdf.js');

const ROOT = path.resolve(__dirname, '../..');
const NODE24 = process.env.NODE24 || process.execPath;
const N8N_BIN = process.env.N8N_BIN;
const N8N_DIR = process.env.N8N_DIR;
const PROCESSING_MS = Number(process.env.E2E_PROCESSING_MS || 1500);
const ONLY = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY, 'i') : undefined;
const KEEP = process.env.E2E_KEEP === '1';
const SUITE_TIMEOUT_MS = 18 * 60 * 1000;

const PACKAGE = 'n8n-nodes-document-extraction';
const ACTION = `${PACKAGE}.documentExtraction`;
const INVOICES_ID = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c';
const IDENTITY_ID = '8a4b6c2d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
const UNKNOWN_PROJECT_ID = '00000000-0000-4000-8000-00000000e2e0';
const GOOD_KEY = 'vnd_test_key';
const INACTIVE_KEY = 'vnd_inactive_key';
const CRED = {
	documentExtractionApi: { id: 'DocExtrLocalEmu1', name: 'Document Extraction (local emulator)' },
};
const CRED_INACTIVE = {
	documentExtractionApi: { id: 'DocExtrInactive1', name: 'Document Extraction (inactive key)' },
};
const EXAMPLE_SUBMIT_ID = 'DocExtrExample01';
const EXAMPLE_TRIGGER_ID = 'DocExtrExample02';
const TRIGGER_NODE = 'Document Extraction Trigger';
const CRM_NODE = 'CRM Record';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// ---------------------------------------------------------------- sample files

const FILES = {
	a: { name: 'a.pdf', bytes: samplePdf('INVOICE INV-A-1001 Acme Supplies GmbH Total 1190.00 EUR') },
	b: { name: 'b-broken.pdf', bytes: samplePdf('INVOICE INV-B-2002 EMULATOR_FAIL unreadable scan') },
	c: { name: 'c.pdf', bytes: samplePdf('INVOICE INV-C-3003 Northwind Traders Total 42.00 USD') },
	t: { name: 'trigger.pdf', bytes: samplePdf('INVOICE INV-T-4004 delivered by webhook') },
	s: { name: 'status.pdf', bytes: samplePdf('INVOICE INV-S-5005 fetched with Get Status') },
	r: { name: 'restart.pdf', bytes: samplePdf('INVOICE INV-R-6006 after republishing') },
};

// ---------------------------------------------------------------- tiny runner

const cases = [];
function test(name, fn) {
	cases.push({ name, fn });
}

// ---------------------------------------------------------------- processes

const state = {
	tmp: undefined,
	userFolder: undefined,
	emulatorUrl: undefined,
	emulator: undefined,
	n8n: undefined,
	n8nPort: undefined,
	n8nLogIndex: 0,
	statusTaskId: undefined,
	cookie: undefined,
};
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

/** Starts a process in its own process group, output appended to `logFile`. */
function startProcess(command, args, env, logFile) {
	const out = fs.openSync(logFile, 'a');
	const child = spawn(command, args, {
		env,
		cwd: ROOT,
		stdio: ['ignore', out, out],
		detached: true,
	});
	fs.closeSync(out);
	child.exited = new Promise((resolve) =>
		child.on('exit', (code, signal) => resolve({ code, signal })),
	);
	child.alive = true;
	child.exited.then(() => {
		child.alive = false;
		children.delete(child);
	});
	children.add(child);
	return child;
}

async function stopProcess(child, timeoutMs = 30000) {
	if (!child || !child.alive) return;
	try {
		process.kill(-child.pid, 'SIGTERM');
	} catch {
		return;
	}
	const stopped = await Promise.race([
		child.exited.then(() => true),
		sleep(timeoutMs).then(() => false),
	]);
	if (!stopped) {
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {}
		await child.exited;
	}
}

function killAllSync() {
	for (const child of children) {
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {}
	}
}

/** Environment of every n8n process of the suite: own user folder, quiet, offline, loopback. */
async function n8nEnv(extra = {}) {
	const env = {
		PATH: process.env.PATH,
		HOME: process.env.HOME,
		TMPDIR: process.env.TMPDIR || os.tmpdir(),
		LANG: process.env.LANG || 'C.UTF-8',
		N8N_USER_FOLDER: state.userFolder,
		N8N_ENCRYPTION_KEY: 'e2e-document-extraction-0123456789abcdef',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_LOG_LEVEL: 'info',
		N8N_HOST: '127.0.0.1',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		// publishing is asynchronous in n8n 2.41 (outbox + reconciler): work it off quickly
		N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '1000',
		N8N_WORKFLOW_PUBLICATION_RECONCILE_INTERVAL_SECONDS: '2',
		...extra,
	};
	if (state.n8nPort) {
		env.N8N_PORT ??= String(state.n8nPort);
		env.N8N_WEBHOOK_URL ??= `http://127.0.0.1:${state.n8nPort}/`;
	}
	return env;
}

/** Runs an n8n CLI command to completion; resolves with { code, output }. */
async function n8nCli(args, extraEnv = {}, timeoutMs = 180000) {
	const env = await n8nEnv(extraEnv);
	return await new Promise((resolve, reject) => {
		const child = spawn(NODE24, [N8N_BIN, ...args], {
			env,
			cwd: state.tmp,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		children.add(child);
		let output = '';
		child.stdout.on('data', (d) => (output += d));
		child.stderr.on('data', (d) => (output += d));
		const timer = setTimeout(() => {
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {}
			reject(
				new Error(
					`n8n ${args.join(' ')} timed out after ${timeoutMs / 1000} s\n${output.slice(-2000)}`,
				),
			);
		}, timeoutMs);
		child.on('exit', (code) => {
			clearTimeout(timer);
			children.delete(child);
			fs.appendFileSync(
				path.join(state.tmp, 'cli.log'),
				`\n$ n8n ${args.join(' ')}  (exit ${code})\n${output}`,
			);
			resolve({ code, output });
		});
	});
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
	const { code, output } = await n8nCli(['execute', `--id=${workflowId}`], extraEnv);
	const run = parseRun(output);
	if (!run)
		throw new Error(
			`n8n execute --id=${workflowId} printed no run (exit ${code}):\n${output.slice(-3000)}`,
		);
	return { code, run, output };
}

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

function expectSuccess(result) {
	assert.equal(
		result.run.status,
		'success',
		`execution status ${result.run.status}: ${runError(result.run)}`,
	);
	assert.equal(result.code, 0, `n8n execute exited ${result.code}`);
}

function pairedIndex(item) {
	const p = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
	return typeof p === 'number' ? p : p?.item;
}

/** The bytes n8n holds for an output binary, whatever the binary data mode. */
function binaryBytes(binary) {
	if (binary.id && binary.id.startsWith('filesystem')) {
		const rel = binary.id.slice(binary.id.indexOf(':') + 1);
		return fs.readFileSync(path.join(state.userFolder, '.n8n', 'storage', rel));
	}
	if (binary.data && !binary.id) return Buffer.from(binary.data, 'base64');
	return undefined; // database / object stores: not read back here
}

// ---------------------------------------------------------------- emulator

async function emu(method, urlPath, body, key) {
	const headers = { 'content-type': 'application/json' };
	if (key) headers.authorization = `Bearer ${key}`;
	const res = await fetch(`${state.emulatorUrl}${urlPath}`, {
		method,
		headers,
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	let json;
	try {
		json = JSON.parse(text);
	} catch {}
	return { status: res.status, json, text };
}

async function emuJson(method, urlPath, body, key) {
	const res = await emu(method, urlPath, body, key);
	if (res.status >= 300)
		throw new Error(`emulator ${method} ${urlPath}: HTTP ${res.status} ${res.text}`);
	return res.json;
}

async function submitDirect(file, documentType = 'invoice') {
	const { task_id: taskId } = await emuJson(
		'POST',
		'/process_file',
		{
			file_base64: file.bytes.toString('base64'),
			project: 'Invoices',
			document_type: documentType,
		},
		GOOD_KEY,
	);
	return taskId;
}

async function waitTask(taskId, timeoutMs = 30000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const task = await emuJson('GET', `/task_status/${taskId}`, undefined, GOOD_KEY);
		if (task.status === 'complete' || task.status === 'failed') return task;
		if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status}`);
		await sleep(250);
	}
}

async function emulatorTask(taskId) {
	const { tasks } = await emuJson('GET', '/_emulator/tasks');
	return tasks.find((t) => t.task_id === taskId);
}

// ---------------------------------------------------------------- workflows

let position = 0;
function node(name, type, typeVersion, parameters, extra = {}) {
	position += 220;
	return {
		id: crypto.randomUUID(),
		name,
		type,
		typeVersion,
		position: [position, 0],
		parameters,
		...extra,
	};
}

function manual() {
	return node('Start', 'n8n-nodes-base.manualTrigger', 1, {});
}

/** Set (raw JSON) -> Split Out -> Convert to File: one binary item per file, built in the workflow. */
function fileNodes(files) {
	const json = { files: files.map((f) => ({ name: f.name, b64: f.bytes.toString('base64') })) };
	return [
		node('Files', 'n8n-nodes-base.set', 3.4, {
			mode: 'raw',
			jsonOutput: JSON.stringify(json),
			options: {},
		}),
		node('Split Files', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'files', options: {} }),
		node('To File', 'n8n-nodes-base.convertToFile', 1.1, {
			operation: 'toBinary',
			sourceProperty: 'b64',
			binaryPropertyName: 'data',
			options: { fileName: '={{ $json.name }}', mimeType: 'application/pdf' },
		}),
	];
}

function docex(name, parameters, { credentials = CRED, continueOnFail = false } = {}) {
	return node(name, ACTION, 1, parameters, {
		credentials,
		...(continueOnFail ? { onError: 'continueRegularOutput' } : {}),
	});
}

const project = (value) => ({ __rl: true, mode: 'id', value });

function submitAndWait(name, options = {}, extra = {}) {
	return docex(
		name,
		{
			resource: 'document',
			operation: 'submitAndWait',
			binaryPropertyName: 'data',
			project: project(extra.project ?? 'Invoices'),
			documentType: 'invoice',
			output: extra.output ?? 'full',
			options: { pollInterval: 1, ...options },
		},
		extra,
	);
}

function workflow(id, name, nodes) {
	const connections = {};
	for (let i = 0; i < nodes.length - 1; i++) {
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	return {
		id,
		name,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
		pinData: {},
	};
}

const WF = {
	submit: 'E2eSubmit0000001',
	status: 'E2eGetStatus0001',
	saw: 'E2eSubmitWait001',
	batch: 'E2eBatchOf3Items',
	failed: 'E2eFailedTask001',
	failedAsItem: 'E2eFailedAsItem1',
	list: 'E2eListProjects1',
	register: 'E2eRegisterHook1',
	inactive: 'E2eInactiveKey01',
	unknown: 'E2eUnknownProj01',
};
const REGISTERED_HOOK_URL = 'http://127.0.0.1:9/e2e-registered-by-node';

function buildWorkflows() {
	return [
		workflow(WF.submit, 'e2e: Submit then Get Status', [
			manual(),
			...fileNodes([FILES.a]),
			docex('Submit', {
				resource: 'document',
				operation: 'submit',
				binaryPropertyName: 'data',
				project: project('Invoices'),
				documentType: 'invoice',
				options: {},
			}),
			docex('Get Status', {
				resource: 'document',
				operation: 'getStatus',
				taskId: '={{ $json.task_id }}',
				output: 'full',
				options: {},
			}),
		]),
		workflow(WF.status, 'e2e: Get Status of a finished task', [
			manual(),
			node('Task', 'n8n-nodes-base.set', 3.4, {
				mode: 'manual',
				assignments: {
					assignments: [{ id: 't1', name: 'taskId', value: state.statusTaskId, type: 'string' }],
				},
				options: {},
			}),
			docex('Get Status (full)', {
				resource: 'document',
				operation: 'getStatus',
				taskId: '={{ $json.taskId }}',
				output: 'full',
				options: {},
			}),
			docex('Get Status (result)', {
				resource: 'document',
				operation: 'getStatus',
				taskId: "={{ $('Task').item.json.taskId }}",
				output: 'result',
				options: {},
			}),
		]),
		workflow(WF.saw, 'e2e: Submit and Wait', [
			manual(),
			...fileNodes([FILES.a]),
			submitAndWait('Submit and Wait'),
		]),
		workflow(WF.batch, 'e2e: Submit and Wait, three items, one failing', [
			manual(),
			...fileNodes([FILES.a, FILES.b, FILES.c]),
			submitAndWait('Submit and Wait', {}, { continueOnFail: true }),
		]),
		workflow(WF.failed, 'e2e: failed task fails the item', [
			manual(),
			...fileNodes([FILES.b]),
			submitAndWait('Submit and Wait'),
		]),
		workflow(WF.failedAsItem, 'e2e: failed task as item', [
			manual(),
			...fileNodes([FILES.b]),
			submitAndWait('Submit and Wait', { outputFailedAsItems: true }),
		]),
		workflow(WF.list, 'e2e: List Projects', [
			manual(),
			docex('List Projects', { resource: 'project', operation: 'list' }),
		]),
		workflow(WF.register, 'e2e: Register Webhook', [
			manual(),
			docex('Register Webhook', {
				resource: 'project',
				operation: 'registerWebhook',
				project: project('Identity'),
				webhookUrl: REGISTERED_HOOK_URL,
				events: ['task.completed'],
				secret: '',
			}),
		]),
		workflow(WF.inactive, 'e2e: inactive key', [
			manual(),
			...fileNodes([FILES.a]),
			submitAndWait('Submit and Wait', {}, { credentials: CRED_INACTIVE }),
		]),
		workflow(WF.unknown, 'e2e: unknown project', [
			manual(),
			...fileNodes([FILES.a]),
			submitAndWait('Submit and Wait', {}, { project: UNKNOWN_PROJECT_ID }),
		]),
	];
}

// ---------------------------------------------------------------- n8n server (trigger cases)

async function startN8n() {
	const env = await n8nEnv();
	const logFile = path.join(state.tmp, `n8n-${++state.n8nLogIndex}.log`);
	state.n8n = startProcess(NODE24, [N8N_BIN, 'start'], env, logFile);
	try {
		await waitReady(
			`http://127.0.0.1:${state.n8nPort}/healthz/readiness`,
			120000,
			() => state.n8n.alive,
		);
	} catch (error) {
		throw new Error(`${error.message}\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
	}
	state.cookie = undefined;
}

async function stopN8n() {
	await stopProcess(state.n8n);
	state.n8n = undefined;
}

const n8nUrl = (p) => `http://127.0.0.1:${state.n8nPort}${p}`;

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

/** Waits until `count` executions of the workflow finished, then makes sure no more arrive. */
async function waitExecutions(workflowId, count, { timeoutMs = 30000, settleMs = 2500 } = {}) {
	const deadline = Date.now() + timeoutMs;
	let list = [];
	while (Date.now() < deadline) {
		list = await executionsOf(workflowId);
		const finished = list.filter((e) => !['new', 'running', 'waiting'].includes(e.status));
		if (finished.length >= count) break;
		await sleep(500);
	}
	await sleep(settleMs);
	list = await executionsOf(workflowId);
	return list;
}

async function triggerRegistrations() {
	const { webhooks } = await emuJson('GET', '/_emulator/webhooks');
	return webhooks.filter((w) => w.url.startsWith(`http://127.0.0.1:${state.n8nPort}/`));
}

async function waitDelivered(taskId, timeoutMs = 30000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const { deliveries, attempts } = await emuJson(
			'GET',
			`/_emulator/deliveries?task_id=${taskId}`,
		);
		if (deliveries.length && deliveries.every((d) => d.state !== 'pending'))
			return { deliveries, attempts };
		if (Date.now() > deadline)
			throw new Error(`delivery of ${taskId} still pending: ${JSON.stringify(deliveries)}`);
		await sleep(300);
	}
}

/** Submits a file, waits for its signed delivery and the single run it causes. */
async function deliverRealTask(file, expectedRuns) {
	const taskId = await submitDirect(file);
	const task = await waitTask(taskId);
	assert.equal(task.status, 'complete');
	const { deliveries, attempts } = await waitDelivered(taskId);
	assert.equal(
		deliveries.length,
		1,
		`expected one delivery of ${taskId}, got ${deliveries.length}`,
	);
	assert.equal(deliveries[0].state, 'delivered', `delivery ${JSON.stringify(deliveries[0])}`);
	assert.equal(attempts[0].status_code, 200, `first attempt answered ${attempts[0].status_code}`);
	const executions = await waitExecutions(EXAMPLE_TRIGGER_ID, expectedRuns);
	return { taskId, task, executions };
}

async function checkTriggerRun(executionId, file, task) {
	const execution = await executionData(executionId);
	assert.equal(execution.status, 'success', `execution ${executionId} is ${execution.status}`);
	const runData = execution.data[0]?.resultData?.runData ?? execution.data.resultData?.runData;
	const triggerJson = runData[TRIGGER_NODE][0].data.main[0][0].json;
	assert.equal(triggerJson.event, 'task.completed');
	assert.equal(triggerJson.task_id, task.task_id);
	assert.equal(triggerJson.status, 'complete');
	assert.equal(triggerJson.project_id, INVOICES_ID);
	assert.equal(triggerJson.result.file_sha256, sha256(file.bytes));
	const crm = runData[CRM_NODE][0].data.main[0][0].json;
	assert.deepEqual(crm, {
		vendor: task.result.vendor_name,
		invoice_number: task.result.invoice_number,
		total: task.result.total_amount,
		currency: task.result.currency,
		task_id: task.task_id,
	});
	return crm;
}

// ---------------------------------------------------------------- setup

async function setup() {
	assert.ok(N8N_BIN && fs.existsSync(N8N_BIN), 'N8N_BIN is not set; run test/e2e/run.sh');
	assert.ok(N8N_DIR, 'N8N_DIR is not set; run test/e2e/run.sh');
	assert.ok(
		fs.existsSync(path.join(ROOT, 'dist/nodes/DocumentExtraction/DocumentExtraction.node.js')),
		'dist/ missing: npm run build',
	);
	state.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-e2e-'));
	state.userFolder = path.join(state.tmp, 'home');
	const nodesDir = path.join(state.userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	console.log(`# work folder ${state.tmp}`);

	// the package, packed and installed as Settings > Community Nodes installs it
	const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', state.tmp], {
		cwd: ROOT,
		encoding: 'utf8',
	})
		.trim()
		.split('\n')
		.pop();
	const installed = installPackage(path.join(state.tmp, tarball), nodesDir);
	console.log(`# installed ${installed.name}@${installed.version} from ${tarball}`);

	// emulator on a free port
	const emulatorPort = await freePort();
	state.emulatorUrl = `http://127.0.0.1:${emulatorPort}`;
	state.emulator = startProcess(
		process.execPath,
		[path.join(ROOT, 'emulator/server.js')],
		{
			...process.env,
			EMULATOR_PORT: String(emulatorPort),
			EMULATOR_PROCESSING_MS: String(PROCESSING_MS),
		},
		path.join(state.tmp, 'emulator.log'),
	);
	await waitReady(`${state.emulatorUrl}/_emulator/health`, 30000, () => state.emulator.alive);
	state.n8nPort = await freePort();

	// a finished task for Get Status
	state.statusTaskId = await submitDirect(FILES.s);
	await waitTask(state.statusTaskId);

	// credentials with fixed ids, workflows, the two examples
	const credFile = path.join(state.tmp, 'credentials.json');
	writeCredential(credFile, {
		id: CRED.documentExtractionApi.id,
		name: CRED.documentExtractionApi.name,
		apiKey: GOOD_KEY,
		baseUrl: state.emulatorUrl,
	});
	const creds = JSON.parse(fs.readFileSync(credFile, 'utf8'));
	creds.push({
		id: CRED_INACTIVE.documentExtractionApi.id,
		name: CRED_INACTIVE.documentExtractionApi.name,
		type: 'documentExtractionApi',
		data: { apiKey: INACTIVE_KEY, baseUrl: state.emulatorUrl },
	});
	fs.writeFileSync(credFile, JSON.stringify(creds, null, 2));
	await n8nCliOk(['import:credentials', `--input=${credFile}`]);

	const workflowsDir = path.join(state.tmp, 'workflows');
	fs.mkdirSync(workflowsDir);
	for (const wf of buildWorkflows())
		fs.writeFileSync(path.join(workflowsDir, `${wf.id}.json`), JSON.stringify(wf, null, 2));
	for (const example of ['submit-and-wait.json', 'trigger-to-crm.json']) {
		fs.copyFileSync(path.join(ROOT, 'examples', example), path.join(workflowsDir, example));
	}
	await n8nCliOk(['import:workflow', '--separate', `--input=${workflowsDir}`]);
}

async function teardown() {
	await stopN8n().catch(() => {});
	await stopProcess(state.emulator).catch(() => {});
	if (state.tmp && !KEEP) fs.rmSync(state.tmp, { recursive: true, force: true });
	else if (state.tmp) console.log(`# kept ${state.tmp}`);
}

// ---------------------------------------------------------------- cases: operations

test('Submit returns a task id; Get Status follows it', async () => {
	const res = await execute(WF.submit);
	expectSuccess(res);
	const [submitted] = nodeItems(res.run, 'Submit');
	assert.match(submitted.json.task_id, UUID_RE);
	assert.equal(pairedIndex(submitted), 0);
	const [status] = nodeItems(res.run, 'Get Status');
	assert.equal(status.json.task_id, submitted.json.task_id);
	assert.ok(
		typeof status.json.status === 'string' && status.json.status !== 'failed',
		`status ${status.json.status}`,
	);
	const task = await waitTask(submitted.json.task_id);
	assert.equal(task.result.file_sha256, sha256(FILES.a.bytes), 'the service received other bytes');
	return `task ${submitted.json.task_id}, first status "${status.json.status}"`;
});

test('Get Status of a finished task (output full and result)', async () => {
	const res = await execute(WF.status);
	expectSuccess(res);
	const [full] = nodeItems(res.run, 'Get Status (full)');
	assert.equal(full.json.task_id, state.statusTaskId);
	assert.equal(full.json.status, 'complete');
	assert.equal(full.json.result.file_sha256, sha256(FILES.s.bytes));
	const [flat] = nodeItems(res.run, 'Get Status (result)');
	assert.equal(flat.json.result, undefined, 'output "result" should be the extracted fields, flat');
	assert.equal(flat.json.file_sha256, sha256(FILES.s.bytes));
	assert.equal(flat.json.invoice_number, full.json.result.invoice_number);
	return `invoice_number ${flat.json.invoice_number}`;
});

test('Submit and Wait (output full): complete, SHA-256 round trip, input binary kept', async () => {
	const res = await execute(WF.saw);
	expectSuccess(res);
	const items = nodeItems(res.run, 'Submit and Wait');
	assert.equal(items.length, 1);
	const { json, binary } = items[0];
	assert.match(json.task_id, UUID_RE);
	assert.equal(json.status, 'complete');
	assert.equal(json.result.file_size, FILES.a.bytes.length);
	assert.equal(json.result.file_sha256, sha256(FILES.a.bytes));
	assert.ok(binary?.data, 'input binary not passed through');
	assert.equal(binary.data.fileName, FILES.a.name);
	return `task ${json.task_id}`;
});

test('List Projects', async () => {
	const res = await execute(WF.list);
	expectSuccess(res);
	const items = nodeItems(res.run, 'List Projects').map((i) => i.json);
	const text = JSON.stringify(items);
	for (const needle of [INVOICES_ID, IDENTITY_ID, 'Invoices', 'Identity'])
		assert.ok(text.includes(needle), `${needle} missing in ${text}`);
	assert.equal(items.length, 2, `expected one item per project, got ${items.length}`);
	return `${items.length} projects`;
});

test('Register Webhook (generated whsec_ secret, registered at the service)', async () => {
	const res = await execute(WF.register);
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Register Webhook');
	assert.match(String(item.json.secret), /^whsec_[0-9a-f]{64}$/);
	const { webhooks } = await emuJson('GET', '/_emulator/webhooks');
	const hooks = webhooks.filter((w) => w.url === REGISTERED_HOOK_URL);
	assert.equal(
		hooks.length,
		1,
		`registrations for ${REGISTERED_HOOK_URL}: ${JSON.stringify(webhooks)}`,
	);
	assert.equal(hooks[0].project_id, IDENTITY_ID);
	assert.deepEqual(hooks[0].events, ['task.completed']);
	return `webhook ${hooks[0].webhook_id}`;
});

test('Example workflow submit-and-wait.json runs', async () => {
	const res = await execute(EXAMPLE_SUBMIT_ID);
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.match(String(item.json.invoice_number), /^INV-/);
	assert.match(String(item.json.file_sha256), /^[0-9a-f]{64}$/);
	return `${item.json.vendor_name}, ${item.json.invoice_number}`;
});

// ---------------------------------------------------------------- cases: items, failures, errors

test('Submit and Wait on three items, one failing (continueOnFail): round trip, error item, order, pairing', async () => {
	const res = await execute(WF.batch);
	expectSuccess(res);
	const items = nodeItems(res.run, 'Submit and Wait');
	assert.equal(items.length, 3, `expected 3 output items, got ${items.length}`);
	items.forEach((item, i) =>
		assert.equal(pairedIndex(item), i, `item ${i} is paired with input ${pairedIndex(item)}`),
	);
	const [a, b, c] = items;
	for (const [item, file] of [
		[a, FILES.a],
		[c, FILES.c],
	]) {
		assert.equal(item.json.status, 'complete');
		assert.equal(item.json.result.file_sha256, sha256(file.bytes), `${file.name}: SHA-256 differs`);
		assert.equal(item.json.result.file_size, file.bytes.length);
		assert.equal(
			item.binary?.data?.fileName,
			file.name,
			`${file.name}: wrong input binary on its output item`,
		);
	}
	assert.match(String(b.json.error), /EMULATOR_FAIL/, `error item: ${JSON.stringify(b.json)}`);
	assert.match(String(b.json.task_id), UUID_RE, 'the error item names its task');
	const failedTask = await emulatorTask(b.json.task_id);
	assert.equal(failedTask.status, 'failed');
	assert.equal(
		failedTask.file_sha256,
		sha256(FILES.b.bytes),
		'failed file: the service received other bytes',
	);
	return `error item: "${b.json.error}"`;
});

test('Failed task: fails the run with the service error; as an item with outputFailedAsItems', async () => {
	const failed = await execute(WF.failed);
	assert.notEqual(failed.run.status, 'success', 'a failed task must fail the run');
	assert.notEqual(failed.code, 0, 'n8n execute should exit non-zero for a failed run');
	assert.match(runError(failed.run), /Extraction failed: the document could not be read/);
	const asItem = await execute(WF.failedAsItem);
	expectSuccess(asItem);
	const [item] = nodeItems(asItem.run, 'Submit and Wait');
	assert.equal(item.json.status, 'failed');
	assert.match(String(item.json.error), /EMULATOR_FAIL/);
	return `run error: "${failed.run.data.resultData.error.message}"`;
});

test('Inactive API key: the 402 message', async () => {
	const res = await execute(WF.inactive);
	assert.notEqual(res.run.status, 'success');
	assert.notEqual(res.code, 0);
	const text = runError(res.run);
	assert.match(text, /Subscription inactive/, text);
	return res.run.data.resultData.error.message;
});

test('Unknown project: the 404 message', async () => {
	const res = await execute(WF.unknown);
	assert.notEqual(res.run.status, 'success');
	assert.notEqual(res.code, 0);
	const text = runError(res.run);
	assert.match(text, new RegExp(`Project '${UNKNOWN_PROJECT_ID}' not found`), text);
	return res.run.data.resultData.error.message;
});

async function faultRecovery(endpoint) {
	const before = (await emuJson('GET', '/_emulator/stats')).requests[endpoint];
	await emuJson('POST', '/_emulator/faults', { endpoint, count: 2, status: 500 });
	const res = await execute(WF.saw);
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.equal(item.json.status, 'complete');
	assert.equal(item.json.result.file_sha256, sha256(FILES.a.bytes));
	const { faults } = await emuJson('GET', '/_emulator/faults');
	assert.equal(
		faults.filter((f) => f.endpoint === endpoint && (f.count ?? f.remaining ?? 0) > 0).length,
		0,
		`faults left: ${JSON.stringify(faults)}`,
	);
	const after = (await emuJson('GET', '/_emulator/stats')).requests[endpoint];
	return { calls: after - before };
}

test('Fault recovery: process_file answers 500 twice, then the submission succeeds', async () => {
	const { calls } = await faultRecovery('process_file');
	assert.equal(calls, 3, `process_file called ${calls} times`);
	return `${calls} process_file calls`;
});

test('Fault recovery: task_status answers 500 twice, then the wait succeeds', async () => {
	const { calls } = await faultRecovery('task_status');
	assert.ok(calls >= 3, `task_status called ${calls} times`);
	return `${calls} task_status calls`;
});

// ---------------------------------------------------------------- cases: binary data modes

for (const mode of ['filesystem', 'default', 'database']) {
	test(`Binary data mode N8N_DEFAULT_BINARY_DATA_MODE=${mode}: Submit and Wait byte-exact`, async () => {
		const res = await execute(WF.saw, { N8N_DEFAULT_BINARY_DATA_MODE: mode });
		expectSuccess(res);
		const toFile = nodeItems(res.run, 'To File')[0].binary.data;
		const [item] = nodeItems(res.run, 'Submit and Wait');
		assert.equal(item.json.status, 'complete');
		assert.equal(item.json.result.file_sha256, sha256(FILES.a.bytes));
		assert.equal(item.json.result.file_size, FILES.a.bytes.length);
		const out = item.binary?.data;
		assert.ok(out, 'input binary not passed through');
		const storedAs = out.id ? out.id.split(':')[0] : 'inline';
		if (mode === 'filesystem') assert.match(storedAs, /^filesystem/);
		if (mode === 'database') assert.match(storedAs, /^database/);
		if (mode === 'default') assert.equal(storedAs, 'inline');
		assert.equal(out.id, toFile.id, 'the output binary should be the input binary');
		const bytes = binaryBytes(out);
		if (bytes) assert.equal(sha256(bytes), sha256(FILES.a.bytes), 'binary kept by n8n differs');
		return `stored as ${storedAs}`;
	});
}

// ---------------------------------------------------------------- cases: trigger (published, n8n server)

async function waitFor(what, fn, timeoutMs = 60000, intervalMs = 500) {
	const deadline = Date.now() + timeoutMs;
	let last;
	for (;;) {
		last = await fn();
		if (last) return last;
		if (Date.now() > deadline)
			throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await sleep(intervalMs);
	}
}

/** A badly signed probe: n8n answers 404 until it serves the trigger's webhook (then 401). Starts nothing. */
async function probeWebhook(url) {
	const res = await emuJson('POST', '/_emulator/deliver', {
		url,
		body: '{"probe":true}',
		signature: '0'.repeat(64),
	});
	return res.status_code;
}

async function waitWebhookLive(url) {
	await waitFor(`${url} to be served`, async () => {
		const code = await probeWebhook(url);
		return code !== null && code !== 404;
	});
}

/**
 * n8n 2.41 publishes through an outbox that a background consumer works off (and activates
 * published workflows at startup through a reconciler), so publishing is asynchronous.
 */
async function waitPublished(workflowId, versionId) {
	return await waitFor(`workflow ${workflowId} to be published`, async () => {
		const s = await rest('GET', `/workflows/${workflowId}/publication-status`);
		const done =
			s.status === 'published' &&
			!s.pendingVersionId &&
			(!versionId || s.liveVersionId === versionId);
		return done ? s : undefined;
	});
}

async function projectLookups() {
	return (await emuJson('GET', '/_emulator/stats')).requests.projects;
}

test('Trigger: publishing registers one webhook with the production URL', async () => {
	await n8nCliOk(['publish:workflow', `--id=${EXAMPLE_TRIGGER_ID}`]);
	await startN8n();
	const hooks = await waitFor('the trigger to register its webhook', async () => {
		const found = await triggerRegistrations();
		return found.length ? found : undefined;
	});
	await waitWebhookLive(hooks[0].url);
	await waitPublished(EXAMPLE_TRIGGER_ID);
	const after = await triggerRegistrations();
	assert.equal(after.length, 1, `registrations: ${JSON.stringify(after)}`);
	assert.equal(after[0].project_id, INVOICES_ID);
	assert.deepEqual(after[0].events, ['task.completed']);
	assert.match(after[0].url, new RegExp(`^http://127\\.0\\.0\\.1:${state.n8nPort}/webhook/`));
	state.triggerUrl = after[0].url;
	return after[0].url;
});

test('Trigger: a real signed delivery runs the workflow exactly once with the right fields', async () => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const { task, executions } = await deliverRealTask(FILES.t, 1);
	assert.equal(executions.length, 1, `expected 1 execution, got ${executions.length}`);
	const crm = await checkTriggerRun(executions[0].id, FILES.t, task);
	return `CRM record ${JSON.stringify(crm)}`;
});

test('Trigger: a failed task is acknowledged but filtered out (Status: Complete Only)', async () => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const before = (await executionsOf(EXAMPLE_TRIGGER_ID)).length;
	const taskId = await submitDirect(FILES.b);
	const task = await waitTask(taskId);
	assert.equal(task.status, 'failed');
	const { deliveries, attempts } = await waitDelivered(taskId);
	assert.equal(deliveries[0].state, 'delivered', `delivery ${JSON.stringify(deliveries[0])}`);
	assert.equal(attempts.length, 1, `${attempts.length} attempts`);
	assert.equal(attempts[0].status_code, 200);
	await sleep(2500);
	const after = (await executionsOf(EXAMPLE_TRIGGER_ID)).length;
	assert.equal(after, before, `${after - before} executions for a filtered-out failed task`);
	return `task ${taskId}: 200, no run`;
});

test('Trigger: wrong, missing and tampered signatures get 401 and start nothing', async () => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const before = (await executionsOf(EXAMPLE_TRIGGER_ID)).length;
	const body = JSON.stringify({
		event: 'task.completed',
		task_id: crypto.randomUUID(),
		status: 'complete',
		result: {
			invoice_number: 'INV-FORGED',
			vendor_name: 'Mallory Ltd',
			total_amount: 1,
			currency: 'EUR',
		},
		project_id: INVOICES_ID,
		document_type: 'invoice',
		timestamp: new Date().toISOString(),
	});
	const workflowData = await rest('GET', `/workflows/${EXAMPLE_TRIGGER_ID}`);
	const secret = workflowData.staticData?.[`node:${TRIGGER_NODE}`]?.registration?.secret;
	assert.match(String(secret), /^whsec_/, 'registration secret not found in the static data');
	const goodSignature = crypto.createHmac('sha256', secret).update(body).digest('hex');
	const tampered = body.replace('"total_amount":1', '"total_amount":1000000');
	assert.notEqual(tampered, body);
	const attempts = {
		wrong: {
			url: state.triggerUrl,
			body,
			signature: crypto.createHmac('sha256', 'whsec_wrong').update(body).digest('hex'),
		},
		missing: { url: state.triggerUrl, body, signature: null },
		tampered: { url: state.triggerUrl, body: tampered, signature: goodSignature },
		uppercase: { url: state.triggerUrl, body, signature: goodSignature.toUpperCase() },
		garbage: { url: state.triggerUrl, body, signature: 'not-a-signature' },
	};
	const codes = {};
	for (const [name, request] of Object.entries(attempts)) {
		const res = await emuJson('POST', '/_emulator/deliver', request);
		codes[name] = res.status_code;
	}
	await sleep(2000);
	const after = (await executionsOf(EXAMPLE_TRIGGER_ID)).length;
	assert.deepEqual(codes, {
		wrong: 401,
		missing: 401,
		tampered: 401,
		uppercase: 401,
		garbage: 401,
	});
	assert.equal(after, before, `${after - before} executions started by bad deliveries`);
	// control: the same body with the right signature is accepted and runs once
	const control = await emuJson('POST', '/_emulator/deliver', {
		url: state.triggerUrl,
		body,
		secret,
	});
	assert.equal(
		control.status_code,
		200,
		`correctly signed delivery answered ${control.status_code}`,
	);
	const list = await waitExecutions(EXAMPLE_TRIGGER_ID, before + 1);
	assert.equal(list.length, before + 1, 'the correctly signed delivery should run once');
	return `401 for ${Object.keys(codes).join(', ')}; control 200 and one run`;
});

test('Trigger: restart and publishing again register no second webhook; deliveries still run once', async () => {
	assert.ok(state.triggerUrl, 'trigger not published');
	const counts = {};
	const lookups = {};
	const step = async (name, fn) => {
		const before = await projectLookups();
		await fn();
		await waitWebhookLive(state.triggerUrl);
		const hooks = await triggerRegistrations();
		counts[name] = hooks.length;
		lookups[name] = (await projectLookups()) - before;
		assert.equal(
			hooks.length,
			1,
			`after "${name}": ${hooks.length} registrations ${JSON.stringify(hooks)}`,
		);
		assert.equal(hooks[0].url, state.triggerUrl, `after "${name}": the webhook URL changed`);
	};
	// after a start, give the startup reconciliation a moment to enqueue anything it finds
	const settleAfterStart = async () => {
		await waitPublished(EXAMPLE_TRIGGER_ID);
		await sleep(3000);
		await waitPublished(EXAMPLE_TRIGGER_ID);
	};
	await step('restart', async () => {
		await stopN8n();
		await startN8n();
		await settleAfterStart();
	});
	await step('publish:workflow again, restart', async () => {
		await stopN8n();
		await n8nCliOk(['publish:workflow', `--id=${EXAMPLE_TRIGGER_ID}`]);
		await startN8n();
		await settleAfterStart();
	});
	await step('edit the trigger, publish', async () => {
		// a changed trigger is deactivated (the node's delete) and activated again (checkExists, create)
		const wf = await rest('GET', `/workflows/${EXAMPLE_TRIGGER_ID}`);
		const nodes = wf.nodes.map((n) =>
			n.name === TRIGGER_NODE
				? {
						...n,
						parameters: {
							...n.parameters,
							options: { ...n.parameters.options, fetchErrorDetails: true },
						},
					}
				: n,
		);
		const updated = await rest('PATCH', `/workflows/${EXAMPLE_TRIGGER_ID}`, {
			nodes,
			connections: wf.connections,
		});
		assert.notEqual(
			updated.versionId,
			wf.activeVersionId ?? wf.versionId,
			'editing made no new version',
		);
		await rest('POST', `/workflows/${EXAMPLE_TRIGGER_ID}/activate`, {
			versionId: updated.versionId,
		});
		await waitPublished(EXAMPLE_TRIGGER_ID, updated.versionId);
		state.triggerVersionId = updated.versionId;
	});
	await step('unpublish, publish', async () => {
		await rest('POST', `/workflows/${EXAMPLE_TRIGGER_ID}/deactivate`, {});
		await waitFor(
			'the webhook to be unpublished',
			async () => (await probeWebhook(state.triggerUrl)) === 404,
		);
		await rest('POST', `/workflows/${EXAMPLE_TRIGGER_ID}/activate`, {
			versionId: state.triggerVersionId,
		});
		await waitPublished(EXAMPLE_TRIGGER_ID, state.triggerVersionId);
	});
	// the one registration still delivers, and each delivery runs once
	const before = (await executionsOf(EXAMPLE_TRIGGER_ID)).length;
	const { task, executions } = await deliverRealTask(FILES.r, before + 1);
	assert.equal(
		executions.length,
		before + 1,
		`expected ${before + 1} executions, got ${executions.length}`,
	);
	const newest = executions.reduce((a, b) => (Number(a.id) > Number(b.id) ? a : b));
	await checkTriggerRun(newest.id, FILES.r, task);
	return `registrations ${JSON.stringify(counts)}; GET /projects calls ${JSON.stringify(lookups)}`;
});

test("Credential test in n8n's editor: a good key passes, a key without vnd_ is refused with no request sent", async () => {
	if (!state.n8n) await startN8n();
	const check = async (apiKey) =>
		await rest('POST', '/credentials/test', {
			credentials: {
				id: CRED.documentExtractionApi.id,
				name: 'credential test',
				type: 'documentExtractionApi',
				// a trailing slash on the base URL is tolerated
				data: { apiKey, baseUrl: `${state.emulatorUrl}/` },
			},
		});
	const good = await check('vnd_test_key');
	assert.equal(good.status, 'OK', JSON.stringify(good));
	const before = (await emuJson('GET', '/_emulator/stats')).requests.projects;
	const bad = await check('sk_live_0123456789');
	const after = (await emuJson('GET', '/_emulator/stats')).requests.projects;
	assert.equal(bad.status, 'Error');
	assert.match(bad.message, /keys look like vnd_.*web dashboard/s);
	assert.ok(!bad.message.includes('sk_live_0123456789'), 'the key is echoed');
	assert.equal(after, before, 'a request was sent with the malformed key');
	const unknown = await check('vnd_not_a_real_key');
	assert.equal(unknown.status, 'Error');
	return `good: ${good.message}; malformed: refused before sending; unknown: ${unknown.message}`;
});

// ---------------------------------------------------------------- main

async function main() {
	const started = Date.now();
	const watchdog = setTimeout(() => {
		console.log(`FAIL  suite timed out after ${SUITE_TIMEOUT_MS / 60000} min`);
		killAllSync();
		process.exit(2);
	}, SUITE_TIMEOUT_MS);
	for (const signal of ['SIGINT', 'SIGTERM']) {
		process.on(signal, () => {
			killAllSync();
			process.exit(130);
		});
	}

	let passed = 0;
	let failed = 0;
	const selected = cases.filter((c) => !ONLY || ONLY.test(c.name));
	try {
		await setup();
	} catch (error) {
		console.log(`FAIL  setup: ${error.stack || error.message}`);
		failed = selected.length;
		await teardown();
		console.log(`0 passed, ${failed} failed`);
		process.exit(1);
	}
	for (const c of selected) {
		const t0 = Date.now();
		try {
			const note = await c.fn();
			passed++;
			console.log(
				`PASS  ${c.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${note ? ` — ${note}` : ''}`,
			);
		} catch (error) {
			failed++;
			const message = (error && (error.message || String(error))) || 'unknown error';
			console.log(
				`FAIL  ${c.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n      ${message.split('\n').join('\n      ')}`,
			);
		}
	}
	await teardown();
	clearTimeout(watchdog);
	console.log(`# duration ${((Date.now() - started) / 1000).toFixed(0)} s`);
	console.log(`${passed} passed, ${failed} failed`);
	process.exit(failed ? 1 : 0);
}

main().catch((error) => {
	console.log(`FAIL  suite crashed: ${error.stack || error.message}`);
	killAllSync();
	console.log('0 passed, 1 failed');
	process.exit(1);
});
