#!/usr/bin/env node
'use strict';
/**
 * Benchmark of the Document Extraction node inside n8n: `npm run bench` (builds first).
 *
 * The node runs through n8n-core's execution engine (harness/engine/, the path the
 * integration tests use) in worker processes (bench/worker.js); the service emulator runs in
 * this process on 127.0.0.1. Prints a markdown table and writes it to bench/results.md.
 * Targets are reported, never enforced: the exit code is 0 unless the benchmark itself fails.
 *
 *   BENCH_PROCESSING_MS    emulator processing time T per task (default 3000)
 *   BENCH_POLL_INTERVAL_S  Poll Interval of Submit and Wait (default 2)
 *   BENCH_QUICK=1          skip the sequential 50-item run (estimated from the 10-item one)
 *                          and the 100 MB file
 *   BENCH_OUTPUT           where to write the markdown (default bench/results.md; "-" = nowhere)
 *
 * P1  Submit and Wait wall time on 1, 10 and 50 items: Max Concurrent Requests 5 (default) and 1
 *     in one execution of the node, and "sequential": one workflow execution per item, one after
 *     the other (how a node without in-node concurrency handles the items).
 * P1b Submit and Wait on 50 and 500 items in one execution (Max Concurrent Requests 5), a fresh
 *     worker process per run, BENCH_P1B_ROUNDS rounds (3; 1 in the full benchmark), medians.
 *     BENCH_P1B_BASELINE=<folder> (a checkout of another commit, built) measures that build too,
 *     alternating with this one in every round on the same emulator, and gives the ratio.
 * P2  Peak extra memory while one Submit sends a 40 MB file, in n8n's memory ("default") and
 *     filesystem binary modes, and a 40 MB file the node downloads by URL (filesystem mode);
 *     a fresh process per case, baseline after a full GC when the node starts (the input item
 *     and the stored file exist by then; the downloaded file does not).
 * P3  Status requests per task and the most requests ever in flight at the service.
 * Q   Queue mode (bench/queue.js): BENCH_QUEUE_DOCUMENTS (200) documents through Submit and Wait in
 *     BENCH_QUEUE_EXECUTIONS (8) executions started at once through a production webhook, on n8n
 *     main + 2 workers + a webhook process (PostgreSQL, Redis), against one n8n process in regular
 *     mode on the same database. BENCH_QUEUE=0 skips it (it needs PostgreSQL and redis-server).
 * P4  The Document Extraction Trigger under load against n8n's Webhook node (bench/trigger.js):
 *     200 signed deliveries, 50 in flight, in a real n8n, regular and queue mode. BENCH_P4=0
 *     skips it; its own settings (BENCH_P4_*) are listed in bench/trigger.js.
 * P5  N documents under a limit of R requests per second (bench/pace.js): 100 documents through
 *     Submit, and through Submit and Wait (500 ms processing, Poll Interval 1 s), Max Concurrent
 *     Requests 5, against the emulator's rate limit of 4 requests/s (burst 4), with Retry-After
 *     in seconds and without it. Wall time against the physical limit (requests the service
 *     accepted ÷ R), the 429s (count and share of all requests), the tasks created (= N).
 *     Targets: wall ≤ 1.3 × the limit, 429s ≤ 10 %. A fresh worker process per case.
 * P6  Many URL items with a limit of k (bench/pace.js): 200 URL items (the emulator's sample
 *     files, 2 MB each, answered after 200 ms) through Submit with Max Concurrent Requests 3,
 *     memory binary mode: the most downloads open at once (≤ k), the most service requests in
 *     flight (≤ k) and the peak extra memory of the worker process (measured as in P2).
 *     BENCH_P5=0 / BENCH_P6=0 skip them; their settings (BENCH_P5_*, BENCH_P6_*) are listed in
 *     bench/pace.js.
 *
 * P7  Many small documents (bench/bulk.js): 2,000 and 10,000 documents through Submit and Wait in
 *     one execution of a real n8n, against a bare keep-alive client and against a minimal node that
 *     only sends the same requests through n8n's request helper (the helper's floor), one after
 *     the other on the same emulator; times, ratios, polls per task, peak memory. BENCH_P7=0 skips
 *     it; its own settings (BENCH_P7_*) are listed in bench/bulk.js.
 *
 * P8  Email attachments (bench/attachments.js): 500 items of 2 attachments (All Binary Fields)
 *     against 1,000 single-file items, Submit and Wait in one execution: tasks, time, ratio.
 *     BENCH_P8=0 skips it in the full benchmark.
 *
 * P9  The trigger's memory of deliveries (bench/replay.js): 200,000 signed deliveries into the
 *     built trigger's webhook() in a fresh process, then copies of the earliest: entries, heap
 *     (MB) and whether every copy is refused. BENCH_P9=0 skips it; BENCH_P9_* in bench/replay.js.
 *
 * P10 The production workflow with 100,000 rows (bench/production-rows.js): a post of 20 documents to
 *     Intake on an empty Data Table against 100,000 rows, a catch-up run, the room a row takes in
 *     n8n's Data Table size limit. BENCH_P10=0 skips it; BENCH_P10_* in bench/production-rows.js.
 *
 * Rows alone: `node bench/run.js --only P4` (or --only P5,P6; BENCH_ONLY=P5;
 * `npm run bench -- --only P5` builds first). It replaces only those rows' summary lines and
 * sections in bench/results.md and keeps the rest of the file.
 */
