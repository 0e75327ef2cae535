'use strict';

const http = require('node:http');
const net = require('node:net');
const dns = require('node:dns');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawn } = require('node:child_process');

const { createEmulator, DEFAULT_PROJECTS } = require('../../emulator/server.js');
const { isLoopbackHost } = require('../../emulator/lib/outbound.js');

const KEY = 'vnd_test_key';
const INVOICES_ID = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c';
const IDENTITY_ID = '8a4b6c2d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
const PROCESSING_MS = 120;
const TIME_SCALE = 0.01;

let emu;

beforeAll(async () => {
	emu = await createEmulator({
		port: 0,
		processingMs: PROCESSING_MS,
		timeScale: TIME_SCALE,
		log: process.env.EMU_DEBUG ? (l) => process.stderr.write(l + '\n') : false,
	});
});

afterAll(async () => {
	await emu.close();
});

afterEach(async () => {
	await fetch(`${emu.url}/_emulator/reset`, { method: 'POST' });
});

// ------------------------------------------------------------------ helpers

async function call(pathname, { method = 'GET', body, key = KEY, raw, base = emu.url } = {}) {
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

// -------------------------------------------------------------------- tests

describe('server basics', () => {
	test('binds to 127.0.0.1 only and answers health', async () => {
		expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(emu.port).toBe(Number(new URL(emu.url).port));
		const health = await admin('/health');
		expect(health).toMatchObject({ status: 200, json: { ok: true } });
		// Not reachable on the IPv6 loopback: the socket is not bound to a wildcard address.
		const reachedV6 = await new Promise((resolve) => {
			const s = net.connect({ host: '::1', port: emu.port });
			s.once('connect', () => {
				s.destroy();
				resolve(true);
			});
			s.once('error', () => resolve(false));
		});
		expect(reachedV6).toBe(false);
	});

	test('rejects invalid options', async () => {
		await expect(createEmulator({ timeScale: 0 })).rejects.toThrow(/timeScale/);
		await expect(createEmulator({ runningStatuses: [] })).rejects.toThrow(/runningStatuses/);
		await expect(createEmulator({ runningStatuses: ['complete'] })).rejects.toThrow(
			/runningStatuses/,
		);
	});

	test('unknown route is 404 and wrong method is 405, both with detail', async () => {
		const r404 = await call('/nope');
		expect(r404.status).toBe(404);
		expect(r404.json.detail).toBe('Not Found');
		const r405 = await call('/process_file');
		expect(r405.status).toBe(405);
		expect(r405.json.detail).toBeTruthy();
	});
});

describe('authentication', () => {
	const endpoints = [
		[
			'POST',
			'/process_file',
			{ file_base64: 'AA==', project: 'Invoices', document_type: 'invoice' },
		],
		['GET', '/task_status/00000000-0000-4000-8000-000000000000', undefined],
		['GET', '/projects', undefined],
		[
			'POST',
			`/projects/${INVOICES_ID}/webhooks`,
			{ url: 'http://127.0.0.1:9/x', events: ['task.completed'], secret: 's' },
		],
	];

	test.each(endpoints)(
		'%s %s: 401 without key, with unknown key or non-Bearer scheme; 402 inactive',
		async (method, p, body) => {
			for (const key of [null, 'vnd_unknown', '']) {
				const r = await call(p, { method, body, key });
				expect(r.status).toBe(401);
				expect(r.json).toEqual({ detail: 'Invalid or missing API key' });
			}
			const basic = await fetch(`${emu.url}${p}`, {
				method,
				headers: { Authorization: `Basic ${KEY}` },
			});
			expect(basic.status).toBe(401);
			const inactive = await call(p, { method, body, key: 'vnd_inactive_key' });
			expect(inactive.status).toBe(402);
			expect(inactive.json).toEqual({ detail: 'Subscription inactive' });
		},
	);

	test('custom keys replace the defaults', async () => {
		const other = await createEmulator({ port: 0, apiKeys: ['vnd_a'], inactiveKeys: ['vnd_b'] });
		try {
			expect((await call('/projects', { key: 'vnd_a', base: other.url })).status).toBe(200);
			expect((await call('/projects', { key: 'vnd_b', base: other.url })).status).toBe(402);
			expect((await call('/projects', { key: KEY, base: other.url })).status).toBe(401);
		} finally {
			await other.close();
		}
	});
});

describe('POST /process_file validation (422)', () => {
	const locs = (r) => r.json.detail.map((e) => e.loc.join('.'));

	test('missing fields are each named', async () => {
		const r = await call('/process_file', { method: 'POST', body: {} });
		expect(r.status).toBe(422);
		expect(r.json.detail).toEqual([
			{ loc: ['body', 'file_base64'], msg: 'field required', type: 'value_error.missing' },
			{ loc: ['body', 'project'], msg: 'field required', type: 'value_error.missing' },
			{ loc: ['body', 'document_type'], msg: 'field required', type: 'value_error.missing' },
		]);
	});

	test('wrong types are each named', async () => {
		const r = await call('/process_file', {
			method: 'POST',
			body: { file_base64: 12, project: ['Invoices'], document_type: null, max_pages: 'two' },
		});
		expect(r.status).toBe(422);
		expect(locs(r)).toEqual([
			'body.file_base64',
			'body.project',
			'body.document_type',
			'body.max_pages',
		]);
		for (const e of r.json.detail) {
			expect(typeof e.msg).toBe('string');
			expect(typeof e.type).toBe('string');
		}
	});

	test.each([
		['not base64', { file_base64: 'abc$def!' }, 'body.file_base64'],
		['misplaced padding', { file_base64: 'QQ==QQ==' }, 'body.file_base64'],
		['impossible length', { file_base64: 'QUJDR' }, 'body.file_base64'],
		['empty file', { file_base64: '' }, 'body.file_base64'],
		['max_pages zero', { max_pages: 0 }, 'body.max_pages'],
		['max_pages fractional', { max_pages: 1.5 }, 'body.max_pages'],
		['max_pages boolean', { max_pages: true }, 'body.max_pages'],
		['empty project', { project: '' }, 'body.project'],
	])('%s', async (_name, override, loc) => {
		const body = {
			file_base64: 'JVBERi0xLjQK',
			project: 'Invoices',
			document_type: 'invoice',
			...override,
		};
		const r = await call('/process_file', { method: 'POST', body });
		expect(r.status).toBe(422);
		expect(locs(r)).toEqual([loc]);
	});

	test('bodies that are not a JSON object', async () => {
		for (const raw of ['{"file_base64": ', 'hello', '[1,2]', 'null', '']) {
			const r = await call('/process_file', { method: 'POST', raw });
			expect(r.status).toBe(422);
			expect(Array.isArray(r.json.detail)).toBe(true);
			expect(r.json.detail[0].loc).toEqual(['body']);
		}
	});

	test('422 is answered before the project is looked up', async () => {
		const r = await call('/process_file', {
			method: 'POST',
			body: { file_base64: '***', project: 'Nope', document_type: 'invoice' },
		});
		expect(r.status).toBe(422);
	});
});

describe('404s', () => {
	test('unknown project, unknown document type, unknown task', async () => {
		const p = await submit('x', { project: 'Payroll' });
		expect(p.status).toBe(404);
		expect(p.json).toEqual({ detail: "Project 'Payroll' not found" });
		const t = await submit('x', { document_type: 'passport' });
		expect(t.status).toBe(404);
		expect(t.json).toEqual({ detail: "Document type 'passport' not found in project 'Invoices'" });
		const id = '5a4b3c2d-0000-4000-8000-000000000000';
		const s = await call(`/task_status/${id}`);
		expect(s.status).toBe(404);
		expect(s.json).toEqual({ detail: `Task '${id}' not found` });
	});

	test('project accepted by id or by case-insensitive name', async () => {
		const byId = await submit('x', { project: IDENTITY_ID, document_type: 'id_card' });
		expect(byId.status).toBe(200);
		const byName = await submit('x', { project: 'iDeNtItY', document_type: 'passport' });
		expect(byName.status).toBe(200);
		const done = await waitTerminal(byName.json.task_id);
		expect(done.result.project_id).toBe(IDENTITY_ID);
		expect(done.result.document_type).toBe('passport');
		expect(done.result.passport_number).toMatch(/^P\d{8}$/);
	});
});

describe('task lifecycle', () => {
	test('running statuses in order, then complete with size and sha256 of the decoded file', async () => {
		const file = crypto.randomBytes(5000);
		const sub = await submit(file, { max_pages: 3 });
		expect(sub.status).toBe(200);
		expect(sub.json.task_id).toMatch(
			/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
		);

		const seen = [];
		let final;
		await waitFor(
			async () => {
				const r = await call(`/task_status/${sub.json.task_id}`);
				expect(r.status).toBe(200);
				if (seen[seen.length - 1] !== r.json.status) seen.push(r.json.status);
				if (r.json.status !== 'complete') {
					expect(r.json.result).toBeNull();
					expect(r.json).not.toHaveProperty('error');
					return false;
				}
				final = r.json;
				return true;
			},
			{ intervalMs: 5 },
		);
		// Polling saw a running status first, then only forward moves, ending complete.
		const order = ['queued', 'processing', 'complete'];
		expect(seen[0]).toBe('queued');
		expect(seen[seen.length - 1]).toBe('complete');
		expect(seen.map((x) => order.indexOf(x))).toEqual(
			[...seen.map((x) => order.indexOf(x))].sort(),
		);
		// The task passed through every running status, in order, splitting the processing time.
		const tasks = (await admin('/tasks')).json.tasks;
		const history = tasks.find((t) => t.task_id === sub.json.task_id).history;
		expect(history.map((h) => h.status)).toEqual(order);
		const stepMs = Date.parse(history[1].at) - Date.parse(history[0].at);
		expect(stepMs).toBeGreaterThanOrEqual(PROCESSING_MS / 2 - 5);
		expect(final.task_id).toBe(sub.json.task_id);
		expect(final).not.toHaveProperty('error');
		expect(new Date(final.created_at).toISOString()).toBe(final.created_at);
		expect(Date.parse(final.updated_at) - Date.parse(final.created_at)).toBeGreaterThanOrEqual(
			PROCESSING_MS - 5,
		);
		expect(final.result).toMatchObject({
			file_size: 5000,
			file_sha256: sha256(file),
			document_type: 'invoice',
			project_id: INVOICES_ID,
			pages: 1,
		});
		expect(final.result.invoice_number).toMatch(/^INV-/);
		expect(typeof final.result.total_amount).toBe('number');
		expect(final.result.fields.invoice_number).toBe(final.result.invoice_number);
		for (const k of ['invoice_date', 'currency', 'vendor_name'])
			expect(final.result[k]).toBeTruthy();
	});

	test('pages follow the PDF page objects, capped by max_pages', async () => {
		const pdf = Buffer.from(
			'%PDF-1.4\n1 0 obj <</Type /Pages /Count 3>>\n2 0 obj <</Type /Page>>\n3 0 obj <</Type/Page>>\n4 0 obj <</Type /Page >>\n%%EOF',
		);
		const all = await submit(pdf);
		const capped = await submit(pdf, { max_pages: 2 });
		expect((await waitTerminal(all.json.task_id)).result.pages).toBe(3);
		expect((await waitTerminal(capped.json.task_id)).result.pages).toBe(2);
	});

	test('a file containing the fail marker ends failed with an error', async () => {
		const file = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('xx EMULATOR_FAIL yy')]);
		const sub = await submit(file, { document_type: 'receipt' });
		expect(sub.status).toBe(200);
		const done = await waitTerminal(sub.json.task_id);
		expect(done.status).toBe('failed');
		expect(done.result).toBeNull();
		expect(done.error).toMatch(/^Extraction failed: .*EMULATOR_FAIL/);
	});

	test('handles a body over 60 MB', async () => {
		const file = Buffer.alloc(46 * 1024 * 1024);
		for (let i = 0; i < file.length; i += 4096) file.writeUInt32LE(i, i);
		const body = JSON.stringify({
			file_base64: file.toString('base64'),
			project: 'Invoices',
			document_type: 'invoice',
		});
		expect(body.length).toBeGreaterThan(60 * 1024 * 1024);
		const r = await call('/process_file', { method: 'POST', raw: body });
		expect(r.status).toBe(200);
		const done = await waitTerminal(r.json.task_id);
		expect(done.result.file_size).toBe(file.length);
		expect(done.result.file_sha256).toBe(sha256(file));
	});

	test('bodies over maxBodyBytes get 413', async () => {
		const small = await createEmulator({ port: 0, maxBodyBytes: 1000 });
		try {
			const r = await call('/process_file', {
				method: 'POST',
				base: small.url,
				body: {
					file_base64: Buffer.alloc(2000).toString('base64'),
					project: 'Invoices',
					document_type: 'invoice',
				},
			});
			expect(r.status).toBe(413);
			expect(r.json.detail).toMatch(/too large/);
		} finally {
			await small.close();
		}
	});
});

