'use strict';

/** Files served by URL, and the command line. */

const path = require('node:path');
const { spawn } = require('node:child_process');

const { KEY, call, admin, sha256, submit, waitFor, useEmulator } = require('./helpers.js');

const env = useEmulator();

describe('files served by URL (/_emulator/files/<name>)', () => {
	const { fileBytes } = require('../../emulator/lib/files.js');

	async function getFile(query, { redirect = 'follow', name = 'invoice.pdf' } = {}) {
		const res = await fetch(`${env.emu.url}/_emulator/files/${encodeURIComponent(name)}${query}`, {
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
	test('starts from env, prints its address and what the credential takes, stops on SIGTERM', async () => {
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
			await waitFor(() => out.includes('Ctrl-C stops the emulator.'));
			const m = /^Document Extraction emulator listening on (http:\/\/127\.0\.0\.1:(\d+))\n/.exec(
				out,
			);
			expect(m).not.toBeNull();
			const base = m[1];
			// what to paste into the credential: the first active key and the address
			expect(out).toContain(`    API Key:   vnd_one\n    Base URL:  ${base}\n`);
			expect(out).toContain(`${base}/_emulator/sink/crm`);
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