const { execFileSync, fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { createEmulator } = require('../emulator/server.js');
const { emulatorAdmin: admin, median, positive } = require('./common.js');

const ROOT = path.resolve(__dirname, '..');
const T_MS = positive('BENCH_PROCESSING_MS', 3000);
const INTERVAL_S = positive('BENCH_POLL_INTERVAL_S', 2);
const QUICK = process.env.BENCH_QUICK === '1';
const OUTPUT = process.env.BENCH_OUTPUT ?? path.join(__dirname, 'results.md');
const ITEM_COUNTS = [1, 10, 50];
const DEFAULT_CONCURRENCY = 5;
const FILE_BYTES = 40e6;
const LARGE_FILE_BYTES = 100e6;
const SAMPLE_MS = 2;
const LATENCY_MS = 100;
const MB = 1e6;
const QUEUE = process.env.BENCH_QUEUE !== '0';
const QUEUE_DOCUMENTS = positive('BENCH_QUEUE_DOCUMENTS', 200);
const QUEUE_EXECUTIONS = positive('BENCH_QUEUE_EXECUTIONS', 8);
const P4 = process.env.BENCH_P4 !== '0';
const P5 = process.env.BENCH_P5 !== '0';
const P6 = process.env.BENCH_P6 !== '0';
const P7 = process.env.BENCH_P7 !== '0';
const P8 = process.env.BENCH_P8 !== '0';
const P9 = process.env.BENCH_P9 !== '0';
const P10 = process.env.BENCH_P10 !== '0';
const P1B_COUNTS = [50, 500];
const P1B_BASELINE = process.env.BENCH_P1B_BASELINE;
/** Rows that can run alone (--only); the others run in the full benchmark. */
const ROWS = ['P1b', 'P4', 'P5', 'P6', 'P7', 'P8', 'P9', 'P10'];
const ONLY = parseOnly();

/** The rows chosen with --only / BENCH_ONLY, or undefined for all. */
function parseOnly() {
	const argv = process.argv.slice(2);
	let raw = process.env.BENCH_ONLY;
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--only') raw = argv[++i];
		else if (argv[i].startsWith('--only=')) raw = argv[i].slice('--only='.length);
		else throw new Error(`unknown argument "${argv[i]}" (usage: node bench/run.js [--only P4,P5,P6])`);
	}
	if (raw === undefined || raw === '') return undefined;
	const rows = new Set();
	for (const asked of raw.split(',').map((r) => r.trim()).filter(Boolean)) {
		const row = ROWS.find((r) => r.toUpperCase() === asked.toUpperCase());
		if (!row) throw new Error(`--only: "${asked}" cannot run alone (rows: ${ROWS.join(', ')})`);
		rows.add(row);
	}
	return rows;
}


const log = (message) => process.stderr.write(`[bench] ${message}\n`);
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
const times = (x) => `${x.toFixed(2)}×`;
const yesNo = (ok) => (ok === undefined ? 'n/a' : ok ? '**yes**' : '**NO**');

/** Copies the built package, so that a rebuild while the benchmark runs cannot disturb it. */
function snapshotPackage() {
	const entry = path.join(ROOT, 'dist/nodes/DocumentExtraction/DocumentExtraction.node.js');
	if (!fs.existsSync(entry)) throw new Error('dist/ is missing: run "npm run build" first (npm run bench does)');
	const target = path.join(ROOT, '.bench', `package-${process.pid}`);
	fs.rmSync(target, { recursive: true, force: true });
	fs.mkdirSync(target, { recursive: true });
	fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(target, 'package.json'));
	fs.cpSync(path.join(ROOT, 'dist'), path.join(target, 'dist'), { recursive: true });
	return target;
}

