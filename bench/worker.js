'use strict';
/**
 * Benchmark worker: runs workflows with the Document Extraction node through n8n-core's
 * execution engine (the integration harness in harness/engine/, the same path the
 * integration tests use) and reports timings and memory figures to bench/run.js over IPC.
 *
 * Started by bench/run.js with `child_process.fork` (and --expose-gc for memory jobs). The
 * service emulator runs in the parent process, never here, so its work (reading and decoding
 * the request body) is not part of the figures measured in this process.
 */
require('./ts-hook');

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const harness = require('../harness/engine/index.ts');

const ROOT = path.resolve(__dirname, '..');
const NODE_TYPE = 'n8n-nodes-document-extraction.documentExtraction';
const API_KEY = 'vnd_test_key';

/** The package to load (bench/run.js passes a snapshot of the build, so a rebuild during the run cannot disturb it). */
const types = harness.loadPackageTypes(process.env.BENCH_PACKAGE_ROOT || ROOT);

/**
 * Manual trigger → Files (stores the input binary in the active binary mode) → Extract. With
 * `continueOnFail` the Extract node is set to On Error → Continue, so a failed item is counted
 * instead of failing the run.
 */
function workflow(parameters, continueOnFail = false) {
	const main = (node) => ({ main: [[{ node, type: 'main', index: 0 }]] });
	const extract = {
		id: 'c',
		name: 'Extract',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [400, 0],
		parameters,
	};
	if (continueOnFail) extract.onError = 'continueRegularOutput';
	return {
		nodes: [
			{
				id: 'a',
				name: 'Start',
				type: harness.MANUAL_TRIGGER_NODE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'b',
				name: 'Files',
				type: harness.HARNESS_SOURCE_NODE_TYPE,
				typeVersion: 1,
				position: [200, 0],
				parameters: {},
			},
			extract,
		],
		connections: { Start: main('Files'), Files: main('Extract') },
	};
}

function credentials(url) {
	return { documentExtractionApi: { apiKey: API_KEY, baseUrl: url } };
}

/** A small PDF-like document, different for every index (so every task has its own hash). */
function smallPdf(index) {
	return Buffer.from(
		`%PDF-1.7\n1 0 obj << /Type /Page >> endobj\n% benchmark document ${index} ${crypto.randomUUID()}\n%%EOF\n`,
	);
}

/**
 * Runs one workflow and times the whole execution and the Extract node inside it; `onStart` and
 * `onStop` run as the Extract node starts and ends.
 */
async function timedRun(
	url,
	parameters,
	items,
	binaryMode = 'default',
	{ onStart, onStop, continueOnFail } = {},
) {
	let nodeStart = 0;
	let nodeEnd = 0;
	const started = performance.now();
	const result = await harness.runWorkflow({
		workflow: workflow(parameters, continueOnFail),
		types,
		credentials: credentials(url),
		binaryMode,
		inputItems: items,
		onNodeStart: (name) => {
			if (name !== 'Extract') return;
			onStart?.();
			nodeStart = performance.now();
		},
		onNodeEnd: (name) => {
			if (name !== 'Extract') return;
			nodeEnd = performance.now();
			onStop?.();
		},
	});
	const wallMs = performance.now() - started;
	const error = result.errorOf('Extract');
	if (error) throw new Error(`Extract failed: ${error.message}`);
	return { result, wallMs, nodeMs: nodeEnd - nodeStart };
}

/**
 * P1: Submit and Wait on `count` items. `perItem` runs one workflow execution per item, one
 * after another (how a node without in-node concurrency behaves); otherwise all items go
 * through one execution of the node with the given Max Concurrent Requests.
 */
async function submitAndWait({ url, count, concurrency, intervalS, perItem }) {
	const parameters = {
		resource: 'document',
		operation: 'submitAndWait',
		project: { __rl: true, mode: 'id', value: 'Invoices' },
		documentType: 'invoice',
		output: 'result',
		options: { pollInterval: intervalS, maxConcurrency: concurrency },
	};
	const items = Array.from({ length: count }, (_, i) =>
		harness.binaryItem(smallPdf(i), `doc-${i}.pdf`, 'application/pdf', { n: i }),
	);
	const batches = perItem ? items.map((item) => [item]) : [items];
	const started = performance.now();
	let nodeMs = 0;
	let complete = 0;
	for (const batch of batches) {
		const run = await timedRun(url, parameters, batch);
		nodeMs += run.nodeMs;
		const out = run.result.outputOf('Extract');
		complete += out.filter(
			(o) => typeof o.json.invoice_number === 'string' && !o.json.error,
		).length;
	}
	return { wallMs: performance.now() - started, nodeMs, complete, count };
}

/**
 * P8: `items` items of `filesPerItem` files each (binary fields attachment_0, attachment_1, …,
 * as n8n's email triggers output them) through Submit and Wait in one execution: with
 * Files to Send → All Binary Fields when an item has more than one file, else the one field
 * "data" (the default).
 */
