/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { Readable } from 'node:stream';

import nock from 'nock';

import { downloadDocument } from '../../../../../nodes/DocumentExtraction/input/download';
import { createContext, failureOf, useOfflineNock } from '../../../helpers/context';

const HOST = 'http://files.example.test';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n%%EOF\n');
const MB = 1024 * 1024;

useOfflineNock();
afterEach(() => expect(nock.pendingMocks()).toEqual([]));

function download(
	path: string,
	{ maxBytes = 10 * MB, timeoutMs = 5000, store = new Map<string, Buffer>() } = {},
) {
	const ctx = createContext({ params: {}, store, binaryMode: 'filesystem' });
	return downloadDocument.call(ctx, new URL(`${HOST}${path}`), {
		itemIndex: 0,
		maxBytes,
		timeoutMs,
	});
}

describe('downloadDocument', () => {
	it.each([
		{
			name: 'streams the file into the binary store with the name and type of the response',
			serve: () =>
				nock(HOST)
					.get('/get/123')
					.reply(200, PDF, {
						'Content-Type': 'application/pdf; charset=binary',
						'Content-Disposition': 'attachment; filename="Invoice 2024-001.pdf"',
						'Content-Length': String(PDF.length),
					}),
			path: '/get/123',
			fileName: 'Invoice 2024-001.pdf',
			mimeType: 'application/pdf',
		},
		{
			name: 'follows redirects and takes the name from the URL path when there is no Content-Disposition',
			serve: () =>
				nock(HOST)
					.get('/short')
					.reply(302, '', { Location: `${HOST}/hop` })
					.get('/hop')
					.reply(301, '', { Location: '/files/scan.png' })
					.get('/files/scan.png')
					.reply(200, PDF, { 'Content-Type': 'image/png' }),
			path: '/short',
			fileName: 'short.png',
			mimeType: 'image/png',
		},
	])('$name', async ({ serve, path, fileName, mimeType }) => {
		serve();
		const store = new Map<string, Buffer>();
		const binary = await download(path, { store });
		expect(binary.fileName).toBe(fileName);
		expect(binary.mimeType).toBe(mimeType);
		expect(store.get(binary.id!)).toEqual(PDF);
	});

	it.each([
		['http://user:pw@files.example.test/b.pdf'],
		['//user:pw@files.example.test/b.pdf'],
		['http://user@files.example.test/b.pdf'],
	])('sends no credentials where a redirect to %s names some', async (location) => {
		let authorization: unknown = 'not asked';
		nock(HOST)
			.get('/a.pdf')
			.reply(302, '', { Location: location })
			.get('/b.pdf')
			.reply(function () {
				authorization = this.req.headers.authorization;
				return [200, PDF, { 'Content-Type': 'application/pdf' }];
			});
		await download('/a.pdf');
		expect(authorization).toBeUndefined();
	});

	it('stops after 5 redirects with a clear error', async () => {
		const scope = nock(HOST);
		for (let i = 0; i < 6; i++) scope.get(`/r${i}`).reply(302, '', { Location: `/r${i + 1}` });
		const error = await failureOf(download('/r0'));
		expect(error.message).toBe(`The document URL ${HOST}/r0 redirected more than 5 times`);
		expect(error.description).toMatch(/redirect/i);
		nock.cleanAll();
	});

	it('a 404 names the URL (without its query) and the status', async () => {
		nock(HOST).get('/missing.pdf').query(true).reply(404, 'Not Found');
		const error = await failureOf(download('/missing.pdf?token=secret-signature'));
		expect(error.message).toBe(
			`The document could not be downloaded from ${HOST}/missing.pdf: the host answered 404 Not Found`,
		);
		expect(error.message).not.toContain('secret-signature');
		expect(error.description).toContain('There is no file at this address');
	});

	it.each([['text/html; charset=utf-8', 'text/html']])(
		'refuses content type %p',
		async (type, shown) => {
			nock(HOST).get('/page.pdf').reply(200, '<html></html>', { 'Content-Type': type });
			const error = await failureOf(download('/page.pdf'));
			expect(error.message).toBe(
				`The URL ${HOST}/page.pdf did not return a PDF or an image (content type ${shown})`,
			);
			expect(error.description).toContain('not of a web page');
		},
	);

	it('refuses a file whose Content-Length is over the limit, before reading it', async () => {
		nock(HOST)
			.get('/big.pdf')
			.reply(200, PDF, { 'Content-Type': 'application/pdf', 'Content-Length': String(3 * MB) });
		const error = await failureOf(download('/big.pdf', { maxBytes: 2 * MB }));
		expect(error.message).toBe(
			`The document at ${HOST}/big.pdf is too large: 3 MB, the limit is 2 MB`,
		);
		expect(error.description).toContain('Max Download Size');
	});

	it('stops a streamed file that grows over the limit, without keeping it', async () => {
		const chunk = Buffer.alloc(64 * 1024, 1);
		let sent = 0;
		const endless = new Readable({
			read() {
				sent += chunk.length;
				this.push(sent > 4 * MB ? null : chunk);
			},
		});
		nock(HOST)
			.get('/stream.pdf')
			.reply(200, () => endless, {
				'Content-Type': 'application/pdf',
			});
		const store = new Map<string, Buffer>();
		const error = await failureOf(download('/stream.pdf', { maxBytes: MB, store }));
		expect(error.message).toBe(`The document at ${HOST}/stream.pdf is too large: more than 1 MB`);
		expect(store.size).toBe(0);
		endless.destroy();
	});

	it.each([
		['with Content-Length 0', { 'Content-Length': '0' }],
		['without Content-Length', {}],
	])('an empty body is an error (%s)', async (_label, headers) => {
		nock(HOST)
			.get('/empty.pdf')
			.reply(200, '', { 'Content-Type': 'application/pdf', ...headers });
		const error = await failureOf(download('/empty.pdf'));
		expect(error.message).toBe(`The document at ${HOST}/empty.pdf is empty (0 bytes)`);
	});

	it('times out when the headers do not come in time', async () => {
		nock(HOST).get('/slow.pdf').delay(2000).reply(200, PDF, { 'Content-Type': 'application/pdf' });
		const started = Date.now();
		const error = await failureOf(download('/slow.pdf', { timeoutMs: 200 }));
		expect(error.message).toBe(
			`Downloading the document from ${HOST}/slow.pdf took longer than 0.2 s`,
		);
		expect(Date.now() - started).toBeLessThan(1500);
	});

	it('times out when the body stalls after the headers', async () => {
		const stalled = new Readable({ read() {} });
		stalled.push(PDF.subarray(0, 10));
		nock(HOST)
			.get('/stall.pdf')
			.reply(200, () => stalled, { 'Content-Type': 'application/pdf' });
		const started = Date.now();
		const error = await failureOf(download('/stall.pdf', { timeoutMs: 300 }));
		expect(error.message).toBe(
			`Downloading the document from ${HOST}/stall.pdf took longer than 0.3 s`,
		);
		expect(Date.now() - started).toBeLessThan(2000);
		stalled.destroy();
	});

	it('an unreachable host is a clear error', async () => {
		const error = await failureOf(download('/x.pdf'));
		expect(error.message).toBe(`Could not download the document from ${HOST}/x.pdf`);
		expect(error.description).toContain('reachable');
	});
});
