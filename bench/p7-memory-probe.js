'use strict';

/**
 * Memory probe for benchmark row P7, preloaded into the measured `n8n execute` process
 * (`node --expose-gc --require bench/p7-memory-probe.js n8n execute ...`; bench/bulk.js does this
 * with BENCH_P7_MEMORY=1). Every P7_MEMORY_EVERY_MS (1000) it runs a full garbage collection and
 * records what is still alive (heap used, external memory, ArrayBuffers) next to the resident
 * set, and every 50 ms the resident set and heap before any collection. At exit it writes one
 * JSON object to P7_MEMORY_FILE: the peak of every figure, and the sample with the most live heap.
 *
 * So the peak splits into memory the process holds (alive after a full collection: run data,
 * items, agents) and garbage the collector had not yet freed. The forced collections slow the
 * run down: times from a probed run are not figures.
 */

const fs = require('node:fs');
const v8 = require('node:v8');

const file = process.env.P7_MEMORY_FILE;
const every = Number(process.env.P7_MEMORY_EVERY_MS || 1000);
if (file && typeof global.gc === 'function') {
	const peak = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
	const live = { heapUsed: 0, external: 0, arrayBuffers: 0, rss: 0 };
	let atLivePeak;
	const samples = [];
	const started = Date.now();
	const quick = setInterval(() => {
		const m = process.memoryUsage();
		for (const key of Object.keys(peak)) peak[key] = Math.max(peak[key], m[key]);
	}, 50);
	const collect = setInterval(() => {
		global.gc();
		const m = process.memoryUsage();
		samples.push({ t: Date.now() - started, rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers });
		for (const key of Object.keys(live)) live[key] = Math.max(live[key], m[key]);
		if (!atLivePeak || m.heapUsed >= atLivePeak.heapUsed) {
			atLivePeak = {
				t: Date.now() - started,
				...m,
				spaces: Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size])),
			};
		}
	}, every);
	quick.unref();
	collect.unref();
	process.on('exit', () => {
		fs.writeFileSync(file, JSON.stringify({ peak, live, atLivePeak, samples }));
	});
}