describe('GET /projects', () => {
	test('lists the default projects', async () => {
		const r = await call('/projects');
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			projects: [
				{ project_id: INVOICES_ID, name: 'Invoices', document_types: ['invoice', 'receipt'] },
				{ project_id: IDENTITY_ID, name: 'Identity', document_types: ['id_card', 'passport'] },
				{
					project_id: 'c7e2d1f0-4b3a-4e5d-9f8a-1b2c3d4e5f60',
					name: 'Invoices EU – Zürich (2025)',
					document_types: ['invoice'],
				},
			],
		});
		expect(DEFAULT_PROJECTS).toHaveLength(3);
	});
});

describe('webhook registration', () => {
	test.each([
		['url not http(s)', { url: 'ftp://127.0.0.1/x' }, ['body.url']],
		['url not a URL', { url: 'not a url' }, ['body.url']],
		['events empty', { events: [] }, ['body.events']],
		['events unsupported', { events: ['task.completed', 'task.failed'] }, ['body.events.1']],
		['events not a list', { events: 'task.completed' }, ['body.events']],
		['secret empty', { secret: '' }, ['body.secret']],
		['secret wrong type', { secret: 42 }, ['body.secret']],
	])('%s -> 422', async (_n, override, expected) => {
		const body = {
			url: 'http://127.0.0.1:9/hook',
			events: ['task.completed'],
			secret: 'whsec_x',
			...override,
		};
		const r = await call(`/projects/${INVOICES_ID}/webhooks`, { method: 'POST', body });
		expect(r.status).toBe(422);
		expect(r.json.detail.map((e) => e.loc.join('.'))).toEqual(expected);
	});

	test('all fields missing -> each named', async () => {
		const r = await call(`/projects/${INVOICES_ID}/webhooks`, { method: 'POST', body: {} });
		expect(r.status).toBe(422);
		expect(r.json.detail.map((e) => e.loc.join('.'))).toEqual([
			'body.url',
			'body.events',
			'body.secret',
		]);
	});

	test('unknown project -> 404; success -> 201 without the secret', async () => {
		const unknown = await registerWebhook(
			'11111111-2222-4333-8444-555555555555',
			'http://127.0.0.1:9/',
			'whsec_a',
		);
		expect(unknown.status).toBe(404);
		expect(unknown.json.detail).toMatch(/not found/);

		const ok = await registerWebhook(INVOICES_ID, 'https://127.0.0.1:9/hook', 'whsec_secret_value');
		expect(ok.status).toBe(201);
		expect(ok.json).toEqual({
			webhook_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			project_id: INVOICES_ID,
			url: 'https://127.0.0.1:9/hook',
			events: ['task.completed'],
			created_at: expect.any(String),
		});
		expect(ok.text).not.toContain('whsec_secret_value');

		const listed = await admin('/webhooks');
		expect(listed.json.webhooks).toEqual([ok.json]);
		expect(listed.text).not.toContain('whsec_secret_value');
	});
});

