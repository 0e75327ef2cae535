'use strict';

/**
 * What the emulator's test files share: one emulator on 127.0.0.1 per file, reset after every
 * test (useEmulator), and the calls the tests make to it.
 */

const http = require('node:http');
const crypto = require('node:crypto');

const { createEmulator } = require('../../emulator/server.js');

const KEY = 'vnd_test_key';
const INVOICES_ID = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c';
const IDENTITY_ID = '8a4b6c2d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
const PROCESSING_MS = 120;
const TIME_SCALE = 0.01;

/** The emulator of the running test file (set by useEmulator's beforeAll). */
const env = { emu: undefined };

/** Starts an emulator for the test file, resets it after each test and closes it at the end. */
function useEmulator() {
	beforeAll(async () => {
		env.emu = await createEmulator({
			port: 0,
			processingMs: PROCESSING_MS,
			timeScale: TIME_SCALE,
			log: process.env.EMU_DEBUG ? (l) => process.stderr.write(l + '\n') : false,
		});
	});

	afterAll(async () => {
		await env.emu.close();
	});

	afterEach(async () => {
		await fetch(`${env.emu.url}/_emulator/reset`, { method: 'POST' });
	});
	return env;
}

async function call(pathname, { method = 'GET', body, key = KEY, raw, base = env.emu.url } = {}) {
	const headers = {};
	if (key !== null) headers.Authorization = `Bearer ${key}`;
	let payload;
	if (raw !== undefined) payload = raw;
	else if (body !== undefined) payload = JSON.stringify(body);
	if (payload !== undefined) headers['Content-Type'] = 'application/json';
	const res = await fetch(`${base}${pathname}`, { method, headers, body: payload });
	const text = await res.text();
	let json = null;
	try {
		json = JSON.parse(text);
	} catch {
		json = null;
	}
	return { status: res.status, headers: res.headers, json, text };
}

const admin = (pathname, body, method = body === undefined ? 'GET' : 'POST') =>
	call(`/_emulator${pathname}`, { method, body, key: null });

function sha256(buf) {
	return crypto.createHash('sha256').update(buf).digest('hex');
}

function submit(file, extra = {}) {
	return call('/process_file', {
		method: 'POST',
		body: {
			file_base64: Buffer.from(file).toString('base64'),
			project: 'Invoices',
			document_type: 'invoice',
			...extra,
		},
	});
}

async function waitFor(check, { timeoutMs = 5000, intervalMs = 10 } = {}) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value) return value;
		if (Date.now() > deadline) throw new Error('condition not met in time');
		await new Promise((r) => setTimeout(r, intervalMs));
	}
}

async function waitTerminal(taskId) {
	return waitFor(async () => {
		const r = await call(`/task_status/${taskId}`);
		return ['complete', 'failed'].includes(r.json.status) ? r.json : null;
	});
}

/** A webhook receiver on 127.0.0.1 recording raw bodies and arrival times. */
async function startReceiver(answer = () => ({ status: 200, body: '{"ok":true}' })) {
	const requests = [];
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const entry = {
				at: performance.now(),
				method: req.method,
				url: req.url,
				headers: req.headers,
				raw: Buffer.concat(chunks),
			};
			requests.push(entry);
			const a = answer(entry, requests.length);
			if (a === null) return; // never answer
			res.writeHead(a.status, { 'Content-Type': 'application/json' });
			res.end(a.body || '');
		});
	});
	await new Promise((r) => server.listen(0, '127.0.0.1', r));
	const url = `http://127.0.0.1:${server.address().port}`;
	return {
		url,
		requests,
		close: () =>
			new Promise((r) => {
				server.close(() => r());
				server.closeAllConnections();
			}),
	};
}

async function registerWebhook(projectId, url, secret, events = ['task.completed']) {
	return call(`/projects/${projectId}/webhooks`, { method: 'POST', body: { url, events, secret } });
}


module.exports = {
	KEY,
	INVOICES_ID,
	IDENTITY_ID,
	PROCESSING_MS,
	TIME_SCALE,
	useEmulator,
	call,
	admin,
	sha256,
	submit,
	waitFor,
	waitTerminal,
	startReceiver,
	registerWebhook,
};
