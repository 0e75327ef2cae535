'use strict';

/**
 * The setup every case file shares (useSuite: once per process): a work folder with an n8n user
 * folder, the packed package installed in it as a community package, the emulator on a free port,
 * the credentials and workflows imported. Cases start the n8n server when they need it.
 */

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { before, after } = require('node:test');

const { installPackage, waitReady } = require('../../../scripts/n8n-local.js');
const { localExample } = require('../../../scripts/local-examples.js');
const { ACTION, CRED, GOOD_KEY, intakeKeyCredential } = require('../../../harness/fixtures.js');
const {
	ROOT,
	N8N_BIN,
	N8N_DIR,
	N8N_VERSION,
	freePort,
	startProcess,
	stopProcess,
	stopN8n,
	n8nCliOk,
} = require('../../../harness/n8n.js');
const { packPackage } = require('../../../harness/pack.js');
const { buildWorkflows, node, project, workflow } = require('../../../harness/workflows.js');
const state = require('../../../harness/state.js');

const PROCESSING_MS = Number(process.env.E2E_PROCESSING_MS || 1500);
const KEEP = process.env.E2E_KEEP === '1';
/** A trigger alone, for the publication the service refuses (cases/trigger-refusal.test.js). */
const HTTPS_ONLY_TRIGGER = 'E2eHttpsOnlyTrg1';

async function startEmulator() {
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
}

/** The credentials with fixed ids, the workflows of the cases and the examples as `npm start` imports them. */
async function importCredentialsAndWorkflows() {
	const c = CRED.documentExtractionApi;
	const credentials = [
		{ ...c, type: 'documentExtractionApi', data: { apiKey: GOOD_KEY, baseUrl: state.emulatorUrl } },
		intakeKeyCredential(),
	];
	fs.writeFileSync(path.join(state.tmp, 'credentials.json'), JSON.stringify(credentials));
	await n8nCliOk(['import:credentials', `--input=${path.join(state.tmp, 'credentials.json')}`]);
	const dir = path.join(state.tmp, 'workflows');
	fs.mkdirSync(dir);
	const trigger = node(
		'Document Extraction Trigger',
		`${ACTION}Trigger`,
		1.1,
		{ project: project('Invoices'), options: {} },
		{ credentials: CRED, webhookId: crypto.randomUUID() },
	);
	const workflows = [
		...buildWorkflows({ emulatorUrl: state.emulatorUrl }),
		workflow(HTTPS_ONLY_TRIGGER, 'e2e: trigger published while the service wants https', [
			trigger,
			node('Done', 'n8n-nodes-base.noOp', 1, {}),
		]),
		...['submit-and-wait.json', 'trigger-to-crm.json', 'mcp-server.json'].map((example) => {
			const file = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', example), 'utf8'));
			return localExample(file, state.emulatorUrl);
		}),
	];
	for (const wf of workflows)
		fs.writeFileSync(path.join(dir, `${wf.id}.json`), JSON.stringify(wf, null, 2));
	await n8nCliOk(['import:workflow', '--separate', `--input=${dir}`]);
}

async function setup() {
	const started = Date.now();
	assert.ok(N8N_BIN && fs.existsSync(N8N_BIN), 'N8N_BIN is not set; run test/e2e/run.sh');
	assert.ok(N8N_DIR, 'N8N_DIR is not set; run test/e2e/run.sh');
	const built = path.join(ROOT, 'dist/nodes/DocumentExtraction/DocumentExtraction.node.js');
	assert.ok(fs.existsSync(built), 'dist/ missing: npm run build');
	state.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-e2e-'));
	state.userFolder = path.join(state.tmp, 'home');
	const nodesDir = path.join(state.userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	console.log(`# n8n ${N8N_VERSION}, work folder ${state.tmp}`);

	// the tarball installed as Settings > Community Nodes installs it
	state.tarball = packPackage(state.tmp);
	const installed = installPackage(state.tarball, nodesDir);
	console.log(`# installed ${installed.name}@${installed.version}`);
	await startEmulator();
	state.n8nPort = await freePort();
	await importCredentialsAndWorkflows();
	console.log(`# setup took ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Stops n8n and the emulator, removes the work folder (unless E2E_KEEP=1). Never throws. */
async function teardown() {
	await stopN8n().catch(() => {});
	await stopProcess(state.emulator).catch(() => {});
	if (state.tmp && !KEEP) fs.rmSync(state.tmp, { recursive: true, force: true });
	else if (state.tmp) console.log(`# kept ${state.tmp}`);
}

let settingUp;
let tearingDown;

/** The shared setup and teardown hooks, each run once however many files call this. */
function useSuite() {
	before(() => (settingUp ??= setup()));
	after(() => (tearingDown ??= teardown()));
}

module.exports = {
	HTTPS_ONLY_TRIGGER,
	useSuite,
	teardown: () => (tearingDown ??= teardown()),
};
