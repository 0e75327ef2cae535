'use strict';

/**
 * The queue-mode row of `npm run bench`: DOCUMENTS documents through Submit and Wait, spread over
 * EXECUTIONS executions started at once through a production webhook, in n8n's queue mode (main,
 * 2 workers, a webhook process, PostgreSQL, Redis: harness/queue/stack.js), then the same
 * executions against one n8n process in regular mode on the same database. Needs NODE24, N8N_BIN
 * and N8N_DIR (scripts/ensure-runtime.sh) in the environment before it is required.
 */

const { executionsOf, waitFor } = require('../harness/n8n.js');
const state = require('../harness/state.js');
const { prepareStack } = require('../harness/queue/setup.js');
const { QWF, PATHS, buildQueueWorkflows } = require('../harness/queue/workflows.js');

/** Starts `executions` runs at `baseUrl` at once; resolves when all finished, with the figures. */
async function measure({ stack, baseUrl, executions, admin, emu }) {
	await admin(emu, 'POST', 'reset');
	const known = new Set((await executionsOf(QWF.many)).map((e) => String(e.id)));
	const started = Date.now();
	const answers = await Promise.all(
		Array.from({ length: executions }, () =>
			fetch(`${baseUrl}/webhook/${PATHS.many}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{}',
			}),
		),
	);
	for (const a of answers) if (a.status !== 200) throw new Error(`webhook answered ${a.status}`);
	let fresh = [];
	await waitFor(
		() => `${executions} executions (${fresh.length} finished)`,
		async () => {
			fresh = (await executionsOf(QWF.many)).filter((e) => !known.has(String(e.id)) && e.stoppedAt);
			return fresh.length >= executions;
		},
		600000,
		250,
	);
	const failed = fresh.filter((e) => e.status !== 'success');
	if (failed.length)
		throw new Error(
			`${failed.length} executions did not succeed: ${failed.map((e) => `${e.id} ${e.status}`).join(', ')}`,
		);
	const wallMs = Math.max(...fresh.map((e) => Date.parse(e.stoppedAt))) - started;
	const stats = await admin(emu, 'GET', 'stats');
	const perWorker = {};
	for (const e of fresh) {
		const on = stack.ranOn(e.id)[0] ?? 'main';
		perWorker[on] = (perWorker[on] ?? 0) + 1;
	}
	return {
		wallMs,
		tasks: stats.requests.process_file,
		pollsPerTask: stats.requests.task_status / stats.requests.process_file,
		perWorker,
	};
}

/** Both runs; everything started is stopped before it returns or throws. */
async function measureQueue({ emu, admin, documents, executions, intervalS, log }) {
	if (documents % executions) throw new Error('documents must be a multiple of executions');
	state.emulatorUrl = emu.url;
	let stack;
	try {
		stack = await prepareStack({
			workflows: buildQueueWorkflows({ items: documents / executions, pollInterval: intervalS }),
			prefix: 'docex-bench-queue-',
			created: (s) => (stack = s),
		});
		log('queue mode: starting main, 2 workers and a webhook process');
		await stack.startN8nProcesses();
		const queue = await measure({
			stack,
			baseUrl: `http://127.0.0.1:${stack.ports.webhook}`,
			executions,
			admin,
			emu,
		});
		log(`  queue mode ${(queue.wallMs / 1000).toFixed(2)} s, ${JSON.stringify(queue.perWorker)}`);
		log('regular mode: one n8n process on the same database');
		await stack.startRegular();
		const regular = await measure({
			stack,
			baseUrl: `http://127.0.0.1:${stack.ports.main}`,
			executions,
			admin,
			emu,
		});
		log(`  regular mode ${(regular.wallMs / 1000).toFixed(2)} s`);
		return { documents, executions, queue, regular };
	} finally {
		if (stack) await stack.stop();
		const left = stack ? stack.leftovers() : [];
		if (left.length) log(`warning: still running: ${left.join(', ')}`);
		else if (stack) require('node:fs').rmSync(stack.dir, { recursive: true, force: true });
	}
}

module.exports = { measureQueue };
