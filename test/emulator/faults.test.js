'use strict';

/** Fault injection and stats, the reliability fault switches, and the admin deliver and reset calls. */

const crypto = require('node:crypto');
const http = require('node:http');

const {
	KEY,
	INVOICES_ID,
	PROCESSING_MS,
	call,
	admin,
	sha256,
	submit,
	waitFor,
	startReceiver,
	registerWebhook,
	useEmulator,
} = require('./helpers.js');

const env = useEmulator();

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
			const req = http.request(`${env.emu.url}${pathname}`, {
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
		expect(env.emu.state.tasks.size).toBe(0);
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
		expect(env.emu.state.tasks.size).toBe(1);
		expect((await admin('/tasks')).json.tasks[0].file_sha256).toBe(
			sha256(Buffer.from('%PDF-1.4 hang')),
		);
		expect((await submit('after')).status).toBe(200);
		expect(env.emu.state.tasks.size).toBe(2);
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
		expect(env.emu.state.tasks.size).toBe(1);
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
		await waitFor(() => env.emu.state.stats.faults_applied.hang === 1);
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
		expect(env.emu.state.tasks.size).toBe(0);
	});
});