describe('admin: delete a webhook registration (as in the dashboard)', () => {
	test('DELETE /_emulator/webhooks/<id> removes it: later events are not delivered to it, others still are', async () => {
		const receiver = await startReceiver();
		try {
			const gone = await registerWebhook(INVOICES_ID, `${receiver.url}/deleted`, 'whsec_gone');
			await registerWebhook(INVOICES_ID, `${receiver.url}/kept`, 'whsec_kept');
			const deleted = await call(`/_emulator/webhooks/${gone.json.webhook_id}`, {
				method: 'DELETE',
				key: null,
			});
			expect(deleted.status).toBe(200);
			expect(deleted.json).toEqual({ deleted: gone.json });
			expect((await admin('/webhooks')).json.webhooks.map((w) => w.url)).toEqual([
				`${receiver.url}/kept`,
			]);
			const sub = await submit(Buffer.from('%PDF-1.7 after deleting a webhook'));
			await waitFor(() => receiver.requests.length >= 1);
			await waitTerminal(sub.json.task_id);
			await new Promise((r) => setTimeout(r, 100));
			expect(receiver.requests.map((r) => r.url)).toEqual(['/kept']);

			const again = await call(`/_emulator/webhooks/${gone.json.webhook_id}`, {
				method: 'DELETE',
				key: null,
			});
			expect(again.status).toBe(404);
			expect(again.json.detail).toMatch(/not found/);
		} finally {
			await receiver.close();
		}
	});
});

