'use strict';

/** The emulator's switches for production-setup tests: the sink, forgetting a task, settings. */

const http = require('node:http');

const { createEmulator } = require('../../emulator/server.js');
const { samplePdf } = require('../../emulator/lib/pdf.js');

const KEY = 'vnd_test_key';

let emu;

beforeAll(async () => {
	emu = await createEmulator({ port: 0, processingMs: 50, timeScale: 0.01 });
});

afterAll(async () => {
	await emu.close();
});

afterEach(async () => {
	await fetch(`${emu.url}/_emulator/reset`, { method: 'POST' });
});

async function call(pathname, { method = 'GET', body, key, raw, contentType } = {}) {
	const headers = {};
	if (key) headers.Authorization = `Bearer ${key}`;
	const payload = raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body);
	if (payload !== undefined) headers['Content-Type'] = contentType ?? 'application/json';
	const res = await fetch(`${emu.url}${pathname}`, { method, headers, body: payload });
	const text = await res.text();
	let json = null;
	try {
		json = JSON.parse(text);
	} catch {
		json = null;
	}
	return { status: res.status, json };
}

async function submit() {
	const res = await call('/process_file', {
		method: 'POST',
		key: KEY,
		body: {
			file_base64: samplePdf('INVOICE forget me').toString('base64'),
			project: 'Invoices',
			document_type: 'invoice',
		},
	});
	expect(res.status).toBe(200);
	return res.json.task_id;
}

describe('sink (/_emulator/sink)', () => {
	it('records each call with its name and parsed JSON body, in order, and answers 200', async () => {
		const first = await call('/_emulator/sink/crm', {
			method: 'POST',
			body: { task_id: 't1', n: 1 },
		});
		const second = await call('/_emulator/sink', {
			method: 'POST',
			raw: 'plain text',
			contentType: 'text/plain',
		});
		expect(first).toEqual({ status: 200, json: { received: 1 } });
		expect(second).toEqual({ status: 200, json: { received: 2 } });
		const { json } = await call('/_emulator/sink');
		expect(json.calls).toHaveLength(2);
		expect(json.calls[0]).toMatchObject({ name: 'crm', body: { task_id: 't1', n: 1 } });
		expect(json.calls[0].headers['content-type']).toBe('application/json');
		expect(json.calls[1]).toMatchObject({ name: '', body: 'plain text' });
		expect(typeof json.calls[0].at).toBe('string');
	});

	it('DELETE and reset forget the calls', async () => {
		await call('/_emulator/sink/a', { method: 'POST', body: {} });
		expect((await call('/_emulator/sink', { method: 'DELETE' })).json).toEqual({
			ok: true,
			calls: [],
		});
		expect((await call('/_emulator/sink')).json.calls).toEqual([]);
		await call('/_emulator/sink/a', { method: 'POST', body: {} });
		await call('/_emulator/reset', { method: 'POST' });
		expect((await call('/_emulator/sink')).json.calls).toEqual([]);
	});
});

describe('forget (/_emulator/forget)', () => {
	it('makes task_status answer 404 for a task it knew', async () => {
		const taskId = await submit();
		expect((await call(`/task_status/${taskId}`, { key: KEY })).status).toBe(200);
		const forgot = await call('/_emulator/forget', { method: 'POST', body: { task_id: taskId } });
		expect(forgot).toEqual({ status: 200, json: { ok: true, task_id: taskId } });
		const after = await call(`/task_status/${taskId}`, { key: KEY });
		expect(after.status).toBe(404);
		expect(after.json.detail).toBe(`Task '${taskId}' not found`);
	});

	it('answers 404 for a task it does not know', async () => {
		const res = await call('/_emulator/forget', { method: 'POST', body: { task_id: 'nope' } });
		expect(res.status).toBe(404);
	});
});

describe('settings (/_emulator/settings)', () => {
	it('changes the processing time of new tasks and the retry timing; refuses bad values', async () => {
		const changed = await call('/_emulator/settings', {
			method: 'POST',
			body: { processing_ms: 400 },
		});
		expect(changed.json).toEqual({ processing_ms: 400, time_scale: 0.01, sink_down: [] });
		const taskId = await submit();
		await new Promise((r) => setTimeout(r, 150));
		// still running after three times the processing time it started with
		expect((await call(`/task_status/${taskId}`, { key: KEY })).json.status).not.toMatch(
			/complete|failed/,
		);
		const bad = await call('/_emulator/settings', { method: 'POST', body: { time_scale: 0 } });
		expect(bad.status).toBe(422);
		const scaled = await call('/_emulator/settings', {
			method: 'POST',
			body: { processing_ms: 50, time_scale: 0.02 },
		});
		expect(scaled.json).toEqual({ processing_ms: 50, time_scale: 0.02, sink_down: [] });
	});

	it('sink_down: the named sink answers 503 and records nothing until the list is emptied', async () => {
		const down = await call('/_emulator/settings', {
			method: 'POST',
			body: { sink_down: ['crm'] },
		});
		expect(down.json.sink_down).toEqual(['crm']);
		await call('/_emulator/sink', { method: 'DELETE' });
		const refused = await call('/_emulator/sink/crm', { method: 'POST', body: { n: 1 } });
		expect(refused.status).toBe(503);
		const other = await call('/_emulator/sink/erp', { method: 'POST', body: { n: 2 } });
		expect(other.status).toBe(200);
		expect((await call('/_emulator/sink')).json.calls.map((c) => c.name)).toEqual(['erp']);
		const bad = await call('/_emulator/settings', { method: 'POST', body: { sink_down: 'crm' } });
		expect(bad.status).toBe(422);
		await call('/_emulator/settings', { method: 'POST', body: { sink_down: [] } });
		expect((await call('/_emulator/sink/crm', { method: 'POST', body: {} })).status).toBe(200);
	});

	it('scales the retries of a delivery that has no receiver', async () => {
		// a port nobody listens on: every attempt is refused
		const server = http.createServer();
		await new Promise((r) => server.listen(0, '127.0.0.1', r));
		const port = server.address().port;
		await new Promise((r) => server.close(r));
		await call('/_emulator/settings', { method: 'POST', body: { time_scale: 0.001 } });
		await call('/projects/3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c/webhooks', {
			method: 'POST',
			key: KEY,
			body: { url: `http://127.0.0.1:${port}/hook`, events: ['task.completed'], secret: 'whsec_x' },
		});
		const taskId = await submit();
		let delivery;
		for (let i = 0; i < 100 && delivery?.state !== 'failed'; i++) {
			await new Promise((r) => setTimeout(r, 20));
			delivery = (await call(`/_emulator/deliveries?task_id=${taskId}`)).json.deliveries[0];
		}
		expect(delivery).toMatchObject({ state: 'failed', attempts: 4 });
	});
});
