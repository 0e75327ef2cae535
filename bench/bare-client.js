'use strict';
/**
 * The bare client of benchmark row P7 (bench/bulk.js): what Submit and Wait does, with nothing
 * but Node.js's http module and a keep-alive agent. BARE_COUNT documents of about
 * BARE_DOC_BYTES bytes are submitted to BARE_URL, at most BARE_CONCURRENCY requests in flight,
 * status checks before queued uploads; each task is first checked BARE_INTERVAL_MS after its
 * submission, then every BARE_INTERVAL_MS until it ends. Prints {wallMs, complete} as JSON.
 */
const http = require('node:http');

const url = new URL(process.env.BARE_URL);
const key = process.env.BARE_KEY;
const count = Number(process.env.BARE_COUNT);
const limit = Number(process.env.BARE_CONCURRENCY);
const intervalMs = Number(process.env.BARE_INTERVAL_MS);
const docBytes = Number(process.env.BARE_DOC_BYTES);

const agent = new http.Agent({ keepAlive: true, maxSockets: limit });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let active = 0;
const waiting = { high: [], normal: [] };
async function slot(priority) {
	if (active < limit) {
		active++;
		return;
	}
	await new Promise((resolve) => waiting[priority].push(resolve));
}
function release() {
	const next = waiting.high.shift() ?? waiting.normal.shift();
	if (next) next();
	else active--;
}

function request(method, path, body) {
	return new Promise((resolve, reject) => {
		const req = http.request(
			{
				host: url.hostname,
				port: url.port,
				method,
				path,
				agent,
				headers: {
					Accept: 'application/json',
					Authorization: `Bearer ${key}`,
					...(body ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : {}),
				},
			},
			(res) => {
				const chunks = [];
				res.on('data', (c) => chunks.push(c));
				res.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					if (res.statusCode >= 300) return reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
					resolve(JSON.parse(text));
				});
			},
		);
		req.on('error', reject);
		req.end(body);
	});
}

async function limited(priority, fn) {
	await slot(priority);
	try {
		return await fn();
	} finally {
		release();
	}
}

async function one(i) {
	const text = `%PDF-1.7\n% bulk document ${i}\n${'x'.repeat(docBytes - 40)}\n%%EOF\n`;
	const body = JSON.stringify({
		project: 'Invoices',
		document_type: 'invoice',
		file_base64: Buffer.from(text).toString('base64'),
	});
	const { task_id: taskId } = await limited('normal', () => request('POST', '/process_file', body));
	for (;;) {
		await sleep(intervalMs);
		const task = await limited('high', () => request('GET', `/task_status/${taskId}`));
		if (task.status === 'complete' || task.status === 'failed') return task.status === 'complete';
	}
}

(async () => {
	const started = performance.now();
	const results = await Promise.all(Array.from({ length: count }, (_, i) => one(i)));
	const wallMs = performance.now() - started;
	agent.destroy();
	process.stdout.write(JSON.stringify({ wallMs, complete: results.filter(Boolean).length }));
})().catch((error) => {
	process.stderr.write(`${error.stack}\n`);
	process.exit(1);
});