describe('webhook delivery', () => {
	test('signed task.completed goes to every webhook of the project', async () => {
		const receiver = await startReceiver();
		try {
			const a = await registerWebhook(INVOICES_ID, `${receiver.url}/a`, 'whsec_alpha');
			const b = await registerWebhook(INVOICES_ID, `${receiver.url}/b?x=1`, 'whsec_beta');
			await registerWebhook(IDENTITY_ID, `${receiver.url}/other-project`, 'whsec_gamma');
			const file = Buffer.from('%PDF-1.7 webhook test');
			const sub = await submit(file);
			await waitFor(() => receiver.requests.length >= 2);
			await new Promise((r) => setTimeout(r, 50));
			expect(receiver.requests.map((r) => r.url).sort()).toEqual(['/a', '/b?x=1']);

			const secrets = { '/a': 'whsec_alpha', '/b?x=1': 'whsec_beta' };
			for (const req of receiver.requests) {
				expect(req.method).toBe('POST');
				expect(req.headers['content-type']).toBe('application/json');
				const expectedSig = crypto
					.createHmac('sha256', secrets[req.url])
					.update(req.raw)
					.digest('hex');
				expect(req.headers['x-service-signature']).toBe(expectedSig);
				const payload = JSON.parse(req.raw.toString('utf8'));
				expect(payload).toEqual({
					event: 'task.completed',
					task_id: sub.json.task_id,
					status: 'complete',
					result: expect.objectContaining({ file_size: file.length, file_sha256: sha256(file) }),
					project_id: INVOICES_ID,
					document_type: 'invoice',
					timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
				});
			}
			const status = await call(`/task_status/${sub.json.task_id}`);
			const payload = JSON.parse(receiver.requests[0].raw.toString('utf8'));
			expect(payload.result).toEqual(status.json.result);

			const d = await admin(`/deliveries?task_id=${sub.json.task_id}`);
			expect(d.json.deliveries.map((x) => x.state)).toEqual(['delivered', 'delivered']);
			expect(d.json.deliveries.map((x) => x.webhook_id).sort()).toEqual(
				[a.json.webhook_id, b.json.webhook_id].sort(),
			);
			expect(d.json.attempts).toHaveLength(2);
			for (const at of d.json.attempts) {
				expect(at).toMatchObject({
					attempt: 1,
					status_code: 200,
					ok: true,
					error: null,
					event: 'task.completed',
					state: 'delivered',
				});
				expect(typeof at.duration_ms).toBe('number');
			}
		} finally {
			await receiver.close();
		}
	});

	test('a failed task is delivered with status failed and result null', async () => {
		const receiver = await startReceiver();
		try {
			await registerWebhook(IDENTITY_ID, `${receiver.url}/hook`, 'whsec_fail');
			await submit('EMULATOR_FAIL', { project: 'Identity', document_type: 'id_card' });
			await waitFor(() => receiver.requests.length === 1);
			const payload = JSON.parse(receiver.requests[0].raw.toString('utf8'));
			expect(payload).toMatchObject({
				event: 'task.completed',
				status: 'failed',
				result: null,
				document_type: 'id_card',
			});
		} finally {
			await receiver.close();
		}
	});

	test('retries after 1, 4, 16 s (scaled) on 500 and ends failed after 4 attempts', async () => {
		const receiver = await startReceiver(() => ({ status: 500, body: '{"error":"boom"}' }));
		try {
			const hook = await registerWebhook(INVOICES_ID, `${receiver.url}/retry`, 'whsec_retry');
			await submit('retry me');
			const delivery = await waitFor(async () => {
				const d = await admin('/deliveries');
				return d.json.deliveries.find(
					(x) => x.webhook_id === hook.json.webhook_id && x.state === 'failed',
				);
			});
			expect(receiver.requests).toHaveLength(4);
			const times = receiver.requests.map((r) => r.at);
			const gaps = [times[1] - times[0], times[2] - times[1], times[3] - times[2]];
			const expected = [1000, 4000, 16000].map((ms) => ms * TIME_SCALE);
			// Each retry waits at least its scheduled delay (timers never fire early) and not much longer.
			gaps.forEach((gap, i) => {
				expect(gap).toBeGreaterThanOrEqual(expected[i] - 2);
				expect(gap).toBeLessThan(expected[i] + 250);
			});
			expect(gaps[2]).toBeGreaterThan(gaps[0]);
			// the same signed bytes are sent each time
			expect(new Set(receiver.requests.map((r) => r.raw.toString('hex'))).size).toBe(1);

			expect(delivery.attempts).toBe(4);
			const d = await admin('/deliveries');
			const attempts = d.json.attempts.filter((x) => x.delivery_id === delivery.delivery_id);
			expect(attempts.map((x) => x.attempt)).toEqual([1, 2, 3, 4]);
			for (const at of attempts)
				expect(at).toMatchObject({ status_code: 500, ok: false, state: 'failed' });
			expect(attempts[0].error).toMatch(/500/);
			await new Promise((r) => setTimeout(r, 100));
			expect(receiver.requests).toHaveLength(4);
		} finally {
			await receiver.close();
		}
	});

	test('a receiver that does not answer in time counts as failed; a later 2xx delivers', async () => {
		// 1st: no answer (times out at 10 s x scale), 2nd: 503, 3rd: 204.
		const receiver = await startReceiver((_r, n) =>
			n === 1 ? null : n === 2 ? { status: 503 } : { status: 204 },
		);
		try {
			await registerWebhook(INVOICES_ID, `${receiver.url}/flaky`, 'whsec_flaky');
			const sub = await submit('flaky');
			const delivery = await waitFor(async () => {
				const d = await admin(`/deliveries?task_id=${sub.json.task_id}`);
				const x = d.json.deliveries[0];
				return x && x.state !== 'pending' ? d.json : null;
			});
			expect(delivery.deliveries[0].state).toBe('delivered');
			expect(delivery.attempts.map((a) => [a.attempt, a.status_code, a.ok])).toEqual([
				[1, null, false],
				[2, 503, false],
				[3, 204, true],
			]);
			expect(delivery.attempts[0].error).toMatch(/no answer within 100 ms/);
			expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(99);
		} finally {
			await receiver.close();
		}
	});

	test('non-loopback targets are refused without any connection or DNS lookup', async () => {
		const receiver = await startReceiver();
		const connectSpy = jest.spyOn(net.Socket.prototype, 'connect');
		const lookupSpy = jest.spyOn(dns, 'lookup');
		try {
			const targets = [
				'http://203.0.113.10:8080/hook',
				'https://hooks.example.com/hook',
				'http://[2001:db8::1]/x',
				'http://10.0.0.1/x',
			];
			for (const t of targets)
				expect((await registerWebhook(IDENTITY_ID, t, 'whsec_remote')).status).toBe(201);
			// control: a loopback webhook of the same project, whose connection the spy must see
			await registerWebhook(IDENTITY_ID, `${receiver.url}/control`, 'whsec_control');
			const sub = await submit('remote', { project: 'Identity', document_type: 'passport' });
			await waitFor(async () => {
				const r = await admin(`/deliveries?task_id=${sub.json.task_id}`);
				return (
					r.json.deliveries.length === targets.length + 1 &&
					r.json.deliveries.every((x) => x.state !== 'pending')
				);
			});
			// refused at once: no retries
			await new Promise((r) => setTimeout(r, 60));
			const d = (await admin(`/deliveries?task_id=${sub.json.task_id}`)).json;
			const remote = d.attempts.filter((a) => a.url !== `${receiver.url}/control`);
			expect(remote.map((a) => a.url).sort()).toEqual([...targets].sort());
			for (const a of remote) {
				expect(a).toMatchObject({
					attempt: 1,
					status_code: null,
					ok: false,
					error: 'non-loopback target refused',
					state: 'failed',
				});
			}
			expect(d.deliveries.filter((x) => x.state === 'failed')).toHaveLength(targets.length);
			expect(receiver.requests.map((r) => r.url)).toEqual(['/control']);

			const hosts = connectSpy.mock.calls.map((args) => {
				const first = Array.isArray(args[0]) ? args[0][0] : args[0];
				return first && typeof first === 'object' ? first.host : first;
			});
			expect(hosts).toContain('127.0.0.1'); // the spy does observe the emulator's outbound sockets
			for (const h of hosts) expect(h === undefined || isLoopbackHost(String(h))).toBe(true);
			expect(lookupSpy.mock.calls.map((c) => c[0])).not.toContain('hooks.example.com');
		} finally {
			connectSpy.mockRestore();
			lookupSpy.mockRestore();
			await receiver.close();
		}
	});

	test('loopback host classification', () => {
		for (const h of ['127.0.0.1', '127.8.9.10', 'localhost', '[::1]', '::1', '[::ffff:7f00:1]']) {
			expect(isLoopbackHost(h)).toBe(true);
		}
		for (const h of [
			'10.0.0.1',
			'192.168.1.1',
			'0.0.0.0',
			'example.com',
			'localhost.example.com',
			'[::]',
			'128.0.0.1',
		]) {
			expect(isLoopbackHost(h)).toBe(false);
		}
	});
});

