'use strict';

/** The emulator as a server: its address, authentication, validation, 404s, the task lifecycle and GET /projects. */

const crypto = require('node:crypto');
const net = require('node:net');

const { createEmulator, DEFAULT_PROJECTS } = require('../../emulator/server.js');
const {
	KEY,
	INVOICES_ID,
	IDENTITY_ID,
	PROCESSING_MS,
	call,
	admin,
	sha256,
	submit,
	waitFor,
	waitTerminal,
	useEmulator,
} = require('./helpers.js');

const env = useEmulator();

describe('server basics', () => {
	test('binds to 127.0.0.1 only and answers health', async () => {
		expect(env.emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(env.emu.port).toBe(Number(new URL(env.emu.url).port));
		const health = await admin('/health');
		expect(health).toMatchObject({ status: 200, json: { ok: true } });
		// Not reachable on the IPv6 loopback: the socket is not bound to a wildcard address.
		const reachedV6 = await new Promise((resolve) => {
			const s = net.connect({ host: '::1', port: env.emu.port });
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
			const basic = await fetch(`${env.emu.url}${p}`, {
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