async function attachments({ url, items: itemCount, filesPerItem, concurrency, intervalS }) {
	const several = filesPerItem > 1;
	const parameters = {
		resource: 'document',
		operation: 'submitAndWait',
		...(several ? { filesToSend: 'all' } : { binaryPropertyName: 'data' }),
		project: { __rl: true, mode: 'id', value: 'Invoices' },
		documentType: 'invoice',
		output: 'result',
		options: { pollInterval: intervalS, maxConcurrency: concurrency },
	};
	const items = Array.from({ length: itemCount }, (_, i) => {
		const item = { json: { n: i }, binary: {} };
		for (let f = 0; f < filesPerItem; f++) {
			const field = several ? `attachment_${f}` : 'data';
			item.binary[field] = harness.binaryItem(
				smallPdf(i * filesPerItem + f),
				`doc-${i}-${f}.pdf`,
				'application/pdf',
			).binary.data;
		}
		return item;
	});
	const run = await timedRun(url, parameters, items);
	const out = run.result.outputOf('Extract');
	const complete = out.filter(
		(o) => typeof o.json.invoice_number === 'string' && !o.json.error,
	).length;
	return { wallMs: run.wallMs, nodeMs: run.nodeMs, complete, outputItems: out.length };
}

/** Reads VmHWM (peak resident set) from /proc, in bytes; undefined where not available. */
function peakRss() {
	try {
		const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
		return match ? Number(match[1]) * 1024 : undefined;
	} catch {
		return undefined;
	}
}

/** Resets VmHWM to the current resident set (Linux); false where not available. */
function resetPeakRss() {
	try {
		fs.writeFileSync('/proc/self/clear_refs', '5');
		return true;
	} catch {
		return false;
	}
}

function memorySample() {
	const m = process.memoryUsage();
	// `external` already includes `arrayBuffers` (all Buffers): heap + external counts each byte once.
	return {
		rss: m.rss,
		heap: m.heapUsed,
		external: m.external,
		arrayBuffers: m.arrayBuffers,
		js: m.heapUsed + m.external,
	};
}

/**
 * Samples this process's memory every `sampleMs` between `start` (after a full GC: the baseline)
 * and `stop`, keeping the peak of each figure; the kernel's RSS high-water mark is used when
 * available. `extra()` is the peak above the baseline.
 */
function memoryProbe(sampleMs) {
	const probe = { baseline: undefined, peak: undefined, samples: 0, hwmUsed: false };
	let timer;
	const take = () => {
		const s = memorySample();
		probe.samples++;
		for (const key of Object.keys(s)) probe.peak[key] = Math.max(probe.peak[key], s[key]);
	};
	probe.start = () => {
		global.gc();
		global.gc();
		probe.baseline = memorySample();
		probe.peak = { ...probe.baseline };
		probe.hwmUsed = resetPeakRss();
		timer = setInterval(take, sampleMs);
	};
	probe.stop = () => {
		take();
		clearInterval(timer);
		if (probe.hwmUsed) {
			const hwm = peakRss();
			if (hwm !== undefined) probe.peak.rss = Math.max(probe.peak.rss, hwm);
		}
	};
	probe.extra = () => {
		const extra = {};
		for (const key of Object.keys(probe.baseline))
			extra[key] = probe.peak[key] - probe.baseline[key];
		return extra;
	};
	return probe;
}

/**
 * P2: Submit of one large file. The baseline is taken when the Extract node starts, after a
 * full GC: the input item (and, in filesystem mode, the stored file) already exist then, so
 * only what the node and n8n's request helper add while sending is measured. With source
 * "url" the node downloads the file itself (URL input source), so the download is measured too.
 */
async function submitLarge({ url, binaryMode, fileBytes, sampleMs, source = 'binary' }) {
	if (typeof global.gc !== 'function') throw new Error('run with --expose-gc');
	const parameters = {
		resource: 'document',
		operation: 'submit',
		project: { __rl: true, mode: 'id', value: 'Invoices' },
		documentType: 'invoice',
		options: {},
	};
	let items;
	let sha256;
	let base64Bytes;
	if (source === 'url') {
		// The node downloads the file the emulator serves (GET /_emulator/files/<name>) inside the measurement.
		Object.assign(parameters, {
			inputSource: 'url',
			documentUrl: `${url}/_emulator/files/bench-large.pdf?size=${fileBytes}`,
			// the emulator listens on loopback, which downloads refuse unless allowed
			options: {
				maxDownloadSize: Math.ceil((2 * fileBytes) / 2 ** 20),
				allowPrivateAddresses: true,
			},
		});
		items = [{ json: {} }];
		base64Bytes = Math.ceil(fileBytes / 3) * 4;
	} else {
		let file = Buffer.concat([Buffer.from('%PDF-1.7\n'), crypto.randomBytes(fileBytes - 9)]);
		sha256 = crypto.createHash('sha256').update(file).digest('hex');
		items = [harness.binaryItem(file, 'large.pdf', 'application/pdf')];
		base64Bytes = items[0].binary.data.data.length;
		file = null;
	}

	const memory = memoryProbe(sampleMs);
	const { result, wallMs, nodeMs } = await timedRun(url, parameters, items, binaryMode, {
		onStart: memory.start,
		onStop: memory.stop,
	});
	items = null;
	const out = result.outputOf('Extract');
	return {
		binaryMode,
		source,
		fileBytes,
		base64Bytes,
		sha256,
		taskId: out[0].json.task_id,
		storedAs: out[0].binary?.data?.id ? 'file' : 'inline base64',
		baseline: memory.baseline,
		peak: memory.peak,
		extra: memory.extra(),
		samples: memory.samples,
		hwmUsed: memory.hwmUsed,
		nodeMs,
		wallMs,
	};
}

