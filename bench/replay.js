'use strict';
/**
 * P9: the trigger's memory of deliveries. BENCH_P9_DELIVERIES (200,000) distinct, correctly signed
 * task.completed deliveries, one after the other, into the built trigger's webhook() in a fresh
 * process started with --expose-gc (no n8n: a minimal webhook context, each delivery answered 200
 * after the node returns, as n8n answers once it created the run), then copies of the first
 * BENCH_P9_REPLAYS (100), the earliest deliveries. Reported: the entries remembered, the heap
 * they take (heapUsed after a full collection, against one before the flood), and how the
 * replays were answered (a run started for a replay is a failure of the promise).
 */

const crypto = require('node:crypto');
const { EventEmitter } = require('node:events');
const { fork } = require('node:child_process');
const path = require('node:path');

const { sign } = require('../emulator/lib/outbound.js');
const { positive } = require('./common.js');

const DELIVERIES = positive('BENCH_P9_DELIVERIES', 200000);
const REPLAYS = positive('BENCH_P9_REPLAYS', 100);
const SECRET = `whsec_${'9c'.repeat(24)}`;
const MB = 1e6;

/** A response as express gives it to the node: 'finish' once answered, then 'close'. */
class Response extends EventEmitter {
	status(code) {
		this.statusCode = code;
		return this;
	}
	json(body) {
		this.body = body;
		this.emit('finish');
		this.emit('close');
	}
}

/** The child: floods the trigger of the package at BENCH_PACKAGE_ROOT and reports over IPC. */
async function flood() {
	const dist = path.join(process.env.BENCH_PACKAGE_ROOT, 'dist/nodes/DocumentExtractionTrigger');
	const { DocumentExtractionTrigger } = require(path.join(dist, 'DocumentExtractionTrigger.node.js'));
	const memory = require(path.join(dist, 'recentDeliveries.js'));
	const trigger = new DocumentExtractionTrigger();
	const parameters = { useExistingRegistration: true, webhookSecret: SECRET, options: {} };
	const node = { id: crypto.randomUUID(), name: 'Document Extraction Trigger', parameters };
	const deliver = async (rawBody) => {
		const res = new Response();
		const signature = sign(SECRET, rawBody);
		const context = {
			getNode: () => node,
			getWorkflow: () => ({ id: 'BenchReplayFlood', active: true }),
			getMode: () => 'webhook',
			getNodeParameter: (name, fallback) => parameters[name] ?? fallback,
			getRequestObject: () => ({ rawBody, headers: { 'x-service-signature': signature } }),
			getResponseObject: () => res,
			getWorkflowStaticData: () => ({}),
			getNodeWebhookUrl: () => 'http://127.0.0.1:5678/webhook/bench/webhook',
			logger: { warn: () => undefined },
		};
		const result = await trigger.webhook.call(context);
		if (!res.body) res.status(200).json({ message: 'Workflow was started' });
		return result.workflowData ? 'run' : (res.body.ignored ?? res.body.error ?? res.statusCode);
	};
	const body = (i, timestamp) =>
		Buffer.from(
			JSON.stringify({
				event: 'task.completed',
				task_id: crypto.createHash('md5').update(`bench-${i}`).digest('hex'),
				status: 'complete',
				result: { invoice_number: `INV-${i}`, total_amount: 12 },
				project_id: '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c',
				document_type: 'invoice',
				timestamp,
			}),
		);

	// warm up the code paths (one delivery, remembered like the others), then the baseline
	const first = new Date().toISOString();
	const early = Array.from({ length: REPLAYS }, (_, i) => body(i, first));
	await deliver(early[0]);
	global.gc();
	const before = process.memoryUsage().heapUsed;
	const started = performance.now();
	const outcomes = {};
	for (let i = 1; i < DELIVERIES; i++) {
		const outcome = await deliver(i < REPLAYS ? early[i] : body(i, new Date().toISOString()));
		outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
	}
	const floodMs = performance.now() - started;
	global.gc();
	const heapBytes = process.memoryUsage().heapUsed - before;
	const entries = memory.entries?.size ?? NaN;
	const replays = {};
	for (const raw of early) {
		const outcome = await deliver(raw);
		replays[outcome] = (replays[outcome] ?? 0) + 1;
	}
	return { deliveries: DELIVERIES, entries, heapBytes, floodMs, outcomes, replays, node: process.version };
}

