'use strict';

/**
 * Queue suite setup and teardown, shared by every case file (each calls useQueueSuite(); setup
 * runs once per process, teardown once at its end): the emulator on a free port, the queue-mode
 * stack of lib/stack.js (PostgreSQL, Redis, main, two workers, one webhook process), the packed
 * package, the credential and the workflows of lib/workflows.js, published before main starts.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { before, after } = require('node:test');

const { waitReady } = require('../../scripts/n8n-local.js');
const { CRED, GOOD_KEY, intakeKeyCredential } = require('../fixtures.js');
const { ROOT, N8N_BIN, freePort, startProcess, stopProcess } = require('../n8n.js');
const { packPackage } = require('../pack.js');
const state = require('../state.js');
const { QueueStack } = require('./stack.js');
const { buildQueueWorkflows, PUBLISHED } = require('./workflows.js');

const PROCESSING_MS = Number(process.env.QUEUE_PROCESSING_MS || 4000);
const KEEP = process.env.QUEUE_KEEP === '1';

/** What the cases share: the stack, and facts found by earlier cases. */
const queue = { stack: undefined, processingMs: PROCESSING_MS };

/** The emulator, logging to a folder of its own (the work folder does not exist yet). */
async function startEmulatorInTmp() {
	const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-queue-emulator-'));
	queue.emulatorLogDir = logDir;
	const port = await freePort();
	state.emulatorUrl = `http://127.0.0.1:${port}`;
	state.emulator = startProcess(
		process.execPath,
		[path.join(ROOT, 'emulator/server.js')],
		{ ...process.env, EMULATOR_PORT: String(port), EMULATOR_PROCESSING_MS: String(PROCESSING_MS) },
		path.join(logDir, 'emulator.log'),
	);
	await waitReady(`${state.emulatorUrl}/_emulator/health`, 30000, () => state.emulator.alive);
}

async function importData(stack, workflows) {
	const credFile = path.join(state.tmp, 'credentials.json');
	const c = CRED.documentExtractionApi;
	fs.writeFileSync(
		credFile,
		JSON.stringify([
			{
				id: c.id,
				name: c.name,
				type: 'documentExtractionApi',
				data: { apiKey: GOOD_KEY, baseUrl: state.emulatorUrl },
			},
			intakeKeyCredential(),
		]),
	);
	await stack.cli(['import:credentials', `--input=${credFile}`]);
	const dir = path.join(state.tmp, 'workflows');
	fs.mkdirSync(dir);
	for (const wf of workflows)
		fs.writeFileSync(path.join(dir, `${wf.id}.json`), JSON.stringify(wf, null, 2));
	fs.copyFileSync(
		path.join(ROOT, 'examples', 'trigger-to-crm.json'),
		path.join(dir, 'trigger-to-crm.json'),
	);
	await stack.cli(['import:workflow', '--separate', `--input=${dir}`]);
	for (const id of PUBLISHED) await stack.cli(['publish:workflow', `--id=${id}`]);
}

/**
 * A work folder, the packed package, PostgreSQL and Redis, the credential (pointing at
 * state.emulatorUrl) and `workflows` imported, PUBLISHED published; n8n not started yet.
 * `created(stack)` is called as soon as the stack exists, so that the caller can stop it on failure.
 */
async function prepareStack({
	workflows = buildQueueWorkflows(),
	prefix = 'docex-queue-',
	created = () => {},
} = {}) {
	assert.ok(N8N_BIN && fs.existsSync(N8N_BIN), 'N8N_BIN is not set; run test/queue/run.sh');
	assert.ok(
		fs.existsSync(path.join(ROOT, 'dist/nodes/DocumentExtraction/DocumentExtraction.node.js')),
		'dist/ missing: npm run build',
	);
	state.tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	state.userFolder = path.join(state.tmp, 'main');
	const stack = new QueueStack({ dir: state.tmp });
	created(stack); // the caller can stop it even if a later step fails
	stack.installPackage(packPackage(state.tmp));
	stack.startServices();
	await stack.allocatePorts();
	await importData(stack, workflows);
	return stack;
}

async function setup() {
	assert.ok(N8N_BIN && fs.existsSync(N8N_BIN), 'N8N_BIN is not set; run test/queue/run.sh');
	await startEmulatorInTmp();
	const stack = await prepareStack({ created: (s) => (queue.stack = s) });
	console.log(`# work folder ${state.tmp}`);
	const started = Date.now();
	await stack.startN8nProcesses();
	console.log(
		`# queue stack ready in ${((Date.now() - started) / 1000).toFixed(0)} s (main :${stack.ports.main}, webhook :${stack.ports.webhook})`,
	);
}

/** Stops the n8n processes, PostgreSQL, Redis and the emulator; checks that none is left. Never throws. */
async function teardown() {
	if (queue.stack) await queue.stack.stop();
	await stopProcess(state.emulator).catch(() => {});
	const left = queue.stack ? queue.stack.leftovers() : [];
	if (state.emulator?.alive) left.push(`emulator ${state.emulator.pid}`);
	queue.leftovers = left;
	if (left.length) console.log(`# left running after teardown: ${left.join(', ')}`);
	if (queue.emulatorLogDir && !KEEP)
		fs.rmSync(queue.emulatorLogDir, { recursive: true, force: true });
	if (state.tmp && !KEEP && !left.length) fs.rmSync(state.tmp, { recursive: true, force: true });
	else if (state.tmp) console.log(`# kept ${state.tmp}`);
	return left;
}

/** Synchronous last resort (process exit, signals): kills everything started. */
function killSync() {
	if (queue.stack) {
		queue.stack.killSync();
		queue.stack.stopServicesSync();
	}
}

let settingUp;
let tearingDown;

function useQueueSuite() {
	before(() => (settingUp ??= setup()));
	after(() => (tearingDown ??= teardown()));
}

module.exports = {
	useQueueSuite,
	queue,
	prepareStack,
	teardown: () => (tearingDown ??= teardown()),
	killSync,
};
