'use strict';
/**
 * Benchmark rows P5 and P6 (run by bench/run.js; alone with `node bench/run.js --only P5,P6`):
 *
 * P5  N documents under a limit of R requests per second. The emulator's rate limit (token
 *     bucket, `POST /_emulator/rate_limit {per_second: R, burst: R, retry_after}`) answers 429
 *     beyond R requests a second; N documents go through Submit, and through Submit and Wait
 *     (short processing time, Poll Interval 1 s), in one execution with Max Concurrent
 *     Requests 5, with Retry-After in seconds and without Retry-After. Figures: wall time of
 *     the execution against the physical limit (the requests the service accepted ÷ R), the
 *     429s received (and their share of all requests) and the tasks created (must be N).
 * P6  Many URL items with a limit of k: N URL items (Input Source URL on the emulator's
 *     `/_emulator/files/doc-<i>.pdf?size=<bytes>&delay_ms=<ms>`) through Submit with Max
 *     Concurrent Requests k, n8n's default (memory) binary mode. Figures: the most downloads
 *     open at once (emulator download counts, must be ≤ k), the most service requests in
 *     flight (emulator stats) and the peak extra memory of the worker process (as in P2).
 *
 * Each case runs in a fresh worker process: the node's pace is per credential and per process
 * and remembers a 429 for a minute, so a case must not inherit the previous case's pace.
 *
 *   BENCH_P5_DOCUMENTS      N (default 100)
 *   BENCH_P5_RATE           R, requests per second, also the burst (default 4)
 *   BENCH_P5_CONCURRENCY    Max Concurrent Requests (default 5)
 *   BENCH_P5_PROCESSING_MS  emulator processing time per task for Submit and Wait (default 500)
 *   BENCH_P6_ITEMS          N URL items (default 200)
 *   BENCH_P6_CONCURRENCY    k, Max Concurrent Requests (default 3)
 *   BENCH_P6_FILE_BYTES     size of each file (default 2000000)
 *   BENCH_P6_DELAY_MS       delay before each download answers, so downloads overlap (default 200)
 */
const { createEmulator } = require('../emulator/server.js');
const { emulatorAdmin: admin, positive } = require('./common.js');


const P5_DOCUMENTS = positive('BENCH_P5_DOCUMENTS', 100);
const P5_RATE = positive('BENCH_P5_RATE', 4);
const P5_CONCURRENCY = positive('BENCH_P5_CONCURRENCY', 5);
const P5_PROCESSING_MS = positive('BENCH_P5_PROCESSING_MS', 500);
const P5_POLL_INTERVAL_S = 1;
const P5_WALL_FACTOR = 1.3;
const P5_MAX_429_SHARE = 0.1;
const P6_ITEMS = positive('BENCH_P6_ITEMS', 200);
const P6_CONCURRENCY = positive('BENCH_P6_CONCURRENCY', 3);
const P6_FILE_BYTES = positive('BENCH_P6_FILE_BYTES', 2e6);
const P6_DELAY_MS = positive('BENCH_P6_DELAY_MS', 200);
const SAMPLE_MS = 2;
const MB = 1e6;

const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
const pct = (x) => `${(100 * x).toFixed(1)} %`;
const yesNo = (ok) => (ok === undefined ? 'n/a' : ok ? '**yes**' : '**NO**');
const opName = (operation) => (operation === 'submitAndWait' ? 'Submit and Wait' : 'Submit');
const retryName = (form) => (form === 'none' ? 'no Retry-After' : `Retry-After in ${form}`);
const errorsText = (errors) =>
	Object.entries(errors)
		.map(([message, n]) => `${n} × "${message}"`)
		.join('; ');


/** Runs one job in a fresh worker process and stops it. */
async function inFreshWorker(startWorker, packageRoot, execArgv, job) {
	const worker = await startWorker(packageRoot, execArgv);
	try {
		return await worker.run(job);
	} finally {
		await worker.stop();
	}
}

// ---------------------------------------------------------------------------- P5

function p5Cases() {
	const cases = [];
	for (const retryAfter of ['seconds', 'none']) {
		for (const operation of ['submit', 'submitAndWait']) cases.push({ operation, retryAfter });
	}
	return cases;
}