describe('fault injection and stats', () => {
	test('N injected 500s with Retry-After, then normal answers', async () => {
		const f = await admin('/faults', {
			endpoint: 'projects',
			count: 2,
			status: 500,
			retry_after: 7,
		});
		expect(f.status).toBe(201);
		for (let i = 0; i < 2; i++) {
			const r = await call('/projects');
			expect(r.status).toBe(500);
			expect(r.json).toEqual({ detail: 'Injected fault' });
			expect(r.headers.get('retry-after')).toBe('7');
		}
		const ok = await call('/projects');
		expect(ok.status).toBe(200);
		expect(ok.headers.get('retry-after')).toBeNull();
	});

	test('faults are per endpoint and cleared by DELETE', async () => {
		await admin('/faults', { endpoint: 'process_file', count: 1, status: 503 });
		expect((await call('/projects')).status).toBe(200);
		expect((await submit('a')).status).toBe(503);
		expect((await submit('a')).status).toBe(200);

		await admin('/faults', { endpoint: 'task_status', count: 5, status: 500 });
		expect((await admin('/faults')).json.faults[0]).toMatchObject({
			endpoint: 'task_status',
			remaining: 5,
		});
		const cleared = await call('/_emulator/faults', { method: 'DELETE', key: null });
		expect(cleared.status).toBe(200);
		expect((await call('/task_status/unknown')).status).toBe(404);
	});

	test('delay-only fault slows requests down; stats count in-flight concurrency', async () => {
		await admin('/stats/reset', {});
		await admin('/faults', { endpoint: 'projects', count: 3, delay_ms: 200 });
		const t0 = performance.now();
		const results = await Promise.all([call('/projects'), call('/projects'), call('/projects')]);
		const elapsed = performance.now() - t0;
		expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
		expect(elapsed).toBeGreaterThanOrEqual(195);
		const fast0 = performance.now();
		expect((await call('/projects')).status).toBe(200);
		expect(performance.now() - fast0).toBeLessThan(150);

		const stats = await admin('/stats');
		expect(stats.json.requests.projects).toBe(4);
		expect(stats.json.max_in_flight).toBeGreaterThanOrEqual(3);
		expect(stats.json.in_flight).toBe(0);
	});

	test('delay plus status: slowed then failed', async () => {
		await admin('/faults', { endpoint: 'webhooks', count: 1, status: 500, delay_ms: 100 });
		const t0 = performance.now();
		const r = await registerWebhook(INVOICES_ID, 'http://127.0.0.1:9/x', 'whsec_x');
		expect(r.status).toBe(500);
		expect(performance.now() - t0).toBeGreaterThanOrEqual(95);
	});

	test('invalid fault requests are rejected', async () => {
		expect((await admin('/faults', { endpoint: 'nope', count: 1, status: 500 })).status).toBe(422);
		expect((await admin('/faults', { endpoint: 'projects', count: 0, status: 500 })).status).toBe(
			422,
		);
		expect((await admin('/faults', { endpoint: 'projects', count: 1 })).status).toBe(422);
	});

	test('stats count requests and polls per task; reset zeroes them', async () => {
		await admin('/stats/reset', {});
		const sub = await submit('stats');
		for (let i = 0; i < 3; i++) await call(`/task_status/${sub.json.task_id}`);
		await call('/projects', { key: null });
		const s = await admin('/stats');
		expect(s.json).toEqual({
			requests: { process_file: 1, task_status: 3, projects: 1, webhooks: 0 },
			status_polls_by_task: { [sub.json.task_id]: 3 },
			in_flight: 0,
			max_in_flight: 1,
			faults_applied: { answer: 0, hang: 0, drop_after_read: 0, handle_then_answer: 0 },
			refusals: [],
		});
		await admin('/stats/reset', {});
		const z = await admin('/stats');
		expect(z.json.requests).toEqual({ process_file: 0, task_status: 0, projects: 0, webhooks: 0 });
		expect(z.json.status_polls_by_task).toEqual({});
	});
});

