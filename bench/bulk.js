'use strict';
/**
 * Row P7 of the benchmark: many small documents through Submit and Wait in one execution of a
 * real n8n (`n8n execute`, the packed package installed as a community package), against a bare
 * Node.js client with keep-alive that sends the same requests to the same emulator process,
 * one after the other on the same machine. A third run sends the same requests through a
 * minimal node that only calls n8n's request helper (the helper's floor, bench/floor-node/).
 *
 *   BENCH_P7_COUNTS         item counts (default 2000,10000)
 *   BENCH_P7_ROUNDS         rounds per count (default 3); figures are medians over the rounds
 *   BENCH_P7_PROCESSING_MS  the emulator's processing time (default 1000: below the poll
 *                           interval, so each task needs exactly one status request)
 *   BENCH_P7_INTERVAL_S     Poll Interval (default 2)
 *   BENCH_P7_FLOOR=0        skips the helper-floor runs
 *   BENCH_P7_BASELINE=0     skips the memory baseline (the workflow without the node)
 *   BENCH_P7_CPU_PROF=<dir> runs n8n with --cpu-prof into <dir> (one profile per run)
 *   BENCH_P7_PACKAGE_DIR    the package to measure (default: this checkout; it must be built)
 *   BENCH_P7_MEMORY=1       runs n8n with bench/p7-memory-probe.js (a full garbage collection
 *                           every second): what is alive at the peak, against garbage; its
 *                           times are not figures
 *
 * Times: the node's execution time (n8n's executionTime of the node in the run data) against
 * the bare client's wall time from its first request to its last answer. Both use 5 requests
 * in flight, the same poll interval and status checks before queued uploads. Memory: the peak
 * resident set of the `n8n execute` process (sampled VmHWM), minus that of the same workflow
 * without the Document Extraction node (the input items alone), against the size of the node's
 * output items as JSON.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { installPackage, waitReady } = require('../scripts/n8n-local.js');
const { freePort, n8nProcessEnv, parseRun } = require('../harness/n8n.js');
const { packPackage } = require('../harness/pack.js');
const { emulatorAdmin: admin, median, positive } = require('./common.js');

const ROOT = path.resolve(__dirname, '..');
/** The package measured: this checkout, or another built one (BENCH_P7_PACKAGE_DIR, to compare with an earlier commit). */
const PACKAGE_DIR = path.resolve(process.env.BENCH_P7_PACKAGE_DIR || ROOT);
const COUNTS = (process.env.BENCH_P7_COUNTS || '2000,10000').split(',').map(Number);
const ROUNDS = positive('BENCH_P7_ROUNDS', 3);
const PROCESSING_MS = positive('BENCH_P7_PROCESSING_MS', 1000);
const INTERVAL_S = positive('BENCH_P7_INTERVAL_S', 2);
const FLOOR = process.env.BENCH_P7_FLOOR !== '0';
const BASELINE = process.env.BENCH_P7_BASELINE !== '0';
const CPU_PROF = process.env.BENCH_P7_CPU_PROF;
const MEMORY = process.env.BENCH_P7_MEMORY === '1';
const CONCURRENCY = 5;
const DOC_BYTES = 2000;
const API_KEY = 'vnd_test_key';
const CRED_ID = 'bulkCredential01';
const ACTION = 'n8n-nodes-document-extraction.documentExtraction';
const FLOOR_TYPE = 'n8n-nodes-docex-floor.docexFloor';
const MB = 1e6;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes) => `${(bytes / MB).toFixed(0)} MB`;
const kb = (bytes) => `${(bytes / 1000).toFixed(0)} kB`;


