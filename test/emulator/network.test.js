'use strict';

/** The network rule every suite relies on: the emulator listens and delivers on loopback only. */

const dns = require('node:dns');
const net = require('node:net');

const { createEmulator } = require('../../emulator/server.js');
const { isLoopbackHost } = require('../../emulator/lib/outbound.js');

const KEY = 'vnd_test_key';
const IDENTITY_ID = '8a4b6c2d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
let emu;

beforeAll(async () => {
	emu = await createEmulator({ port: 0, processingMs: 50, timeScale: 0.01, log: false });
});
afterAll(() => emu.close());

const call = async (pathname, body) => {
	const res = await fetch(`${emu.url}${pathname}`, {
		method: body ? 'POST' : 'GET',
		headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
		body: body && JSON.stringify(body),
	});
	return { status: res.status, json: await res.json() };
};

test('listens on 127.0.0.1 only, not on a wildcard address', async () => {
	expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
	const reachedV6 = await new Promise((resolve) => {
		const socket = net.connect({ host: '::1', port: emu.port });
		socket.once('connect', () => resolve(socket.destroy() && true));
		socket.once('error', () => resolve(false));
	});
	expect(reachedV6).toBe(false);
});

test('refuses webhook targets beyond loopback without any connection or DNS lookup', async () => {
	// should the emulator's guard ever let one through, the spies stop it here
	const connect = net.Socket.prototype.connect;
	const hosts = [];
	const connectSpy = jest.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (
		...args
	) {
		const first = Array.isArray(args[0]) ? args[0][0] : args[0];
		const host = first && typeof first === 'object' ? first.host : undefined;
		hosts.push(host);
		if (host === undefined || isLoopbackHost(String(host))) return connect.apply(this, args);
		process.nextTick(() => this.destroy(new Error(`test: connection to ${host} stopped`)));
		return this;
	});
	const lookupSpy = jest.spyOn(dns, 'lookup');
	try {
		const targets = ['http://203.0.113.10:8080/hook', 'https://hooks.example.com/hook'];
		for (const url of targets) {
			const registered = await call(`/projects/${IDENTITY_ID}/webhooks`, {
				url,
				events: ['task.completed'],
				secret: 'whsec_remote',
			});
			expect(registered.status).toBe(201);
		}
		const submitted = await call('/process_file', {
			file_base64: Buffer.from('%PDF-1.4 remote').toString('base64'),
			project: 'Identity',
			document_type: 'passport',
		});
		let attempts = [];
		for (let i = 0; i < 200 && attempts.length < targets.length; i++) {
			await new Promise((resolve) => setTimeout(resolve, 25));
			attempts = (await call(`/_emulator/deliveries?task_id=${submitted.json.task_id}`)).json
				.attempts;
		}
		expect(attempts.map((a) => [a.url, a.error]).sort()).toEqual(
			targets.map((url) => [url, 'non-loopback target refused']).sort(),
		);
		expect(hosts.filter((h) => h !== undefined && !isLoopbackHost(String(h)))).toEqual([]);
		expect(lookupSpy.mock.calls.map((c) => c[0])).not.toContain('hooks.example.com');
	} finally {
		connectSpy.mockRestore();
		lookupSpy.mockRestore();
	}
});