describe('reliability fault switches', () => {
	/** Sends a request with node:http and reports how it ended: answered, dropped or no answer in time. */
	function rawRequest(pathname, { method = 'GET', body, timeoutMs = 1000 } = {}) {
		return new Promise((resolve) => {
			const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
			const req = http.request(`${emu.url}${pathname}`, {
				method,
				headers: {
					Authorization: `Bearer ${KEY}`,
					...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}),
				},
			});
			req.setTimeout(timeoutMs, () => {
				resolve({ outcome: 'no answer' });
				req.destroy();
			});
			req.on('response', (res) => {
				res.resume();
				res.on('end', () => resolve({ outcome: 'answered', status: res.statusCode }));
			});
			req.on('error', (error) => resolve({ outcome: 'dropped', code: error.code }));
			req.end(payload);
		});
	}

	const upload = {
		file_base64: Buffer.from('%PDF-1.4 hang').toString('base64'),
		project: 'Invoices',
		document_type: 'invoice',
	};

	test('hang: the request is accepted and never answered, and creates no task', async () => {
		await admin('/faults', { endpoint: 'process_file', mode: 'hang' });
		const hung = await rawRequest('/process_file', { method: 'POST', body: upload, timeoutMs: 400 });
		expect(hung).toEqual({ outcome: 'no answer' });
		expect(emu.state.tasks.size).toBe(0);
		expect((await admin('/stats')).json.faults_applied.hang).toBe(1);
		// The switch is used up: the next upload is answered.
		expect((await submit('after')).status).toBe(200);
	});

	test('hang on task_status: status requests get no answer until the switch is used up', async () => {
		const sub = await submit('poll');
		await admin('/faults', { endpoint: 'task_status', mode: 'hang', count: 2 });
		const path = `/task_status/${sub.json.task_id}`;
		expect(await rawRequest(path, { timeoutMs: 300 })).toEqual({ outcome: 'no answer' });
		expect(await rawRequest(path, { timeoutMs: 300 })).toEqual({ outcome: 'no answer' });
		expect(await rawRequest(path)).toEqual({ outcome: 'answered', status: 200 });
	});

	test('drop_after_read: the upload is read and its task created, then the connection drops', async () => {
		await admin('/faults', { endpoint: 'process_file', mode: 'drop_after_read' });
		const dropped = await rawRequest('/process_file', { method: 'POST', body: upload });
		expect(dropped.outcome).toBe('dropped');
		expect(dropped.code).toMatch(/ECONNRESET|socket hang up/i);
		expect(emu.state.tasks.size).toBe(1);
		expect((await admin('/tasks')).json.tasks[0].file_sha256).toBe(
			sha256(Buffer.from('%PDF-1.4 hang')),
		);
		expect((await submit('after')).status).toBe(200);
		expect(emu.state.tasks.size).toBe(2);
	});

	test('a burst of 5xx: count answers fail, then the endpoint answers normally', async () => {
		const sub = await submit('burst');
		await admin('/faults', { endpoint: 'task_status', count: 6, status: 502 });
		const statuses = [];
		for (let i = 0; i < 7; i++) statuses.push((await call(`/task_status/${sub.json.task_id}`)).status);
		expect(statuses).toEqual([502, 502, 502, 502, 502, 502, 200]);
	});

	test('slow answers: delay_ms without a status delays the real answer', async () => {
		await admin('/faults', { endpoint: 'process_file', delay_ms: 300 });
		const t0 = performance.now();
		expect((await submit('slow')).status).toBe(200);
		expect(performance.now() - t0).toBeGreaterThanOrEqual(295);
		expect(emu.state.tasks.size).toBe(1);
	});

	test('refuse: connections are refused for a while, then accepted on the same port', async () => {
		const r = await admin('/refuse', { ms: 300 });
		expect(r.status).toBe(200);
		await new Promise((resolve) => setTimeout(resolve, 30));
		expect(await rawRequest('/projects')).toMatchObject({ outcome: 'dropped', code: 'ECONNREFUSED' });
		await waitFor(async () => (await rawRequest('/projects')).outcome === 'answered', {
			timeoutMs: 3000,
			intervalMs: 50,
		});
		const { refusals } = (await admin('/stats')).json;
		expect(refusals).toHaveLength(1);
		expect(refusals[0].until).not.toBeNull();
	});

	test('invalid switches are rejected', async () => {
		expect((await admin('/faults', { endpoint: 'projects', mode: 'explode' })).status).toBe(422);
		expect((await admin('/faults', { endpoint: 'projects', mode: 'hang', status: 500 })).status).toBe(
			422,
		);
		expect((await admin('/refuse', { ms: 0 })).status).toBe(422);
	});

	test('reset releases hung requests', async () => {
		await admin('/faults', { endpoint: 'projects', mode: 'hang' });
		const pending = rawRequest('/projects', { timeoutMs: 3000 });
		await waitFor(() => emu.state.stats.faults_applied.hang === 1);
		await admin('/reset', {});
		expect((await pending).outcome).toBe('dropped');
	});
});