/** Code node: `count` items of about DOC_BYTES each (a name and the base64), then Convert to File. */
function inputNodes(count) {
	const code = [
		`const out = [];`,
		`for (let i = 0; i < ${count}; i++) {`,
		`  const text = '%PDF-1.7\\n% bulk document ' + i + '\\n' + 'x'.repeat(${DOC_BYTES - 40}) + '\\n%%EOF\\n';`,
		`  out.push({ json: { name: 'doc-' + i + '.pdf', b64: Buffer.from(text).toString('base64') } });`,
		`}`,
		`return out;`,
	].join('\n');
	return [
		{ name: 'Documents', type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode: code } },
		{
			name: 'To File',
			type: 'n8n-nodes-base.convertToFile',
			typeVersion: 1.1,
			parameters: {
				operation: 'toBinary',
				sourceProperty: 'b64',
				binaryPropertyName: 'data',
				options: { fileName: '={{ $json.name }}', mimeType: 'application/pdf' },
			},
		},
	];
}

function workflow(id, nodes) {
	const all = [{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} }, ...nodes].map(
		(n, i) => ({ id: `${id}-${i}`, position: [i * 220, 0], ...n }),
	);
	const connections = {};
	for (let i = 0; i < all.length - 1; i++) {
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	}
	return { id, name: id, nodes: all, connections, settings: { executionOrder: 'v1' }, active: false, pinData: {} };
}

const credentials = { documentExtractionApi: { id: CRED_ID, name: 'Bulk benchmark' } };

function workflows(count, serviceUrl) {
	const extract = {
		name: 'Extract',
		type: ACTION,
		typeVersion: 1,
		credentials,
		parameters: {
			resource: 'document',
			operation: 'submitAndWait',
			project: { __rl: true, mode: 'id', value: 'Invoices' },
			documentType: 'invoice',
			output: 'result',
			options: { pollInterval: INTERVAL_S, maxConcurrency: CONCURRENCY },
		},
	};
	const floor = {
		name: 'Extract',
		type: FLOOR_TYPE,
		typeVersion: 1,
		credentials,
		parameters: { baseUrl: serviceUrl, apiKey: API_KEY, pollIntervalS: INTERVAL_S, concurrency: CONCURRENCY },
	};
	return {
		node: workflow(`bulkNode${count}`, [...inputNodes(count), extract]),
		floor: workflow(`bulkFloor${count}`, [...inputNodes(count), floor]),
		baseline: workflow(`bulkBase${count}`, inputNodes(count)),
	};
}

/** Peak resident set of a process (VmHWM), in bytes. */
function peakRssOf(pid) {
	try {
		const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
		return m ? Number(m[1]) * 1024 : undefined;
	} catch {
		return undefined;
	}
}

class Bench {
	constructor(log) {
		this.log = log;
		this.node24 = process.env.NODE24;
		this.n8nBin = process.env.N8N_BIN;
		if (!this.node24 || !this.n8nBin) throw new Error('P7 needs NODE24 and N8N_BIN (scripts/ensure-runtime.sh)');
		this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-bulk-'));
		this.userFolder = path.join(this.tmp, 'home');
	}

	async env() {
		return n8nProcessEnv(this.userFolder, { N8N_PORT: String(await freePort()) });
	}