/** P5: N documents through the node under a rate limit of R requests per second. */
async function measureRateLimit({ startWorker, packageRoot, log }) {
	// The times of the service's answers, to show when the 429s came (the emulator logs each answer).
	let answers = [];
	const emu = await createEmulator({
		port: 0,
		processingMs: P5_PROCESSING_MS,
		log: (line) => {
			const m = /^(?:POST|GET) \/(?:process_file|task_status)\S* -> (\d+) /.exec(line);
			if (m) answers.push({ at: Date.now(), status: Number(m[1]) });
		},
	});
	const runs = [];
	try {
		for (const c of p5Cases()) {
			const label = `${P5_DOCUMENTS} documents, ${opName(c.operation)}, ${P5_RATE}/s, ${retryName(c.retryAfter)}`;
			log(`P5 ${label} ...`);
			await admin(emu, 'POST', 'reset');
			await admin(emu, 'POST', 'rate_limit', { per_second: P5_RATE, burst: P5_RATE, retry_after: c.retryAfter });
			answers = [];
			const result = await inFreshWorker(startWorker, packageRoot, [], {
				kind: 'rateLimited',
				url: emu.url,
				count: P5_DOCUMENTS,
				concurrency: P5_CONCURRENCY,
				operation: c.operation,
				intervalS: P5_POLL_INTERVAL_S,
			});
			const limits = await admin(emu, 'GET', 'limits');
			const stats = await admin(emu, 'GET', 'stats');
			const { tasks } = await admin(emu, 'GET', 'tasks');
			await admin(emu, 'DELETE', 'rate_limit');
			const { accepted, rate_limited: rateLimited } = limits.counts;
			const all = accepted + rateLimited;
			const run = {
				...c,
				...result,
				accepted,
				rateLimited,
				share429: all ? rateLimited / all : 0,
				limitMs: (accepted / P5_RATE) * 1000,
				tasks: tasks.length,
				uploads: stats.requests.process_file,
				statusRequests: stats.requests.task_status,
				maxInFlight: stats.max_in_flight,
				// seconds from the first service answer to each 429
				throttledAt: answers.filter((a) => a.status === 429).map((a) => (a.at - answers[0].at) / 1000),
			};
			run.wallMet = run.wallMs <= P5_WALL_FACTOR * run.limitMs;
			run.share429Met = run.share429 <= P5_MAX_429_SHARE;
			run.tasksMet = run.tasks === P5_DOCUMENTS && run.ok === P5_DOCUMENTS;
			log(
				`  ${secs(run.wallMs)} against ${secs(run.limitMs)} (${(run.wallMs / run.limitMs).toFixed(2)}×); 429s ${rateLimited} of ${all} (${pct(run.share429)}); tasks ${run.tasks}; items ok ${run.ok}, failed ${run.failed}${run.failed ? ` (${errorsText(run.errors)})` : ''}`,
			);
			runs.push(run);
		}
	} finally {
		await emu.close();
	}
	return { runs };
}

function p5SummaryRows(p5) {
	return p5.runs.map((r) => {
		const met = r.wallMet && r.share429Met && r.tasksMet;
		return `| P5 ${P5_DOCUMENTS} documents, ${opName(r.operation)}, limit ${P5_RATE} requests/s (burst ${P5_RATE}), ${retryName(r.retryAfter)}, Max Concurrent Requests ${P5_CONCURRENCY} | wall ${secs(r.wallMs)} = ${(r.wallMs / r.limitMs).toFixed(2)}× the limit (${r.accepted} requests ÷ ${P5_RATE}/s = ${secs(r.limitMs)}); 429s ${r.rateLimited} = ${pct(r.share429)} of ${r.accepted + r.rateLimited} requests; tasks ${r.tasks} | wall ≤ ${P5_WALL_FACTOR} × limit, 429s ≤ ${pct(P5_MAX_429_SHARE)}, tasks = ${P5_DOCUMENTS} | ${yesNo(met)} |`;
	});
}