describe('admin: deliver and reset', () => {
	test('POST /_emulator/deliver sends one raw POST, signed, tampered or unsigned', async () => {
		const receiver = await startReceiver((req) => ({ status: 202, body: `got ${req.raw.length}` }));
		try {
			const body = '{"event":"task.completed","task_id":"t1"}';
			const signed = await admin('/deliver', {
				url: `${receiver.url}/in`,
				body,
				secret: 'whsec_s',
			});
			expect(signed.json).toMatchObject({ status_code: 202, body: `got ${body.length}` });
			const sig = crypto.createHmac('sha256', 'whsec_s').update(body).digest('hex');
			expect(receiver.requests[0].raw.toString()).toBe(body);
			expect(receiver.requests[0].headers['x-service-signature']).toBe(sig);

			await admin('/deliver', {
				url: `${receiver.url}/in`,
				body,
				secret: 'whsec_s',
				signature: 'deadbeef',
			});
			expect(receiver.requests[1].headers['x-service-signature']).toBe('deadbeef');

			await admin('/deliver', {
				url: `${receiver.url}/in`,
				body: 'not json',
				signature: null,
				secret: 'whsec_s',
			});
			expect(receiver.requests[2].headers).not.toHaveProperty('x-service-signature');
			expect(receiver.requests[2].raw.toString()).toBe('not json');
			expect(receiver.requests).toHaveLength(3);

			const remote = await admin('/deliver', {
				url: 'http://198.51.100.7/hook',
				body,
				secret: 'x',
			});
			expect(remote.status).toBe(422);
			expect(remote.json.detail).toBe('non-loopback target refused');
			expect(receiver.requests).toHaveLength(3);

			const closedPort = await admin('/deliver', { url: 'http://127.0.0.1:9/none', body });
			expect(closedPort.json.status_code).toBeNull();
			expect(closedPort.json.error).toMatch(/ECONNREFUSED/);
		} finally {
			await receiver.close();
		}
	});

	test('POST /_emulator/reset clears tasks, webhooks, deliveries, faults and stats', async () => {
		const sub = await submit('reset');
		await registerWebhook(INVOICES_ID, 'http://127.0.0.1:9/none', 'whsec_r');
		await admin('/faults', { endpoint: 'projects', count: 3, status: 500 });
		expect((await admin('/reset', {})).json).toEqual({ ok: true });
		expect((await call(`/task_status/${sub.json.task_id}`)).status).toBe(404);
		expect((await admin('/webhooks')).json.webhooks).toEqual([]);
		expect((await admin('/faults')).json.faults).toEqual([]);
		expect((await call('/projects')).status).toBe(200);
		await new Promise((r) => setTimeout(r, PROCESSING_MS + 30));
		expect((await admin('/deliveries')).json).toEqual({ deliveries: [], attempts: [] });
		expect(emu.state.tasks.size).toBe(0);
	});
});

