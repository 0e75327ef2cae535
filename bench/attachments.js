'use strict';
/**
 * P8: email attachments. 500 items of 2 attachments each (binary fields attachment_0 and
 * attachment_1, Files to Send → All Binary Fields) against 1,000 single-file items (Input
 * Binary Field "data"), each through Submit and Wait in one execution of n8n-core's engine
 * (memory binary mode, Max Concurrent Requests 5), the same 1,000 documents either way, a fresh
 * worker process per run, the two shapes alternating in every round on one emulator.
 * Tasks created (= 1,000 both ways), output items, wall time and their ratio, medians.
 *
 *   BENCH_P8_ROUNDS   rounds (3 alone, 1 in the full benchmark)
 */

const os = require('node:os');

const { emulatorAdmin: admin, median } = require('./common.js');

const SHAPES = [
	{ name: '500 items × 2 attachments', items: 500, filesPerItem: 2 },
	{ name: '1,000 items × 1 file', items: 1000, filesPerItem: 1 },
];
const DOCUMENTS = 1000;
const CONCURRENCY = 5;

const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;

async function measureAttachments({
	startWorker,
	packageRoot,
	createEmulator,
	tMs,
	intervalS,
	rounds,
	log,
}) {
	const emu = await createEmulator({ port: 0, processingMs: tMs });
	const runs = [];
	try {
		for (let round = 1; round <= rounds; round++) {
			const order = round % 2 ? SHAPES : [...SHAPES].reverse();
			for (const shape of order) {
				await admin(emu, 'POST', 'reset');
				log(`P8 round ${round}, ${shape.name} ...`);
				const worker = await startWorker(packageRoot);
				try {
					const result = await worker.run({
						kind: 'attachments',
						url: emu.url,
						items: shape.items,
						filesPerItem: shape.filesPerItem,
						concurrency: CONCURRENCY,
						intervalS,
					});
					const stats = await admin(emu, 'GET', 'stats');
					const tasks = stats.requests.process_file;
					if (result.complete !== DOCUMENTS || tasks !== DOCUMENTS) {
						throw new Error(
							`P8 ${shape.name}: ${result.complete} complete items, ${tasks} uploads (expected ${DOCUMENTS})`,
						);
					}
					log(`  ${secs(result.wallMs)}; ${tasks} tasks, ${result.outputItems} output items`);
					runs.push({
						round,
						shape: shape.name,
						wallMs: result.wallMs,
						tasks,
						outputItems: result.outputItems,
						load: os.loadavg()[0],
					});
				} finally {
					await worker.stop();
				}
			}
		}
	} finally {
		await emu.close();
	}
	return { runs, rounds, tMs, intervalS };
}

function summaryRows(p8) {
	const med = (shape) => median(p8.runs.filter((r) => r.shape === shape.name).map((r) => r.wallMs));
	const [email, single] = SHAPES.map(med);
	const tasks = SHAPES.map((shape) => p8.runs.find((r) => r.shape === shape.name).tasks);
	return [
		`| P8 ${DOCUMENTS} documents as 500 items × 2 attachments vs 1,000 single-file items, Submit and Wait in one execution, Max Concurrent Requests ${CONCURRENCY} (median of ${p8.rounds}) | ${secs(email)} vs ${secs(single)} = **${(email / single).toFixed(2)}×**; tasks ${tasks[0]} / ${tasks[1]} | tasks = ${DOCUMENTS} both ways (time stated) | ${tasks.every((t) => t === DOCUMENTS) ? '**yes**' : '**NO**'} |`,
	];
}

function section(p8) {
	const lines = ['## P8: email attachments, 500 items of 2 files against 1,000 items of 1', ''];
	lines.push(
		`The same ${DOCUMENTS} small PDFs through Submit and Wait in one execution of n8n-core's engine (memory binary mode, Max Concurrent Requests ${CONCURRENCY}, Poll Interval ${p8.intervalS} s, T = ${p8.tMs} ms): as 500 items with binary fields attachment_0 and attachment_1 (Files to Send → All Binary Fields), and as 1,000 items with one field "data" (Input Binary Field, the default). A fresh worker process per run, the two alternating in every round on one emulator. Tasks are the emulator's process_file requests.`,
	);
	lines.push('');
	lines.push('| Input | Round | Wall time | Tasks | Output items | Load |');
	lines.push('|---|---|---|---|---|---|');
	for (const r of p8.runs)
		lines.push(
			`| ${r.shape} | ${r.round} | ${secs(r.wallMs)} | ${r.tasks} | ${r.outputItems} | ${r.load.toFixed(1)} |`,
		);
	for (const shape of SHAPES) {
		const values = p8.runs.filter((r) => r.shape === shape.name).map((r) => r.wallMs);
		lines.push(
			`| ${shape.name} | **median** | **${secs(median(values))}** (${secs(Math.min(...values))}–${secs(Math.max(...values))}) | | | |`,
		);
	}
	lines.push('');
	return lines.join('\n');
}

module.exports = { measureAttachments, summaryRows, section };
