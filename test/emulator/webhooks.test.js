'use strict';

/** Webhook registration, deletion from the dashboard, and signed deliveries. */

const crypto = require('node:crypto');
const dns = require('node:dns');
const net = require('node:net');

const { isLoopbackHost } = require('../../emulator/lib/outbound.js');
const {
	INVOICES_ID,
	IDENTITY_ID,
	TIME_SCALE,
	call,
	admin,
	sha256,
	submit,
	waitFor,
	waitTerminal,
	startReceiver,
	registerWebhook,
	useEmulator,
} = require('./helpers.js');

useEmulator();

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
		// The spies record every connection and lookup; should the emulator's guard ever let one
		// through, they stop it here, so this test never sends traffic beyond loopback itself.
		const connect = net.Socket.prototype.connect;
		const connectSpy = jest.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (
			...args
		) {
			const first = Array.isArray(args[0]) ? args[0][0] : args[0];
			const host = first && typeof first === 'object' ? first.host : undefined;
			if (host === undefined || isLoopbackHost(String(host))) return connect.apply(this, args);
			process.nextTick(() => this.destroy(new Error(`test: connection to ${host} stopped`)));
			return this;
		});
		const lookup = dns.lookup;
		const lookupSpy = jest.spyOn(dns, 'lookup').mockImplementation((hostname, ...rest) => {
			if (isLoopbackHost(String(hostname))) return lookup(hostname, ...rest);
			const callback = rest.at(-1);
			const error = Object.assign(new Error(`test: lookup of ${hostname} stopped`), {
				code: 'ENOTFOUND',
			});
			process.nextTick(() => callback(error));
			return undefined;
		});
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