	/** Runs the n8n CLI, sampling the process's peak resident set while it runs. */
	async cli(args, { cpuProf, memoryFile } = {}) {
		const nodeArgs = cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [];
		if (memoryFile) nodeArgs.push('--expose-gc', '--require', path.join(__dirname, 'p7-memory-probe.js'));
		// A file, not a pipe: n8n exits right after printing the run, and writes to a pipe are
		// asynchronous, so the end of a large run would be lost.
		const outFile = path.join(this.tmp, 'cli-output.txt');
		const fd = fs.openSync(outFile, 'w');
		const child = spawn(this.node24, [...nodeArgs, this.n8nBin, ...args], {
			env: { ...(await this.env()), ...(memoryFile ? { P7_MEMORY_FILE: memoryFile } : {}) },
			cwd: this.tmp,
			stdio: ['ignore', fd, 'pipe'],
		});
		fs.closeSync(fd);
		let errors = '';
		child.stderr.on('data', (d) => (errors += d));
		let peak = 0;
		const sampler = setInterval(() => (peak = Math.max(peak, peakRssOf(child.pid) ?? 0)), 50);
		const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? s)));
		clearInterval(sampler);
		const output = fs.readFileSync(outFile, 'utf8');
		fs.rmSync(outFile);
		if (code !== 0 && !args.includes('execute')) {
			throw new Error(`n8n ${args.join(' ')} exited ${code}:\n${(output + errors).slice(-3000)}`);
		}
		return { code, output, errors, peakRss: peak };
	}

	async setup() {
		const nodesDir = path.join(this.userFolder, '.n8n', 'nodes');
		fs.mkdirSync(nodesDir, { recursive: true });
		installPackage(packPackage(this.tmp, PACKAGE_DIR), nodesDir);
		if (FLOOR) installPackage(packPackage(this.tmp, path.join(__dirname, 'floor-node')), nodesDir);

		const port = await freePort();
		this.emu = { url: `http://127.0.0.1:${port}` };
		this.emulator = spawn(this.node24, [path.join(ROOT, 'emulator/server.js')], {
			env: { ...process.env, EMULATOR_PORT: String(port), EMULATOR_PROCESSING_MS: String(PROCESSING_MS) },
			stdio: ['ignore', 'ignore', 'inherit'],
		});
		await waitReady(`${this.emu.url}/_emulator/health`, 30000, () => this.emulator.exitCode === null);

		const credFile = path.join(this.tmp, 'credentials.json');
		fs.writeFileSync(
			credFile,
			JSON.stringify([
				{ id: CRED_ID, name: 'Bulk benchmark', type: 'documentExtractionApi', data: { apiKey: API_KEY, baseUrl: this.emu.url } },
			]),
		);
		await this.cli(['import:credentials', `--input=${credFile}`]);
		const dir = path.join(this.tmp, 'workflows');
		fs.mkdirSync(dir);
		for (const count of COUNTS) {
			for (const wf of Object.values(workflows(count, this.emu.url))) {
				fs.writeFileSync(path.join(dir, `${wf.id}.json`), JSON.stringify(wf));
			}
		}
		await this.cli(['import:workflow', '--separate', `--input=${dir}`]);
	}

	async polls() {
		const stats = await admin(this.emu, 'GET', 'stats');
		const tasks = stats.requests.process_file;
		return { tasks, pollsPerTask: tasks ? stats.requests.task_status / tasks : 0, maxInFlight: stats.max_in_flight };
	}

	/** One `n8n execute` of a workflow: the Extract node's execution time, its items, the process's peak RSS. */
	async runN8n(workflowId, count, label) {
		await admin(this.emu, 'POST', 'reset');
		const cpuProf = CPU_PROF ? path.resolve(CPU_PROF, label) : undefined;
		const memoryFile = MEMORY ? path.join(this.tmp, `memory-${label}.json`) : undefined;
		const { code, output, errors, peakRss } = await this.cli(['execute', `--id=${workflowId}`], { cpuProf, memoryFile });
		const memory = memoryFile && fs.existsSync(memoryFile) ? JSON.parse(fs.readFileSync(memoryFile, 'utf8')) : undefined;
		if (memory) {
			const { live, peak, atLivePeak } = memory;
			this.log(`  ${label}: peak RSS ${mb(peak.rss)}, heap ${mb(peak.heapUsed)} (total ${mb(peak.heapTotal)}), external ${mb(peak.external)}; alive after a full GC at most: heap ${mb(live.heapUsed)}, external ${mb(live.external)} (ArrayBuffers ${mb(live.arrayBuffers)}), RSS then ${mb(atLivePeak.rss)}`);
			this.log(`  ${label}: heap spaces at the live peak: ${Object.entries(atLivePeak.spaces).map(([k, v]) => `${k} ${mb(v)}`).join(', ')}`);
			if (process.env.BENCH_P7_MEMORY_KEEP) fs.copyFileSync(memoryFile, path.join(process.env.BENCH_P7_MEMORY_KEEP, `memory-${label}.json`));
		}
		const run = parseRun(output);
		if (!run) throw new Error(`n8n execute --id=${workflowId} printed no run (exit ${code}):\n${(output + errors).slice(-3000)}`);
		const service = await this.polls();
		const extract = run.data.resultData.runData.Extract?.[0];
		if (!extract) return { peakRss, memory, ...service };
		if (extract.error) throw new Error(`${label}: ${extract.error.message}`);
		const items = extract.data.main[0];
		const complete = items.filter((i) => typeof i.json.invoice_number === 'string').length;
		if (complete !== count) throw new Error(`${label}: ${complete} of ${count} items complete`);
		const outputBytes = Buffer.byteLength(JSON.stringify(items));
		// what the node keeps with the execution for a retry (its context), against the whole run data n8n stores
		const kept = run.data.executionData?.contextData?.['node:Extract'];
		const keptBytes = kept ? Buffer.byteLength(JSON.stringify(kept)) : 0;
		const runBytes = Buffer.byteLength(JSON.stringify(run.data));
		return { nodeMs: extract.executionTime, peakRss, outputBytes, keptBytes, runBytes, memory, ...service };
	}

	async runBare(count) {
		await admin(this.emu, 'POST', 'reset');
		const child = spawn(this.node24, [path.join(__dirname, 'bare-client.js')], {
			env: {
				...process.env,
				BARE_URL: this.emu.url,
				BARE_KEY: API_KEY,
				BARE_COUNT: String(count),
				BARE_CONCURRENCY: String(CONCURRENCY),
				BARE_INTERVAL_MS: String(INTERVAL_S * 1000),
				BARE_DOC_BYTES: String(DOC_BYTES),
			},
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		let out = '';
		child.stdout.on('data', (d) => (out += d));
		const code = await new Promise((resolve) => child.on('exit', resolve));
		if (code !== 0) throw new Error(`bare client exited ${code}`);
		const result = JSON.parse(out);
		if (result.complete !== count) throw new Error(`bare client: ${result.complete} of ${count} complete`);
		return { wallMs: result.wallMs, ...(await this.polls()) };
	}

	async close() {
		if (this.emulator && this.emulator.exitCode === null) {
			this.emulator.kill();
			await new Promise((resolve) => this.emulator.once('exit', resolve));
		}
		fs.rmSync(this.tmp, { recursive: true, force: true });
	}
}

/** Measures P7: returns { counts: [{ count, rounds: [...], median }], settings }. */
async function measureBulk({ log }) {
	const bench = new Bench(log);
	try {
		log(`P7 setup in ${bench.tmp} ...`);
		await bench.setup();
		const results = [];
		for (const count of COUNTS) {
			const rounds = [];
			for (let r = 0; r < ROUNDS; r++) {
				const round = { loadBefore: os.loadavg()[0] };
				log(`P7 ${count} items, round ${r + 1}: node ...`);
				round.node = await bench.runN8n(`bulkNode${count}`, count, `node-${count}-${r}`);
				log(`  node ${secs(round.node.nodeMs)}, ${round.node.pollsPerTask.toFixed(2)} polls/task, peak RSS ${mb(round.node.peakRss)}, kept for a retry ${kb(round.node.keptBytes)} of ${mb(round.node.runBytes)} run data`);
				round.bare = await bench.runBare(count);
				log(`  bare client ${secs(round.bare.wallMs)}, ${round.bare.pollsPerTask.toFixed(2)} polls/task`);
				if (FLOOR) {
					round.floor = await bench.runN8n(`bulkFloor${count}`, count, `floor-${count}-${r}`);
					log(`  helper floor ${secs(round.floor.nodeMs)}, ${round.floor.pollsPerTask.toFixed(2)} polls/task`);
				}
				if (BASELINE && r === 0) {
					round.baseline = await bench.runN8n(`bulkBase${count}`, count, `base-${count}-${r}`);
					log(`  without the node: peak RSS ${mb(round.baseline.peakRss)}`);
				}
				round.ratio = round.node.nodeMs / round.bare.wallMs;
				if (round.floor) round.floorRatio = round.node.nodeMs / round.floor.nodeMs;
				round.loadAfter = os.loadavg()[0];
				rounds.push(round);
			}
			results.push({ count, rounds });
		}
		return { results, settings: { processingMs: PROCESSING_MS, intervalS: INTERVAL_S, concurrency: CONCURRENCY, docBytes: DOC_BYTES, rounds: ROUNDS } };
	} finally {
		await bench.close();
	}
}

function summarize({ count, rounds }) {
	const m = (f) => median(rounds.map(f).filter((v) => v !== undefined));
	const range = (f) => {
		const v = rounds.map(f).filter((x) => x !== undefined);
		return [Math.min(...v), Math.max(...v)];
	};
	const baseline = rounds.find((r) => r.baseline)?.baseline;
	const nodePeak = m((r) => r.node.peakRss);
	return {
		count,
		node: m((r) => r.node.nodeMs),
		nodeRange: range((r) => r.node.nodeMs),
		bare: m((r) => r.bare.wallMs),
		bareRange: range((r) => r.bare.wallMs),
		ratio: m((r) => r.ratio),
		ratioRange: range((r) => r.ratio),
		floor: rounds[0].floor ? m((r) => r.floor.nodeMs) : undefined,
		floorRatio: rounds[0].floor ? m((r) => r.floorRatio) : undefined,
		floorRatioRange: rounds[0].floor ? range((r) => r.floorRatio) : undefined,
		polls: Math.max(...rounds.map((r) => r.node.pollsPerTask)),
		barePolls: Math.max(...rounds.map((r) => r.bare.pollsPerTask)),
		maxInFlight: Math.max(...rounds.map((r) => r.node.maxInFlight)),
		nodePeak,
		floorPeak: rounds[0].floor ? m((r) => r.floor.peakRss) : undefined,
		basePeak: baseline?.peakRss,
		extra: baseline ? nodePeak - baseline.peakRss : undefined,
		outputBytes: m((r) => r.node.outputBytes),
		keptBytes: m((r) => r.node.keptBytes),
		runBytes: m((r) => r.node.runBytes),
		load: rounds.map((r) => r.loadAfter.toFixed(1)).join(' / '),
	};
}

function summaryRows(p7) {
	return p7.results.map((res) => {
		const s = summarize(res);
		// Where n8n's helper alone is slower than 2 × the bare client, the target is 1.2 × the helper floor.
		const floorBound = s.floor !== undefined && s.floor / s.bare > 2;
		const timeMet = s.ratio <= 2 || (floorBound && s.floorRatio <= 1.2);
		const met = s.count >= 10000 ? (timeMet && s.polls <= 1.05 ? `**yes**${s.ratio > 2 ? ' (against the helper floor)' : ''}` : '**NO**') : '';
		return `| P7 ${s.count} documents, Submit and Wait in n8n vs a bare keep-alive client (median of ${res.rounds.length}) | node ${secs(s.node)} vs bare ${secs(s.bare)} = **${s.ratio.toFixed(2)}×** (${s.ratioRange.map((x) => x.toFixed(2)).join('–')}×)${s.floor !== undefined ? `; helper floor ${secs(s.floor)} = ${(s.floor / s.bare).toFixed(2)}× bare, node ÷ floor **${s.floorRatio.toFixed(2)}×** (${s.floorRatioRange.map((x) => x.toFixed(2)).join('–')}×)` : ''}; ${s.polls.toFixed(2)} polls per task; peak RSS ${mb(s.nodePeak)}${s.floorPeak ? ` (helper floor ${mb(s.floorPeak)})` : ''}${s.extra !== undefined ? `, ${mb(s.extra)} above the run without the node = ${(s.extra / s.outputBytes).toFixed(2)}× the output items (${mb(s.outputBytes)})` : ''}; kept with the execution for a retry: ${kb(s.keptBytes)} (${(s.keptBytes / s.count).toFixed(0)} bytes a document) of ${mb(s.runBytes)} run data | ${s.count >= 10000 ? 'node ≤ 2 × bare (or ≤ 1.2 × the helper floor where the floor is above 2 × bare), ≤ 1.05 polls per task' : '(stated)'} | ${met} |`;
	});
}

function section(p7) {
	const { settings } = p7;
	const lines = [];
	const out = (l = '') => lines.push(l);
	out('## P7: many small documents, the node in n8n against a bare HTTP client');
	out();
	out(`One execution of Manual Trigger → Code (${settings.docBytes}-byte documents) → Convert to File → Document Extraction (Submit and Wait, Max Concurrent Requests ${settings.concurrency}, Poll Interval ${settings.intervalS} s) in a real n8n (\`n8n execute\`, the packed package installed as a community package, SQLite, filesystem binary mode), against the emulator in its own process with a processing time of ${settings.processingMs} ms (below the poll interval: one status request per task is the minimum). Right after, a bare Node.js client (bench/bare-client.js: keep-alive agent, ${settings.concurrency} requests in flight, status checks before queued uploads, the same interval) sends the same requests to the same emulator process; then the helper floor: a minimal node (bench/floor-node/) that sends the same requests through n8n's \`this.helpers.httpRequest\` with the same limits. Node and floor: n8n's executionTime of the node; bare client: its wall time. Peak RSS: the \`n8n execute\` process's VmHWM; "without the node": the same workflow without the Document Extraction node. Load average (1 min) after each round is given: the machine is shared.`);
	out();
	out('| Documents | Round | Node in n8n | Bare client | Node ÷ bare | Helper floor | Node ÷ floor | Polls per task (node / bare) | Max in flight | Peak RSS (helper floor; without the node) | Output items | Load |');
	out('|---|---|---|---|---|---|---|---|---|---|---|---|');
	for (const res of p7.results) {
		res.rounds.forEach((r, i) => {
			out(`| ${res.count} | ${i + 1} | ${secs(r.node.nodeMs)} | ${secs(r.bare.wallMs)} | ${r.ratio.toFixed(2)}× | ${r.floor ? secs(r.floor.nodeMs) : 'n/a'} | ${r.floorRatio ? `${r.floorRatio.toFixed(2)}×` : 'n/a'} | ${r.node.pollsPerTask.toFixed(2)} / ${r.bare.pollsPerTask.toFixed(2)} | ${r.node.maxInFlight} | ${mb(r.node.peakRss)}${r.floor || r.baseline ? ` (${[r.floor ? `floor ${mb(r.floor.peakRss)}` : '', r.baseline ? `without ${mb(r.baseline.peakRss)}` : ''].filter(Boolean).join('; ')})` : ''} | ${mb(r.node.outputBytes)} | ${r.loadAfter.toFixed(1)} |`);
		});
		const s = summarize(res);
		out(`| ${res.count} | **median** | **${secs(s.node)}** | **${secs(s.bare)}** | **${s.ratio.toFixed(2)}×** | ${s.floor !== undefined ? secs(s.floor) : 'n/a'} | ${s.floorRatio !== undefined ? `${s.floorRatio.toFixed(2)}×` : 'n/a'} | ${s.polls.toFixed(2)} / ${s.barePolls.toFixed(2)} (worst) | ${s.maxInFlight} | ${mb(s.nodePeak)}${s.floorPeak || s.basePeak ? ` (${[s.floorPeak ? `floor ${mb(s.floorPeak)}` : '', s.basePeak ? `without ${mb(s.basePeak)}` : ''].filter(Boolean).join('; ')})` : ''} | ${mb(s.outputBytes)} | |`);
	}
	out();
	return lines.join('\n');
}

module.exports = { measureBulk, summaryRows, section, summarize };