function p5Section(p5) {
	const lines = [];
	const out = (line = '') => lines.push(line);
	out(`## P5: ${P5_DOCUMENTS} documents under a limit of ${P5_RATE} requests per second`);
	out();
	out(
		`The emulator's rate limit is a token bucket over every service request (\`POST /_emulator/rate_limit {per_second: ${P5_RATE}, burst: ${P5_RATE}, retry_after}\`): beyond it, 429 with \`Retry-After\` (whole seconds, at least 1) or without it. ${P5_DOCUMENTS} small documents go through one execution of the node (Max Concurrent Requests ${P5_CONCURRENCY}, On Error → Continue so that a given-up item is counted, not thrown): Submit, and Submit and Wait with an emulator processing time of ${P5_PROCESSING_MS} ms and Poll Interval ${P5_POLL_INTERVAL_S} s. Each case runs in a fresh worker process (the node's pace is per credential and process). "Limit" is the physical limit: the requests the service accepted (\`GET /_emulator/limits\` counts.accepted) ÷ ${P5_RATE}/s; the bucket starts full (${P5_RATE} tokens), so a perfect client could finish about 1 s (burst ÷ R) before it. 429s are counts.rate_limited; tasks are counted with \`GET /_emulator/tasks\`. Wall time is the whole workflow execution.`,
	);
	out();
	out('| Operation | Retry-After | Wall | Limit (accepted ÷ R) | Wall ÷ limit | 429s / all requests | Share | Uploads (POST) | Status requests | Tasks | Items ok / failed | Max in flight | Met |');
	out('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
	for (const r of p5.runs) {
		const met = r.wallMet && r.share429Met && r.tasksMet;
		out(
			`| ${opName(r.operation)} | ${r.retryAfter === 'none' ? 'omitted' : r.retryAfter} | ${secs(r.wallMs)} | ${secs(r.limitMs)} (${r.accepted} ÷ ${P5_RATE}) | ${(r.wallMs / r.limitMs).toFixed(2)}×${r.wallMet ? '' : ' (> 1.3×)'} | ${r.rateLimited} / ${r.accepted + r.rateLimited} | ${pct(r.share429)}${r.share429Met ? '' : ' (> 10 %)'} | ${r.uploads} | ${r.statusRequests} | ${r.tasks} | ${r.ok} / ${r.failed} | ${r.maxInFlight} | ${yesNo(met)} |`,
		);
	}
	out();
	out('When the 429s came (seconds after the first answer of the service):');
	out();
	for (const r of p5.runs) {
		out(`- ${opName(r.operation)}, ${retryName(r.retryAfter)}: ${r.throttledAt.map((t) => t.toFixed(2)).join(', ') || 'none'}`);
	}
	out();
	const early = (r) => r.throttledAt.filter((t) => t < 1).length;
	const later = (r) => r.throttledAt.filter((t) => t >= 1);
	const counts = p5.runs.map((r) => `${early(r)} + ${later(r).length}`).join(', ');
	out(
		`429s in the first second + later, per case in the order above: ${counts}. The node paces nothing until a 429 reaches it, so its opening requests (up to Max Concurrent Requests at once, each slot sending its next upload as soon as the previous answer frees it) meet the limit together; this cost is fixed per execution, so its share shrinks as N grows. The later ones come where the pace, back at 95 % of the rate where the service throttled and then raised by 1 % per accepted request, goes past the limit again and is cut to 80 %.`,
	);
	const failures = p5.runs.filter((r) => r.failed);
	if (failures.length) {
		out();
		for (const r of failures) out(`- ${opName(r.operation)}, ${retryName(r.retryAfter)}: failed items: ${errorsText(r.errors)}`);
	}
	out();
	return lines.join('\n');
}

// ---------------------------------------------------------------------------- P6

/** P6: one run of `items` URL items, in a fresh worker process. */
async function urlItemsRun(emu, { startWorker, packageRoot, log }, items) {
	log(`P6 ${items} URL items of ${mb(P6_FILE_BYTES)}, Max Concurrent Requests ${P6_CONCURRENCY}, memory binary mode ...`);
	await admin(emu, 'POST', 'reset');
	const result = await inFreshWorker(startWorker, packageRoot, ['--expose-gc'], {
		kind: 'urlItems',
		url: emu.url,
		count: items,
		concurrency: P6_CONCURRENCY,
		fileBytes: P6_FILE_BYTES,
		delayMs: P6_DELAY_MS,
		binaryMode: 'default',
		sampleMs: SAMPLE_MS,
	});
	const limits = await admin(emu, 'GET', 'limits');
	const stats = await admin(emu, 'GET', 'stats');
	const { tasks } = await admin(emu, 'GET', 'tasks');
	const run = {
		...result,
		items,
		concurrency: P6_CONCURRENCY,
		fileBytes: P6_FILE_BYTES,
		delayMs: P6_DELAY_MS,
		downloads: limits.downloads,
		serviceMaxInFlight: stats.max_in_flight,
		uploads: stats.requests.process_file,
		tasks: tasks.length,
	};
	run.downloadsMet = run.downloads.max_in_flight <= P6_CONCURRENCY;
	run.serviceMet = run.serviceMaxInFlight <= P6_CONCURRENCY;
	run.tasksMet = run.tasks === items && run.ok === items;
	log(
		`  downloads at once ${run.downloads.max_in_flight} (of ${run.downloads.total}); service in flight ${run.serviceMaxInFlight}; extra RSS ${mb(run.extra.rss)}, heap+external ${mb(run.extra.js)}; tasks ${run.tasks}; ${secs(run.wallMs)}${run.failed ? `; failed ${run.failed} (${errorsText(run.errors)})` : ''}`,
	);
	return run;
}

/**
 * P6: many URL items with a limit of k, memory mode: N items, and a quarter of N to see
 * whether the memory grows with the number of items.
 */
async function measureUrlItems(options) {
	const emu = await createEmulator({ port: 0, maxBodyBytes: 400 * 1024 * 1024 });
	try {
		const quarter = await urlItemsRun(emu, options, Math.max(1, Math.round(P6_ITEMS / 4)));
		const full = await urlItemsRun(emu, options, P6_ITEMS);
		// Bounded by k, not by N: the N-item peak at most 1.25 × the N/4-item peak + 5 MB (as P2's growth check).
		const memoryMet = full.extra.rss <= 1.25 * quarter.extra.rss + 5 * MB;
		return { runs: [quarter, full], full, quarter, memoryMet };
	} finally {
		await emu.close();
	}
}

function p6SummaryRows(p6) {
	const { full: r, quarter: q } = p6;
	return [
		`| P6 ${r.items} URL items of ${mb(r.fileBytes)}, Max Concurrent Requests ${r.concurrency}: most downloads open at once / most service requests in flight | ${r.downloads.max_in_flight} / ${r.serviceMaxInFlight} (${r.downloads.total} downloads, ${r.tasks} tasks) | ≤ ${r.concurrency} each, tasks = ${r.items} | ${yesNo(r.downloadsMet && r.serviceMet && r.tasksMet)} |`,
		`| P6 the same, memory (default) binary mode: peak extra RSS (heap + external) | ${mb(r.extra.rss)} (${mb(r.extra.js)}) for ${r.items} items; ${mb(q.extra.rss)} (${mb(q.extra.js)}) for ${q.items}; all ${r.items} files would be ${mb(r.items * r.fileBytes)} | not growing with the items: ${r.items}-item peak ≤ 1.25 × the ${q.items}-item peak + 5 MB | ${yesNo(p6.memoryMet)} |`,
	];
}

function p6Section(p6) {
	const { full: r } = p6;
	const lines = [];
	const out = (line = '') => lines.push(line);
	out(`## P6: ${r.items} URL items with a limit of ${r.concurrency}`);
	out();
	out(
		`URL items (Input Source URL) through Submit in one execution (Max Concurrent Requests ${r.concurrency}, n8n's default memory binary mode, Include Downloaded File off), ${r.items} items and a quarter as many. Each item's URL is the emulator's \`/_emulator/files/doc-<i>.pdf?size=${r.fileBytes}&delay_ms=${r.delayMs}\`: a ${mb(r.fileBytes)} PDF answered after ${r.delayMs} ms, so downloads would overlap if the node started them freely. Downloads open at once: \`GET /_emulator/limits\` downloads.max_in_flight (a download counts from its request until its answer is closed, the delay included). Service requests in flight: \`GET /_emulator/stats\` max_in_flight (uploads; a download and its upload share one request slot, so the two figures together stay within k). Memory as in P2: a fresh worker process started with --expose-gc, baseline after a full GC when the node starts, samples of process.memoryUsage() every ${SAMPLE_MS} ms plus the kernel's peak RSS (VmHWM, reset at the baseline).`,
	);
	out();
	out('| Items | File | k | Downloads (total) | Most downloads open at once | Most service requests in flight | Tasks | Items ok / failed | Peak extra RSS | Peak extra heap + external | of which Buffers | Absolute peak RSS | Node time |');
	out('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
	for (const x of p6.runs) {
		out(
			`| ${x.items} | ${mb(x.fileBytes)} | ${x.concurrency} | ${x.downloads.total} | ${x.downloads.max_in_flight}${x.downloadsMet ? '' : ' (> k)'} | ${x.serviceMaxInFlight}${x.serviceMet ? '' : ' (> k)'} | ${x.tasks} | ${x.ok} / ${x.failed} | ${mb(x.extra.rss)} | ${mb(x.extra.js)} | ${mb(x.extra.arrayBuffers)} | ${mb(x.peak.rss)} | ${secs(x.nodeMs)} |`,
		);
	}
	out();
	out(
		`For scale: one file is ${mb(r.fileBytes)} (${mb(Math.ceil(r.fileBytes / 3) * 4)} as base64), k files ${mb(r.concurrency * r.fileBytes)}, all ${r.items} files ${mb(r.items * r.fileBytes)}. ${
			p6.memoryMet
				? 'The extra memory does not grow with the items, so it is not the files held: it is download and upload buffers waiting for the garbage collector, as with one file by URL in P2.'
				: `The extra memory grows with the items (${mb(p6.quarter.extra.rss)} for ${p6.quarter.items}, ${mb(r.extra.rss)} for ${r.items}): something is held per item.`
		}`,
	);
	for (const x of p6.runs.filter((run) => run.failed)) {
		out();
		out(`Failed items (${x.items}-item run): ${errorsText(x.errors)}`);
	}
	out();
	return lines.join('\n');
}

module.exports = { measureRateLimit, measureUrlItems, p5SummaryRows, p5Section, p6SummaryRows, p6Section };
