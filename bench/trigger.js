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
 * The CPU time of the n8n process (/proc/<pid>/stat) is read around every burst.
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
 *   BENCH_P4_N8N_ENV       more environment for the n8n processes, "NAME=value,NAME=value"
 *                          (for experiments, e.g. N8N_EXPRESSION_ENGINE=legacy)
 *   BENCH_P4_LAZY=0        no second regular-mode run with n8n's lazy isolate setting
 *                          (N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true)
 *   BENCH_P4_TRIGGER_VERSION  the trigger's typeVersion in the workflow (1.1; 1 to compare)
 *   BENCH_P4_KEEP=1        keep the work folder (n8n logs)
 *   BENCH_P4_REF=<commit>  measure the package as built from that commit (default: the checkout's dist/)
 *
 * Needs NODE24, N8N_BIN and N8N_DIR (scripts/ensure-runtime.sh) in the environment before it is
 * required.
 */

const fs = require('node:fs');
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
	waitFor,
	waitPublished,
} = require('../harness/n8n.js');
const { CRED, GOOD_KEY, INVOICES_ID } = require('../harness/fixtures.js');
const { node, workflow, project } = require('../harness/workflows.js');
const { packPackage } = require('../harness/pack.js');
const state = require('../harness/state.js');
const { webhook: webhookNode } = require('../harness/queue/workflows.js');
const {
	LAZY_ENV,
	NODE24,
	TRIGGER_TYPE,
	WF,
	WEBHOOK_PATH,
	TRIGGER_WEBHOOK_ID,
	settings,
	warmUp,
	rounds,
} = require('./trigger-load.js');
const { section, summaryRows } = require('./trigger-report.js');

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


// --------------------------------------------------------------- regular mode

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
	try {
		const nodesDir = path.join(state.userFolder, '.n8n', 'nodes');
		fs.mkdirSync(nodesDir, { recursive: true });
		installPackage(opts.tarball, nodesDir);
		state.n8nPort = await freePort();
		await importInto((args) => n8nCliOk(args), p4Workflows(), emu.url);
		for (const id of [WF.trigger, WF.webhook]) await n8nCliOk(['publish:workflow', `--id=${id}`]);

		const env = await n8nEnv(opts.extraEnv);
		const args = [N8N_BIN, 'start'];
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
		return await rounds({ targets, count: opts.rounds, opts, pid: state.n8n.pid, log });
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

module.exports = { measureTrigger, summaryRows, section, p4Workflows, WF };