/** The first line of each distinct error message among the output items, with its count. */
function errorSummary(out) {
	const counts = {};
	for (const o of out) {
		if (!o.json.error) continue;
		const message = String(o.json.error.message ?? o.json.error).split('\n')[0];
		counts[message] = (counts[message] ?? 0) + 1;
	}
	return counts;
}

/**
 * P5: `count` small documents through Submit or Submit and Wait in one execution, with the
 * given Max Concurrent Requests, against a service that rate-limits (set up by bench/run.js).
 * On Error → Continue, so that items the node gave up on are counted, not thrown.
 */
async function rateLimited({ url, count, concurrency, operation, intervalS }) {
	const parameters = {
		resource: 'document',
		operation,
		project: { __rl: true, mode: 'id', value: 'Invoices' },
		documentType: 'invoice',
		options: { maxConcurrency: concurrency },
	};
	if (operation === 'submitAndWait') {
		parameters.output = 'result';
		parameters.options.pollInterval = intervalS;
	}
	const items = Array.from({ length: count }, (_, i) =>
		harness.binaryItem(smallPdf(i), `doc-${i}.pdf`, 'application/pdf', { n: i }),
	);
	const { result, wallMs, nodeMs } = await timedRun(url, parameters, items, 'default', {
		continueOnFail: true,
	});
	const out = result.outputOf('Extract');
	const ok =
		operation === 'submitAndWait'
			? out.filter((o) => typeof o.json.invoice_number === 'string' && !o.json.error).length
			: out.filter((o) => typeof o.json.task_id === 'string' && !o.json.error).length;
	return {
		wallMs,
		nodeMs,
		count,
		ok,
		failed: out.filter((o) => o.json.error).length,
		errors: errorSummary(out),
	};
}

/**
 * P6: `count` URL items through Submit (Input Source URL; the node downloads each file from
 * the emulator) with the given Max Concurrent Requests. Memory is measured as in P2: baseline
 * after a full GC when the node starts, samples every `sampleMs` plus the kernel's peak RSS.
 */
async function urlItems({ url, count, concurrency, fileBytes, delayMs, binaryMode, sampleMs }) {
	if (typeof global.gc !== 'function') throw new Error('run with --expose-gc');
	const parameters = {
		resource: 'document',
		operation: 'submit',
		project: { __rl: true, mode: 'id', value: 'Invoices' },
		documentType: 'invoice',
		inputSource: 'url',
		documentUrl: '={{ $json.url }}',
		// the emulator serves the files on 127.0.0.1
		options: {
			maxConcurrency: concurrency,
			maxDownloadSize: Math.ceil((2 * fileBytes) / 2 ** 20),
			allowPrivateAddresses: true,
		},
	};
	const items = Array.from({ length: count }, (_, i) => ({
		json: { url: `${url}/_emulator/files/doc-${i}.pdf?size=${fileBytes}&delay_ms=${delayMs}` },
	}));

	const memory = memoryProbe(sampleMs);
	const { result, wallMs, nodeMs } = await timedRun(url, parameters, items, binaryMode, {
		onStart: memory.start,
		onStop: memory.stop,
		continueOnFail: true,
	});
	const out = result.outputOf('Extract');
	return {
		wallMs,
		nodeMs,
		count,
		ok: out.filter((o) => typeof o.json.task_id === 'string' && !o.json.error).length,
		failed: out.filter((o) => o.json.error).length,
		errors: errorSummary(out),
		baseline: memory.baseline,
		peak: memory.peak,
		extra: memory.extra(),
		hwmUsed: memory.hwmUsed,
	};
}

const handlers = { submitAndWait, submitLarge, rateLimited, urlItems, attachments };

process.on('message', async (job) => {
	try {
		const result = await handlers[job.kind](job);
		process.send({ id: job.id, ok: true, result });
	} catch (error) {
		process.send({ id: job.id, ok: false, error: error.stack || String(error) });
	}
});
process.on('disconnect', () => {
	harness.disposeHarness();
	process.exit(0);
});
process.send({ ready: true });