describe('files served by URL (/_emulator/files/<name>)', () => {
	const { fileBytes } = require('../../emulator/lib/files.js');

	async function getFile(query, { redirect = 'follow', name = 'invoice.pdf' } = {}) {
		const res = await fetch(`${emu.url}/_emulator/files/${encodeURIComponent(name)}${query}`, {
			redirect,
		});
		return { res, bytes: Buffer.from(await res.arrayBuffer()) };
	}

	test('serves a one-page PDF with its type, length and SHA-256, and lists it', async () => {
		const { res, bytes } = await getFile('');
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toBe('application/pdf');
		expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
		expect(bytes.subarray(0, 8).toString('latin1')).toBe('%PDF-1.4');
		expect(res.headers.get('x-content-sha256')).toBe(sha256(bytes));
		expect(bytes.equals(fileBytes('invoice.pdf'))).toBe(true);
		const { files } = (await admin('/files')).json;
		expect(files).toEqual([
			expect.objectContaining({ name: 'invoice.pdf', size: bytes.length, sha256: sha256(bytes) }),
		]);
	});

	test('the same name and size give the same bytes; the file is a document the service reads', async () => {
		const first = await getFile('?size=200000');
		const second = await getFile('?size=200000');
		expect(first.bytes.length).toBe(200000);
		expect(first.bytes.equals(second.bytes)).toBe(true);
		const sub = await submit(first.bytes);
		expect(sub.status).toBe(200);
		const done = await waitFor(async () => {
			const r = await call(`/task_status/${sub.json.task_id}`);
			return r.json.status === 'complete' ? r.json : null;
		});
		expect(done.result.file_sha256).toBe(sha256(first.bytes));
		expect(done.result.pages).toBe(1);
	});

	test('size pads or cuts the file to exactly that many bytes', async () => {
		expect((await getFile('?size=10')).bytes.length).toBe(10);
		const big = await getFile('?size=5000000&chunked=1');
		expect(big.bytes.length).toBe(5000000);
		expect(big.res.headers.get('content-length')).toBeNull();
		expect(big.res.headers.get('x-content-sha256')).toBe(sha256(big.bytes));
	});

	test('redirect=n answers 302 n times, then the file', async () => {
		const hop = await getFile('?redirect=2', { redirect: 'manual' });
		expect(hop.res.status).toBe(302);
		expect(hop.res.headers.get('location')).toBe('/_emulator/files/invoice.pdf?redirect=1');
		const followed = await getFile('?redirect=2');
		expect(followed.res.status).toBe(200);
		expect(followed.res.redirected).toBe(true);
		expect(followed.bytes.equals(fileBytes('invoice.pdf'))).toBe(true);
	});

	test('status, empty, type, disposition', async () => {
		const missing = await getFile('?status=404');
		expect(missing.res.status).toBe(404);
		expect(JSON.parse(missing.bytes.toString()).detail).toBe('Injected status 404');
		const empty = await getFile('?empty=1');
		expect(empty.res.status).toBe(200);
		expect(empty.bytes.length).toBe(0);
		expect(empty.res.headers.get('content-length')).toBe('0');
		const html = await getFile('', { name: 'page.html' });
		expect(html.res.headers.get('content-type')).toBe('text/html; charset=utf-8');
		const typed = await getFile('?type=image/png');
		expect(typed.res.headers.get('content-type')).toBe('image/png');
		const untyped = await getFile('?type=none');
		expect(untyped.res.headers.get('content-type')).toBeNull();
		const named = await getFile('?disposition=scan%2001.pdf', { name: 'download' });
		expect(named.res.headers.get('content-disposition')).toBe('attachment; filename="scan 01.pdf"');
		expect(named.res.headers.get('content-type')).toBe('application/octet-stream');
	});

	test('bad parameters get 422; reset clears the list', async () => {
		expect((await getFile('?size=-1')).res.status).toBe(422);
		expect((await getFile('?redirect=x')).res.status).toBe(422);
		await getFile('');
		await admin('/reset', {});
		expect((await admin('/files')).json.files).toEqual([]);
	});
});

describe('CLI', () => {
	test('starts from env, prints one line, stops on SIGTERM', async () => {
		const child = spawn(process.execPath, [path.join(__dirname, '../../emulator/server.js')], {
			env: {
				...process.env,
				EMULATOR_PORT: '0',
				EMULATOR_API_KEYS: 'vnd_one, vnd_two',
				EMULATOR_PROCESSING_MS: '10',
			},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		child.stdout.on('data', (d) => (out += d));
		const exited = new Promise((resolve) =>
			child.on('exit', (code, signal) => resolve({ code, signal })),
		);
		try {
			await waitFor(() => out.includes('\n'));
			const m = /^Document Extraction emulator listening on (http:\/\/127\.0\.0\.1:(\d+))\n$/.exec(
				out,
			);
			expect(m).not.toBeNull();
			const base = m[1];
			expect((await call('/projects', { base, key: 'vnd_two' })).status).toBe(200);
			expect((await call('/projects', { base, key: KEY })).status).toBe(401);
			const sub = await call('/process_file', {
				base,
				key: 'vnd_one',
				method: 'POST',
				body: { file_base64: 'aGVsbG8=', project: 'Invoices', document_type: 'receipt' },
			});
			const done = await waitFor(async () => {
				const r = await call(`/task_status/${sub.json.task_id}`, { base, key: 'vnd_one' });
				return r.json.status === 'complete' ? r.json : null;
			});
			expect(done.result.file_size).toBe(5);
			child.kill('SIGTERM');
			expect(await exited).toEqual({ code: 0, signal: null });
		} finally {
			if (child.exitCode === null) child.kill('SIGKILL');
		}
	});
});