/** Runs the flood in a fresh process; resolves to its figures. */
function measureReplay({ packageRoot, log }) {
	log(`P9 ${DELIVERIES} signed deliveries into the trigger's webhook(), then ${REPLAYS} early copies ...`);
	return new Promise((resolve, reject) => {
		const child = fork(__filename, [], {
			env: { ...process.env, BENCH_PACKAGE_ROOT: packageRoot, BENCH_P9_CHILD: '1' },
			execArgv: ['--expose-gc'],
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		});
		child.once('message', (message) => {
			if (message.error) return reject(new Error(`P9: ${message.error}`));
			const r = message.result;
			log(`  ${r.entries} entries, ${(r.heapBytes / MB).toFixed(1)} MB, replays ${JSON.stringify(r.replays)}`);
			resolve(r);
		});
		child.once('exit', (code) => reject(new Error(`P9: the flood process exited (${code})`)));
	});
}

const refusedAll = (r) => !r.replays.run;

function summaryRows(r) {
	const answers = Object.entries(r.replays).map(([k, v]) => `${v} "${k}"`).join(', ');
	return [
		`| P9 trigger: ${r.deliveries.toLocaleString('en')} signed deliveries into one n8n process, then copies of the earliest | ${r.entries.toLocaleString('en')} entries, ${(r.heapBytes / MB).toFixed(1)} MB heap (${Math.round(r.heapBytes / r.entries)} bytes each); replays: ${answers} | every replay refused, memory ≤ a few tens of MB | ${refusedAll(r) && r.heapBytes < 50 * MB ? '**yes**' : '**NO**'} |`,
	];
}

function section(r) {
	const lines = ['## P9: the trigger\'s memory of deliveries', ''];
	lines.push(`${r.deliveries.toLocaleString('en')} distinct, correctly signed task.completed deliveries (default options: Timestamp Tolerance 60 min), one after the other, into the built trigger's \`webhook()\` in a fresh Node.js ${r.node} process (no n8n: a minimal webhook context; each delivery answered 200 after the node returns, as n8n does once it created the run). Then copies of the first ${Object.values(r.replays).reduce((a, b) => a + b, 0)} deliveries, sent first. Heap: \`heapUsed\` after a full collection, against the same before the flood.`);
	lines.push('');
	lines.push('| Figure | Measured |');
	lines.push('|---|---|');
	lines.push(`| Entries remembered | ${r.entries.toLocaleString('en')} |`);
	lines.push(`| Heap they take | ${(r.heapBytes / MB).toFixed(1)} MB (${Math.round(r.heapBytes / r.entries)} bytes per entry) |`);
	lines.push(`| The flood's answers | ${Object.entries(r.outcomes).map(([k, v]) => `${v.toLocaleString('en')} ${k === 'run' ? 'runs' : `"${k}"`}`).join(', ')} |`);
	lines.push(`| Time in the trigger | ${(r.floodMs / 1000).toFixed(2)} s = ${((r.floodMs * 1000) / r.deliveries).toFixed(0)} µs per delivery (signature, timestamp, memory, item) |`);
	lines.push(`| The early copies (replays) | ${Object.entries(r.replays).map(([k, v]) => `${v} ${k === 'run' ? '**started a run**' : `"${k}"`}`).join(', ')} |`);
	lines.push('');
	return lines.join('\n');
}

if (process.env.BENCH_P9_CHILD === '1') {
	flood().then(
		(result) => process.send({ result }, () => process.exit(0)),
		(error) => process.send({ error: String(error?.stack ?? error) }, () => process.exit(1)),
	);
}

module.exports = { measureReplay, summaryRows, section };
