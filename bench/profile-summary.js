#!/usr/bin/env node
'use strict';
/**
 * Where the CPU of an n8n process went, from a V8 .cpuprofile (`node --cpu-prof`, or
 * BENCH_P7_CPU_PROF for row P7): `node bench/profile-summary.js <file.cpuprofile> [requests]`.
 *
 * Every sample is charged to the nearest frame on its stack (from the leaf up) whose script
 * belongs to a known owner, so Node's own internals (http, net, streams, timers) are charged to
 * whoever called them:
 *   helper   n8n's request helpers and what they use (n8n-core request helpers and credential
 *            handling, @n8n/backend-network, axios, follow-redirects, the credentials helper)
 *   package  this package (n8n-nodes-document-extraction)
 *   engine   the rest of n8n (execution engine, run data, the CLI printing the result)
 *   gc, idle, program (V8's own categories)
 * With `requests`, CPU per request is printed too. The top functions by self time follow.
 */
const fs = require('node:fs');

/** Rules over a sample's whole stack (script URLs and function names, leaf first); the first that matches wins. */
const RULES = [
	['credentials', /cipher\.js|aes-256-gcm|credentials-helper|\/typeorm\/|\/sqlite3\/|getCredentials|getDecrypted|credentials\.js/],
	['helper', /@n8n\/backend-network\/|\/axios\/|follow-redirects|form-data|proxy-from-env|request-helpers\/|request-helper-functions|^node:(_http|http|net|dns|tls|internal\/(http|net|stream_base|dns))/],
	['package', /node_modules\/n8n-nodes-document-extraction\//],
	['floor', /node_modules\/n8n-nodes-docex-floor\//],
	['engine', /\/n8n\/dist\/|\/n8n-core\/|\/n8n-workflow\/|@n8n\//],
];

function summarize(file, requests) {
	const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
	const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
	const parent = new Map();
	for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
	const ownerCache = new Map();
	const stackOf = (id) => {
		const frames = [];
		for (let c = id; c !== undefined; c = parent.get(c)) {
			const f = nodes.get(c).callFrame;
			frames.push(`${f.url} ${f.functionName}`);
		}
		return frames;
	};
	const ownerOf = (id) => {
		if (ownerCache.has(id)) return ownerCache.get(id);
		const { functionName } = nodes.get(id).callFrame;
		const special = { '(garbage collector)': 'gc', '(idle)': 'idle', '(program)': 'program' };
		let owner = Object.hasOwn(special, functionName) ? special[functionName] : undefined;
		if (!owner) {
			const frames = stackOf(id);
			owner = RULES.find(([, re]) => frames.some((f) => re.test(f)))?.[0] ?? 'other';
		}
		ownerCache.set(id, owner);
		return owner;
	};
	// Only the node's own time: from the first sample inside its execute() to the last sample
	// with one of its frames on the stack.
	const NODE = /node_modules\/n8n-nodes-(document-extraction|docex-floor)\//;
	const inNode = (id) => stackOf(id).some((f) => NODE.test(f));
	const inExecute = (id) => stackOf(id).some((f) => NODE.test(f) && / execute$/.test(f));
	const first = profile.samples.findIndex(inExecute);
	let last = profile.samples.length - 1;
	while (last > first && !inNode(profile.samples[last])) last--;
	const deltas = profile.timeDeltas;
	const byOwner = {};
	const self = new Map();
	let total = 0;
	profile.samples.forEach((id, i) => {
		if (i < first || i > last) return;
		const dt = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000; // ms
		const owner = ownerOf(id);
		byOwner[owner] = (byOwner[owner] ?? 0) + dt;
		const f = nodes.get(id).callFrame;
		const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/.*node_modules\//, '')}:${f.lineNumber + 1} [${owner}]`;
		self.set(key, (self.get(key) ?? 0) + dt);
		total += dt;
	});
	const busy = total - (byOwner.idle ?? 0);
	const lines = [`${file}: ${(total / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s busy`];
	for (const [owner, ms] of Object.entries(byOwner).sort((a, b) => b[1] - a[1])) {
		if (owner === 'idle') continue;
		lines.push(
			`  ${owner.padEnd(11)} ${(ms / 1000).toFixed(2).padStart(7)} s  ${((100 * ms) / busy).toFixed(1).padStart(5)} % of busy${requests ? `  ${((1000 * ms) / requests).toFixed(0).padStart(5)} µs per request` : ''}`,
		);
	}
	lines.push('  top functions by self time:');
	for (const [key, ms] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
		lines.push(`    ${(ms / 1000).toFixed(2).padStart(6)} s  ${key}`);
	}
	return lines.join('\n');
}

if (require.main === module) {
	const [file, requests] = process.argv.slice(2);
	process.stdout.write(`${summarize(file, requests ? Number(requests) : undefined)}\n`);
}

module.exports = { summarize };