/** A worker process running workflows through the harness; `run(job)` resolves with its result. */
async function startWorker(packageRoot, execArgv = []) {
	const child = fork(path.join(__dirname, 'worker.js'), [], {
		env: { ...process.env, BENCH_PACKAGE_ROOT: packageRoot },
		execArgv,
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const pending = new Map();
	let nextId = 0;
	let failure;
	const fail = (error) => {
		failure = error;
		for (const { reject } of pending.values()) reject(error);
		pending.clear();
	};
	child.on('exit', (code, signal) => {
		if (pending.size || code) fail(new Error(`benchmark worker exited (code ${code}, signal ${signal})`));
	});
	await new Promise((resolve, reject) => {
		child.once('message', resolve);
		child.once('error', reject);
		child.once('exit', () => reject(failure ?? new Error('benchmark worker exited before it was ready')));
	});
	child.on('message', (message) => {
		const entry = pending.get(message.id);
		if (!entry) return;
		pending.delete(message.id);
		if (message.ok) entry.resolve(message.result);
		else entry.reject(new Error(`worker: ${message.error}`));
	});
	return {
		run(job) {
			if (failure) return Promise.reject(failure);
			const id = ++nextId;
			return new Promise((resolve, reject) => {
				pending.set(id, { resolve, reject });
				child.send({ ...job, id });
			});
		},
		stop() {
			return new Promise((resolve) => {
				if (child.exitCode !== null || child.signalCode !== null) return resolve();
				child.once('exit', () => resolve());
				child.disconnect();
			});
		},
		kill() {
			if (child.exitCode === null && child.signalCode === null) child.kill();
		},
	};
}


/** Service-side figures of one run: status requests per task and the in-flight high-water mark. */
function serviceFigures(stats) {
	const polls = Object.values(stats.status_polls_by_task);
	const tasks = stats.requests.process_file;
	return {
		tasks,
		statusRequests: stats.requests.task_status,
		pollsMin: polls.length < tasks ? 0 : Math.min(...polls),
		pollsMax: polls.length ? Math.max(...polls) : 0,
		pollsMean: tasks ? stats.requests.task_status / tasks : 0,
		maxInFlight: stats.max_in_flight,
	};
}

async function measureP1(emu, worker) {
	const runs = [];
	const job = (count, concurrency, perItem) => ({
		kind: 'submitAndWait',
		url: emu.url,
		count,
		concurrency,
		intervalS: INTERVAL_S,
		perItem,
	});
	const cases = [];
	for (const count of ITEM_COUNTS) {
		cases.push({ count, concurrency: DEFAULT_CONCURRENCY, perItem: false, latencyMs: 0 });
		cases.push({ count, concurrency: 1, perItem: false, latencyMs: 0 });
		if (!(QUICK && count === 50)) cases.push({ count, concurrency: 1, perItem: true, latencyMs: 0 });
	}
	// P3 under load: every service request takes LATENCY_MS, so requests overlap and the limit matters.
	cases.push({ count: 50, concurrency: DEFAULT_CONCURRENCY, perItem: false, latencyMs: LATENCY_MS });
	cases.push({ count: 50, concurrency: 1, perItem: false, latencyMs: LATENCY_MS });

	for (const c of cases) {
		await admin(emu, 'POST', 'reset');
		if (c.latencyMs) {
			for (const endpoint of ['process_file', 'task_status']) {
				await admin(emu, 'POST', 'faults', { endpoint, count: 100000, delay_ms: c.latencyMs });
			}
		}
		const label = c.perItem
			? `${c.count} item${c.count === 1 ? '' : 's'}, sequential (one execution per item)`
			: `${c.count} item${c.count === 1 ? '' : 's'}, Max Concurrent Requests ${c.concurrency}${c.latencyMs ? `, ${c.latencyMs} ms service latency` : ''}`;
		log(`P1/P3 ${label} ...`);
		const result = await worker.run(job(c.count, c.concurrency, c.perItem));
		const service = serviceFigures(await admin(emu, 'GET', 'stats'));
		if (c.latencyMs) await admin(emu, 'DELETE', 'faults');
		if (result.complete !== c.count) {
			throw new Error(`${label}: ${result.complete} of ${c.count} items came back complete`);
		}
		log(`  ${secs(result.wallMs)}; polls per task ${service.pollsMin}-${service.pollsMax}; max in flight ${service.maxInFlight}`);
		runs.push({ ...c, ...result, service });
	}
	return runs;
}


/**
 * P1b: Submit and Wait on 50 and 500 items in one execution, this build and (with
 * BENCH_P1B_BASELINE) another, alternating in every round, each run in a fresh worker.
 */
async function measureP1b({ packageRoot, rounds }) {
	const builds = [{ name: 'this build', root: packageRoot }];
	if (P1B_BASELINE) {
		let commit = 'baseline';
		try {
			commit = execFileSync('git', ['-C', P1B_BASELINE, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
		} catch {
			// not a git checkout: its folder names it
		}
		builds.push({ name: `baseline ${commit}`, root: P1B_BASELINE });
	}
	const emu = await createEmulator({ port: 0, processingMs: T_MS });
	const runs = [];
	try {
		for (let round = 1; round <= rounds; round++) {
			const order = round % 2 ? builds : [...builds].reverse();
			for (const count of P1B_COUNTS) {
				for (const build of order) {
					await admin(emu, 'POST', 'reset');
					log(`P1b round ${round}, ${count} items, ${build.name} ...`);
					const worker = await startWorker(build.root);
					try {
						const result = await worker.run({
							kind: 'submitAndWait',
							url: emu.url,
							count,
							concurrency: DEFAULT_CONCURRENCY,
							intervalS: INTERVAL_S,
							perItem: false,
						});
						const service = serviceFigures(await admin(emu, 'GET', 'stats'));
						if (result.complete !== count) throw new Error(`P1b ${build.name}: ${result.complete} of ${count} items came back complete`);
						log(`  ${secs(result.wallMs)}; polls per task ${service.pollsMin}-${service.pollsMax}`);
						runs.push({ round, count, build: build.name, wallMs: result.wallMs, polls: service.pollsMax, load: os.loadavg()[0] });
					} finally {
						await worker.stop();
					}
				}
			}
		}
	} finally {
		await emu.close();
	}
	return { runs, builds: builds.map((b) => b.name), rounds, tMs: T_MS, intervalS: INTERVAL_S };
}

function p1bSummaryRows(p1b) {
	const limitMs = 1.3 * (p1b.tMs + p1b.intervalS * 1000);
	const [own, base] = p1b.builds;
	const med = (build, count) => median(p1b.runs.filter((r) => r.build === build && r.count === count).map((r) => r.wallMs));
	const rows = [];
	for (const count of P1B_COUNTS) {
		const mine = med(own, count);
		const against = base ? med(base, count) : undefined;
		const versus = against === undefined ? '' : `; ${base}: ${secs(against)}, this ÷ baseline ${times(mine / against)}`;
		const target = count === 50 ? `≤ 1.3 × (T + interval) = ${secs(limitMs)}` : `≤ 1.3 × (T + interval) = ${secs(limitMs)} (informative)`;
		const within = count !== 50 || mine <= limitMs;
		const met = base ? within && mine <= against * 1.05 : within;
		rows.push(`| P1b Submit and Wait, ${count} items in one execution, Max Concurrent Requests ${DEFAULT_CONCURRENCY} (median of ${p1b.rounds}) | ${secs(mine)}${versus} | ${target}${base ? '; no slower than the baseline' : ''} | ${count === 50 || base ? yesNo(met) : ''} |`);
	}
	return rows;
}

function p1bSection(p1b) {
	const lines = ['## P1b: Submit and Wait on 50 and 500 items, side by side with another build', ''];
	lines.push(`One execution of Submit and Wait (memory binary mode, Max Concurrent Requests ${DEFAULT_CONCURRENCY}, Poll Interval ${p1b.intervalS} s, T = ${p1b.tMs} ms) through n8n-core's execution engine, a fresh worker process per run, the builds alternating in every round on one emulator. Wall time of the workflow execution; load average (1 min) after each run.`);
	lines.push('');
	lines.push('| Items | Round | Build | Wall time | Polls per task (max) | Load |');
	lines.push('|---|---|---|---|---|---|');
	for (const r of p1b.runs) lines.push(`| ${r.count} | ${r.round} | ${r.build} | ${secs(r.wallMs)} | ${r.polls} | ${r.load.toFixed(1)} |`);
	for (const count of P1B_COUNTS) {
		for (const build of p1b.builds) {
			const values = p1b.runs.filter((r) => r.build === build && r.count === count).map((r) => r.wallMs);
			lines.push(`| ${count} | **median** | ${build} | **${secs(median(values))}** (${secs(Math.min(...values))}–${secs(Math.max(...values))}) | | |`);
		}
	}
	lines.push('');
	return lines.join('\n');
}

async function measureP2(emu, packageRoot) {
	const cases = [
		{ binaryMode: 'default', fileBytes: FILE_BYTES },
		{ binaryMode: 'filesystem', fileBytes: FILE_BYTES },
		{ binaryMode: 'filesystem', fileBytes: FILE_BYTES, source: 'url' },
	];
	if (!QUICK) {
		cases.push({ binaryMode: 'filesystem', fileBytes: LARGE_FILE_BYTES });
		cases.push({ binaryMode: 'filesystem', fileBytes: LARGE_FILE_BYTES, source: 'url' });
	}

	const results = [];
	for (const c of cases) {
		log(`P2 Submit of one ${mb(c.fileBytes)} file${c.source === 'url' ? ' by URL' : ''}, ${c.binaryMode} binary mode ...`);
		await admin(emu, 'POST', 'reset');
		const worker = await startWorker(packageRoot, ['--expose-gc']);
		try {
			const result = await worker.run({ kind: 'submitLarge', url: emu.url, sampleMs: SAMPLE_MS, ...c });
			const task = emu.state.tasks.get(result.taskId);
			if (c.source === 'url') result.sha256 = emu.state.files.at(-1)?.sha256;
			if (!task || !result.sha256 || task.file_sha256 !== result.sha256) {
				throw new Error(`P2 ${c.binaryMode}: the service did not receive the file intact`);
			}
			log(`  extra RSS ${mb(result.extra.rss)}, heap+external ${mb(result.extra.js)}, ${secs(result.wallMs)}`);
			results.push({ ...c, ...result });
		} finally {
			await worker.stop();
		}
	}
	return results;
}

function environment() {
	const cpus = os.cpus();
	return {
		date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
		node: process.version,
		cpuCount: cpus.length,
		cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
		platform: `${os.type()} ${os.release()} ${os.arch()}`,
		memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
		// the machine may be shared: its load over the last minute, when the figures were taken
		loadAverage: os.loadavg()[0].toFixed(1),
	};
}

/** Puts the n8n runtime (scripts/ensure-runtime.sh: NODE24, N8N_DIR, N8N_BIN) into the environment. */
function loadRuntime() {
	if (process.env.N8N_BIN && process.env.N8N_DIR && process.env.NODE24) return;
	const runtime = execFileSync('bash', [path.join(ROOT, 'scripts/ensure-runtime.sh')], { encoding: 'utf8' });
	for (const line of runtime.split('\n')) {
		const m = /^(NODE24|N8N_DIR|N8N_BIN)=(.*)$/.exec(line.trim());
		if (m) process.env[m[1]] = m[2];
	}
}

/** The trigger row (bench/trigger.js): a real n8n, the trigger against n8n's Webhook node. */
async function measureP4(emu) {
	loadRuntime();
	const { measureTrigger } = require('./trigger.js');
	return await measureTrigger({ emu, quick: QUICK, log });
}

/** The queue-mode row: needs the n8n runtime (scripts/ensure-runtime.sh) in the environment. */
async function measureQ(emu) {
	loadRuntime();
	const { measureQueue } = require('./queue.js');
	log(`Q ${QUEUE_DOCUMENTS} documents in ${QUEUE_EXECUTIONS} executions, queue mode vs regular mode ...`);
	return await measureQueue({
		emu,
		admin,
		documents: QUEUE_DOCUMENTS,
		executions: QUEUE_EXECUTIONS,
		intervalS: INTERVAL_S,
		log: (m) => log(`  ${m}`),
	});
}

function report(env, p1, p2, totalMs, q, p4, p5, p6, p7, p1b, p8, p9, p10) {
	const intervalMs = INTERVAL_S * 1000;
	const wallLimitMs = 1.3 * (T_MS + intervalMs);
	const minPolls = Math.ceil(T_MS / intervalMs) + 1;
	const find = (count, concurrency, perItem, latencyMs = 0) =>
		p1.find((r) => r.count === count && r.concurrency === concurrency && r.perItem === perItem && r.latencyMs === latencyMs);
	const seq = (count) => {
		const run = find(count, 1, true);
		if (run) return { ms: run.wallMs, estimated: false };
		const ten = find(10, 1, true);
		return ten ? { ms: (ten.wallMs / 10) * count, estimated: true } : undefined;
	};

	const lines = [];
	const out = (line = '') => lines.push(line);
	out('# Benchmark: Document Extraction node inside n8n');
	out();
	out(`- Date: ${env.date}`);
	out(`- Node.js ${env.node}, ${env.cpuCount} CPU(s) (${env.cpuModel}), ${env.memory} RAM, ${env.platform}`);
	out(`- Service emulator on 127.0.0.1 (separate process from the measured one), processing time T = ${T_MS} ms, Poll Interval ${INTERVAL_S} s`);
	out('- The node runs through n8n-core\'s WorkflowExecute (harness/engine/): Manual Trigger → Files → Document Extraction');
	out(`- Run: \`npm run bench\`${QUICK ? ' (BENCH_QUICK=1)' : ''}; whole benchmark took ${secs(totalMs)}`);
	out();

	// ---- Summary ---------------------------------------------------------------------------
	const c5at50 = find(50, DEFAULT_CONCURRENCY, false);
	const seq50 = seq(50);
	const speedup = seq50 ? seq50.ms / c5at50.wallMs : undefined;
	const memory = p2.find((r) => r.binaryMode === 'default');
	const fsRun = p2.find((r) => r.binaryMode === 'filesystem' && r.fileBytes === FILE_BYTES && r.source !== 'url');
	const fsLarge = p2.find((r) => r.binaryMode === 'filesystem' && r.fileBytes === LARGE_FILE_BYTES && r.source !== 'url');
	const urlRun = p2.find((r) => r.source === 'url' && r.fileBytes === FILE_BYTES);
	const urlLarge = p2.find((r) => r.source === 'url' && r.fileBytes === LARGE_FILE_BYTES);
	const fsLimit = 0.5 * FILE_BYTES;
	const fsGrows = fsLarge ? fsLarge.extra.rss > fsRun.extra.rss * 1.25 + 5 * MB : undefined;
	const fsMet = fsRun.extra.rss <= fsLimit && fsGrows !== true;
	const inNode = p1.filter((r) => !r.perItem);
	const worstPolls = Math.max(...inNode.map((r) => r.service.pollsMax));
	const inFlightOk = inNode.every((r) => r.service.maxInFlight <= r.concurrency);
	const loaded5 = find(50, DEFAULT_CONCURRENCY, false, LATENCY_MS);
	const loaded1 = find(50, 1, false, LATENCY_MS);

	out('## Summary');
	out();
	out('| Figure | Measured | Target | Met |');
	out('|---|---|---|---|');
	out(`| P1 Submit and Wait, 50 items, Max Concurrent Requests ${DEFAULT_CONCURRENCY} | ${secs(c5at50.wallMs)} | ≤ 1.3 × (T + interval) = ${secs(wallLimitMs)} | ${yesNo(c5at50.wallMs <= wallLimitMs)} |`);
	out(`| P1 speed-up over sequential, 50 items | ${speedup ? `${speedup.toFixed(1)}×${seq50.estimated ? ' (sequential estimated from 10 items)' : ''}` : 'n/a'} | ≥ 20× | ${yesNo(speedup === undefined ? undefined : speedup >= 20)} |`);
	out(`| P2 memory mode, peak extra RSS | ${mb(memory.extra.rss)} = ${times(memory.extra.rss / memory.base64Bytes)} base64 | ≤ 2 × base64 (${mb(2 * memory.base64Bytes)}) | ${yesNo(memory.extra.rss <= 2 * memory.base64Bytes)} |`);
	out(`| P2 memory mode, peak extra heap + external | ${mb(memory.extra.js)} = ${times(memory.extra.js / memory.base64Bytes)} base64 | ≤ 2 × base64 | ${yesNo(memory.extra.js <= 2 * memory.base64Bytes)} |`);
	out(`| P2 filesystem mode, peak extra RSS | ${mb(fsRun.extra.rss)} = ${times(fsRun.extra.rss / fsRun.base64Bytes)} base64${fsLarge ? `; ${mb(fsLarge.extra.rss)} for a ${mb(fsLarge.fileBytes)} file` : ''} | bounded well below the file size: ≤ 0.5 × file (${mb(fsLimit)}) and not growing with the file | ${yesNo(fsMet)} |`);
	out(`| P2 filesystem mode, peak extra heap + external | ${mb(fsRun.extra.js)} = ${times(fsRun.extra.js / fsRun.base64Bytes)} base64${fsLarge ? `; ${mb(fsLarge.extra.js)} for ${mb(fsLarge.fileBytes)}` : ''} | (informative, includes garbage not yet collected) | |`);
	if (urlRun) {
		const urlOk = urlRun.extra.rss < urlRun.fileBytes && (!urlLarge || urlLarge.extra.rss < urlRun.fileBytes);
		out(`| P2 filesystem mode, ${mb(urlRun.fileBytes)} document by URL (download + submit), peak extra RSS | ${mb(urlRun.extra.rss)} = ${times(urlRun.extra.rss / urlRun.base64Bytes)} base64${urlLarge ? `; ${mb(urlLarge.extra.rss)} for a ${mb(urlLarge.fileBytes)} file` : ''} | below the file size, whatever the file size (${mb(urlRun.fileBytes)}) | ${yesNo(urlOk)} |`);
	}
	out(`| P3 status requests per task (worst run) | ${worstPolls} | ≤ minimum + 1 = ${minPolls + 1} (minimum ⌈T / interval⌉ + 1 = ${minPolls}) | ${yesNo(worstPolls <= minPolls + 1)} |`);
	out(`| P3 most requests in flight, limit 5 / 1 (${LATENCY_MS} ms latency) | ${loaded5.service.maxInFlight} / ${loaded1.service.maxInFlight} | ≤ limit in every run | ${yesNo(inFlightOk)} |`);
	if (q) {
		out(`| Q queue mode (2 workers) vs regular mode, ${q.documents} documents in ${q.executions} executions | ${secs(q.queue.wallMs)} vs ${secs(q.regular.wallMs)}: ${(q.regular.wallMs / q.queue.wallMs).toFixed(2)}× | (informative) | |`);
	}
	if (p1b) for (const row of p1bSummaryRows(p1b)) out(row);
	if (p4) for (const row of require('./trigger.js').summaryRows(p4)) out(row);
	for (const row of extraRows({ p5, p6 }).summary) out(row);
	if (p7) for (const row of require('./bulk.js').summaryRows(p7)) out(row);
	if (p8) for (const row of require('./attachments.js').summaryRows(p8)) out(row);
	if (p9) for (const row of require('./replay.js').summaryRows(p9)) out(row);
	if (p10) for (const row of require('./production-rows.js').summaryRows(p10)) out(row);
	out();

	// ---- P1 --------------------------------------------------------------------------------
	out('## P1: Submit and Wait wall time');
	out();
	out('Wall time of the whole workflow execution(s). "In one execution": all items go through one run of the node with the given Max Concurrent Requests (with 1, requests are one at a time but the items\' waits still overlap). "Sequential": one workflow execution per item, one after the other.');
	out();
	out(`| Items | In one execution, Max Concurrent Requests ${DEFAULT_CONCURRENCY} | In one execution, Max Concurrent Requests 1 | Sequential | Sequential ÷ concurrent (${DEFAULT_CONCURRENCY}) |`);
	out('|---|---|---|---|---|');
	for (const count of ITEM_COUNTS) {
		const c5 = find(count, DEFAULT_CONCURRENCY, false);
		const c1 = find(count, 1, false);
		const s = seq(count);
		const seqText = s ? `${secs(s.ms)}${s.estimated ? ' (estimated: 5 × the 10-item run)' : ''}` : 'n/a';
		out(`| ${count} | ${secs(c5.wallMs)} | ${secs(c1.wallMs)} | ${seqText} | ${s ? `${(s.ms / c5.wallMs).toFixed(1)}×` : 'n/a'} |`);
	}
	out();

	if (p1b) out(p1bSection(p1b));

	// ---- P2 --------------------------------------------------------------------------------
	out('## P2: peak extra memory while submitting one file (Submit)');
	out();
	out(`Fresh process per row, started with --expose-gc; baseline after a full GC when the node starts (the input item, and in filesystem mode the stored file, already exist); samples of process.memoryUsage() every ${SAMPLE_MS} ms plus the kernel's peak RSS (VmHWM, reset at the baseline). "heap + external" is heapUsed + external (external already includes arrayBuffers, i.e. all Buffers, so they are counted once). The service emulator, which decodes the body, runs in another process.`);
	out();
	out('| Binary mode | File | Base64 | Peak extra RSS | × base64 | Peak extra heap + external | × base64 | of which Buffers (arrayBuffers) | Node time |');
	out('|---|---|---|---|---|---|---|---|---|');
	for (const r of p2) {
		const mode = `${r.binaryMode === 'default' ? 'memory (default)' : 'filesystem'}${r.source === 'url' ? ', by URL (downloaded by the node)' : ''}`;
		out(`| ${mode} | ${mb(r.fileBytes)} | ${mb(r.base64Bytes)} | ${mb(r.extra.rss)} | ${times(r.extra.rss / r.base64Bytes)} | ${mb(r.extra.js)} | ${times(r.extra.js / r.base64Bytes)} | ${mb(r.extra.arrayBuffers)} | ${secs(r.nodeMs)} |`);
	}
	out();

	// ---- P3 --------------------------------------------------------------------------------
	out('## P3: status requests and requests in flight (service side, emulator stats)');
	out();
	out(`Minimum status requests per task: ⌈T / interval⌉ + 1 = ${minPolls}. The node waits one interval before its first status request, so it can need one fewer.`);
	out();
	out('| Run | Tasks | Status requests | Per task (min–max, mean) | Target per task | Max in flight | Limit | Met |');
	out('|---|---|---|---|---|---|---|---|');
	for (const r of inNode) {
		const s = r.service;
		const ok = s.pollsMax <= minPolls + 1 && s.maxInFlight <= r.concurrency;
		out(`| ${r.count} item${r.count === 1 ? '' : 's'}, Max Concurrent Requests ${r.concurrency}${r.latencyMs ? `, ${r.latencyMs} ms service latency` : ''} | ${s.tasks} | ${s.statusRequests} | ${s.pollsMin}–${s.pollsMax}, ${s.pollsMean.toFixed(2)} | ≤ ${minPolls + 1} | ${s.maxInFlight} | ${r.concurrency} | ${yesNo(ok)} |`);
	}
	out();

	// ---- Q ---------------------------------------------------------------------------------
	if (q) {
		out('## Q: queue mode against regular mode');
		out();
		out(`${q.documents} documents through Submit and Wait in ${q.executions} executions of ${q.documents / q.executions} items, all started at once through a production webhook (Webhook → Files → Submit and Wait, Max Concurrent Requests ${DEFAULT_CONCURRENCY}, Poll Interval ${INTERVAL_S} s). Queue mode: n8n main, 2 workers (concurrency 5 each) and a webhook process on PostgreSQL and Redis, all on this machine. Regular mode: one n8n process on the same database. Wall time from the first request to the last execution's stop time; n8n and the emulator share the machine's ${env.cpuCount} CPU(s).`);
		out();
		out('| Mode | Wall time | Executions per process | Tasks | Status requests per task |');
		out('|---|---|---|---|---|');
		for (const [name, r] of [['queue (2 workers)', q.queue], ['regular (1 process)', q.regular]]) {
			out(`| ${name} | ${secs(r.wallMs)} | ${Object.entries(r.perWorker).map(([k, v]) => `${k} ${v}`).join(', ')} | ${r.tasks} | ${r.pollsPerTask.toFixed(2)} |`);
		}
		out();
		out(`Regular ÷ queue wall time: **${(q.regular.wallMs / q.queue.wallMs).toFixed(2)}×**.`);
		out();
	}

	// ---- P4 --------------------------------------------------------------------------------
	if (p4) {
		out(require('./trigger.js').section(p4));
	}
	for (const section of extraRows({ p5, p6 }).sections) out(section);
	if (p7) out(require('./bulk.js').section(p7));
	if (p8) out(require('./attachments.js').section(p8));
	if (p9) out(require('./replay.js').section(p9));
	if (p10) out(require('./production-rows.js').section(p10));

	// ---- Notes -------------------------------------------------------------------------------
	out('## Notes');
	out();
	out('- Filesystem mode: the node streams the stored file, base64-encoding it chunk by chunk, and sends requests without following redirects, so n8n\'s HTTP client keeps no copy of the body (following redirects would keep every chunk written, to replay it). Extra memory stays flat as the file grows.');
	out('- By URL: the node downloads the document as a stream into n8n\'s binary data store (one copy, on disk in filesystem mode), then streams it to the service like a stored input file; both the download and the upload are inside the measurement. The extra RSS is higher than for a stored input file because every chunk read from the download\'s socket is a new Buffer that waits for the garbage collector; it is bounded by V8\'s external memory limit, not by the file (measured on this machine: 18–20 MB for 40 MB, 21–39 MB for 100 MB, 28 MB for 200 MB).');
	out('- Heap + external counts objects until the garbage collector frees them (in filesystem mode mostly chunks already sent); RSS is what the process takes from the system.');
	out('- Memory mode: the one large allocation of the node is the request body Buffer (the base64 copied once, see the Buffers column). Heap + external varies between about 1.0× and 1.35× base64 from run to run: about 17 MB of non-Buffer external memory (V8 external strings) is sometimes already counted at the baseline and sometimes only later.');
	out();
	if (!fsMet) {
		out('## Missed target: filesystem mode');
		out();
		out(`The extra memory grows with the file (${mb(fsRun.extra.rss)} for ${mb(fsRun.fileBytes)}${fsLarge ? `, ${mb(fsLarge.extra.rss)} for ${mb(fsLarge.fileBytes)}` : ''}): the streamed body is being held somewhere between the node and the socket.`);
		out();
	}
	return lines.join('\n');
}

/** The summary rows and sections of the rows P5 and P6 that were measured. */
function extraRows({ p5, p6 }) {
	const pace = require('./pace.js');
	const summary = [];
	const sections = [];
	if (p5) {
		summary.push(...pace.p5SummaryRows(p5));
		sections.push(pace.p5Section(p5));
	}
	if (p6) {
		summary.push(...pace.p6SummaryRows(p6));
		sections.push(pace.p6Section(p6));
	}
	return { summary, sections };
}

/** The summary rows and section of one row measured alone. */
function rowParts(row, figures) {
	if (row === 'P1b') return { rows: p1bSummaryRows(figures), section: p1bSection(figures) };
	if (['P4', 'P7', 'P8', 'P9', 'P10'].includes(row)) {
		const files = { P4: './trigger.js', P7: './bulk.js', P8: './attachments.js', P9: './replay.js', P10: './production-rows.js' };
		const { summaryRows, section } = require(files[row]);
		return { rows: summaryRows(figures), section: section(figures) };
	}
	const parts = extraRows({ [row.toLowerCase()]: figures });
	return { rows: parts.summary, section: parts.sections.join('\n') };
}

/**
 * Puts one row's figures into an existing results file: its summary rows replace the old
 * "| <row> " rows (or follow the summary table's last row), its section replaces the old
 * "## <row>" section (or goes before "## Notes"), and a "- <row> measured on" line joins the
 * header.
 */
function spliceRow(markdown, row, { rows, section }, env, totalMs) {
	const lines = markdown.split('\n');
	const sectionLines = section.split('\n');
	const note = `- ${row} measured on ${env.date} (Node.js ${env.node}, ${env.cpuCount} CPU(s), load average ${env.loadAverage} at the end): \`node bench/run.js --only ${row}\`, took ${secs(totalMs)}`;

	let out = [];
	const summaryStart = lines.indexOf('## Summary');
	let inSummaryTable = false;
	let rowsPlaced = false;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		if (line.startsWith(`- ${row} measured on `)) continue;
		if (i > summaryStart && summaryStart !== -1 && line.startsWith('|')) inSummaryTable = true;
		if (inSummaryTable && line.startsWith(`| ${row} `)) {
			if (!rowsPlaced) out.push(...rows);
			rowsPlaced = true;
			continue;
		}
		if (inSummaryTable && !line.startsWith('|')) {
			if (!rowsPlaced) out.push(...rows);
			rowsPlaced = true;
			inSummaryTable = false;
		}
		out.push(line);
	}
	if (!rowsPlaced) out.unshift(...rows, '');
	// the run line of the header
	const firstBlank = out.indexOf('', out.findIndex((l) => l.startsWith('- ')));
	if (firstBlank > 0) out.splice(firstBlank, 0, note);

	const start = out.findIndex((l) => l.startsWith(`## ${row}:`));
	if (start !== -1) {
		let end = out.findIndex((l, i) => i > start && l.startsWith('## '));
		if (end === -1) end = out.length;
		out.splice(start, end - start, ...sectionLines);
	} else {
		let at = out.indexOf('## Notes');
		if (at === -1) at = out.length;
		out.splice(at, 0, ...sectionLines);
	}
	out = out.join('\n').replace(/\n{3,}/g, '\n\n');
	return out.endsWith('\n') ? out : `${out}\n`;
}

/** P8: email attachments against single-file items (bench/attachments.js). */
async function measureP8(packageRoot, rounds) {
	return await require('./attachments.js').measureAttachments({
		startWorker,
		packageRoot,
		createEmulator,
		tMs: T_MS,
		intervalS: INTERVAL_S,
		rounds,
		log,
	});
}

/** Measures one row that can run alone. */
async function measureRow(row, packageRoot) {
	if (row === 'P1b') return await measureP1b({ packageRoot, rounds: positive('BENCH_P1B_ROUNDS', 3) });
	if (row === 'P5') return await require('./pace.js').measureRateLimit({ startWorker, packageRoot, log });
	if (row === 'P6') return await require('./pace.js').measureUrlItems({ startWorker, packageRoot, log });
	if (row === 'P8') return await measureP8(packageRoot, positive('BENCH_P8_ROUNDS', 3));
	if (row === 'P9') return await require('./replay.js').measureReplay({ packageRoot, log });
	if (row === 'P7' || row === 'P10') {
		loadRuntime();
		if (row === 'P10') return await require('./production-rows.js').measureRows({ log });
		return await require('./bulk.js').measureBulk({ log });
	}
	const emu = await createEmulator({ port: 0, processingMs: T_MS });
	try {
		return await measureP4(emu);
	} finally {
		await emu.close();
	}
}

async function mainOnly() {
	log(`only ${[...ONLY].join(', ')}`);
	const needsPackage = ['P1b', 'P5', 'P6', 'P8', 'P9'].some((row) => ONLY.has(row));
	const packageRoot = needsPackage ? snapshotPackage() : undefined;
	try {
		for (const row of ROWS.filter((r) => ONLY.has(r))) {
			const started = performance.now();
			const figures = await measureRow(row, packageRoot);
			const totalMs = performance.now() - started;
			const parts = rowParts(row, figures);
			process.stdout.write(`${parts.rows.join('\n')}\n\n${parts.section}\n`);
			if (OUTPUT !== '-') {
				const previous = fs.existsSync(OUTPUT) ? fs.readFileSync(OUTPUT, 'utf8') : '# Benchmark: Document Extraction node inside n8n\n\n## Summary\n\n| Figure | Measured | Target | Met |\n|---|---|---|---|\n\n';
				fs.writeFileSync(OUTPUT, spliceRow(previous, row, parts, environment(), totalMs));
				log(`${row} written into ${path.relative(process.cwd(), OUTPUT)}`);
			}
		}
	} finally {
		if (packageRoot) fs.rmSync(packageRoot, { recursive: true, force: true });
	}
}

async function main() {
	if (ONLY) return await mainOnly();
	const started = performance.now();
	const packageRoot = snapshotPackage();
	const emu = await createEmulator({ port: 0, processingMs: T_MS, maxBodyBytes: 400 * 1024 * 1024 });
	log(`emulator on ${emu.url}, T = ${T_MS} ms, poll interval ${INTERVAL_S} s${QUICK ? ', quick' : ''}`);
	let worker;
	try {
		worker = await startWorker(packageRoot);
		const p1 = await measureP1(emu, worker);
		await worker.stop();
		worker = undefined;
		const p1b = await measureP1b({ packageRoot, rounds: positive('BENCH_P1B_ROUNDS', 1) });
		const p2 = await measureP2(emu, packageRoot);
		const q = QUEUE ? await measureQ(emu) : undefined;
		const p4 = P4 ? await measureP4(emu) : undefined;
		const pace = require('./pace.js');
		const p5 = P5 ? await pace.measureRateLimit({ startWorker, packageRoot, log }) : undefined;
		const p6 = P6 ? await pace.measureUrlItems({ startWorker, packageRoot, log }) : undefined;
		if (P7) loadRuntime();
		const p7 = P7 ? await require('./bulk.js').measureBulk({ log }) : undefined;
		const p8 = P8 ? await measureP8(packageRoot, positive('BENCH_P8_ROUNDS', 1)) : undefined;
		const p9 = P9 ? await require('./replay.js').measureReplay({ packageRoot, log }) : undefined;
		if (P10) loadRuntime();
		const p10 = P10 ? await require('./production-rows.js').measureRows({ log }) : undefined;
		const markdown = report(environment(), p1, p2, performance.now() - started, q, p4, p5, p6, p7, p1b, p8, p9, p10);
		process.stdout.write(`${markdown}\n`);
		if (OUTPUT !== '-') {
			fs.writeFileSync(OUTPUT, `${markdown}\n`);
			log(`written to ${path.relative(process.cwd(), OUTPUT)}`);
		}
	} finally {
		worker?.kill();
		await emu.close();
		fs.rmSync(packageRoot, { recursive: true, force: true });
	}
}

main().catch((error) => {
	process.stderr.write(`[bench] failed: ${error.stack || error}\n`);
	process.exitCode = 1;
});
