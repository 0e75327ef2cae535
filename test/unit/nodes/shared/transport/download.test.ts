/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { Readable } from 'node:stream';

import nock from 'nock';

import {
	describeDownload,
	downloadDocument,
	fileNameFromDisposition,
	parseDocumentUrl,
} from '../../../../../nodes/shared/transport/download';
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

describe('parseDocumentUrl', () => {
	const ctx = createContext({ params: {} });
	it.each(['ftp://example.com/a.pdf', 'file:///etc/passwd', 'example.com/a.pdf', 'not a url', ''])(
		'refuses %p',
		(raw) => {
			expect(() => parseDocumentUrl.call(ctx, raw, 0)).toThrow(
				raw ? /is not an http\(s\) URL/ : /No document URL given/,
			);
		},
	);

	it('accepts http and https addresses', () => {
		expect(parseDocumentUrl.call(ctx, ' https://example.com/a.pdf ', 0).href).toBe(
			'https://example.com/a.pdf',
		);
		expect(parseDocumentUrl.call(ctx, 'http://127.0.0.1:8080/x', 0).port).toBe('8080');
	});
});

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

	it.each([
		['text/html; charset=utf-8', 'text/html'],
		['application/json', 'application/json'],
		['text/plain', 'text/plain'],
	])('refuses content type %p', async (type, shown) => {
		nock(HOST).get('/page.pdf').reply(200, '<html></html>', { 'Content-Type': type });
		const error = await failureOf(download('/page.pdf'));
		expect(error.message).toBe(
			`The URL ${HOST}/page.pdf did not return a PDF or an image (content type ${shown})`,
		);
		expect(error.description).toContain('not of a web page');
	});

	it('judges application/octet-stream or no type by the file name', async () => {
		nock(HOST)
			.get('/a.pdf')
			.reply(200, PDF, { 'Content-Type': 'application/octet-stream' })
			.get('/b.jpg')
			.reply(200, PDF)
			.get('/blob')
			.reply(200, PDF, { 'Content-Type': 'application/octet-stream' });
		expect((await download('/a.pdf')).mimeType).toBe('application/pdf');
		expect((await download('/b.jpg')).mimeType).toBe('image/jpeg');
		const error = await failureOf(download('/blob'));
		expect(error.message).toContain('content type application/octet-stream');
	});

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

describe('file name and MIME type', () => {
	it.each([
		['attachment; filename="a b.pdf"', 'a b.pdf'],
		['attachment; filename=plain.pdf', 'plain.pdf'],
		['attachment; filename="x.pdf"; filename*=UTF-8\'\'Rechnung%20%C3%BC.pdf', 'Rechnung ü.pdf'],
		['attachment; filename="../../etc/evil.pdf"', 'evil.pdf'],
		['inline', undefined],
	])('Content-Disposition %p gives %p', (header, name) => {
		expect(fileNameFromDisposition(header)).toBe(name);
	});

	it('adds an extension from the type when the name has none', () => {
		expect(
			describeDownload(new URL('https://h/doc/42'), { 'content-type': 'application/pdf' }),
		).toEqual({ fileName: '42.pdf', mimeType: 'application/pdf', declaredType: 'application/pdf' });
		expect(describeDownload(new URL('https://h/'), { 'content-type': 'image/jpeg' }).fileName).toBe(
			'document.jpg',
		);
	});
});

describe('addresses a download may reach', () => {
	const ALLOW = 'Allow Private Addresses';

	function downloadFrom(
		url: string,
		{
			allowPrivateAddresses = false,
			resolve,
			httpRequest,
		}: {
			allowPrivateAddresses?: boolean;
			resolve?: (host: string) => string[];
			httpRequest?: (request: unknown) => Promise<unknown>;
		} = {},
	) {
		const ctx = createContext({ params: {} });
		const helpers = (ctx as unknown as { helpers: Record<string, unknown> }).helpers;
		const policies: unknown[] = [];
		if (resolve) {
			helpers.getSecureEgressFilter = (policy: unknown) => {
				policies.push(policy);
				return {
					createSecureLookup:
						() =>
						(
							host: string,
							_options: unknown,
							callback: (e: Error | null, a: Array<{ address: string }>) => void,
						) =>
							callback(
								null,
								resolve(host).map((address) => ({ address })),
							),
				};
			};
		}
		if (httpRequest) helpers.httpRequest = httpRequest;
		const result = downloadDocument.call(ctx, new URL(url), {
			itemIndex: 0,
			maxBytes: MB,
			timeoutMs: 5000,
			allowPrivateAddresses,
		});
		return { result, policies };
	}

	// Loopback literals only here: nothing is contacted (nock would refuse any connection).
	it.each([
		['http://127.0.0.1:9/a.pdf', '127.0.0.1:9', 'a loopback address'],
		['http://127.0.0.2/a.pdf', '127.0.0.2', 'a loopback address'],
		['http://2130706433/a.pdf', '127.0.0.1', 'a loopback address'],
		['http://0x7f.1/a.pdf', '127.0.0.1', 'a loopback address'],
		['http://0177.0.0.1/a.pdf', '127.0.0.1', 'a loopback address'],
		['http://[::1]:9/a.pdf', '[::1]:9', 'a loopback address'],
		['http://[::ffff:127.0.0.1]/a.pdf', '[::ffff:7f00:1]', 'a loopback address'],
		['http://localhost:9/a.pdf', 'localhost:9', 'a loopback address'],
		['http://files.localhost/a.pdf', 'files.localhost', 'a loopback address'],
		['http://0.0.0.0:9/a.pdf', '0.0.0.0:9', 'the unspecified address'],
	])('refuses %s at once, naming the class and the option', async (url, host, kind) => {
		const { result } = downloadFrom(url);
		const error = await failureOf(result);
		expect(error.message).toBe(
			`The document URL points to ${host}: ${kind}. Downloads from such addresses are refused unless "${ALLOW}" is on`,
		);
		expect(error.description).toContain('Nothing was sent to this address');
	});

	it('checks every redirect hop before contacting it', async () => {
		nock(HOST).get('/short').reply(302, '', { Location: 'http://127.0.0.1:9/private.pdf' });
		const error = await failureOf(downloadFrom(`${HOST}/short`).result);
		expect(error.message).toBe(
			`The document URL was redirected to 127.0.0.1:9: a loopback address. Downloads from such addresses are refused unless "${ALLOW}" is on`,
		);
	});

	it('checks a redirect to the metadata address written as IPv4-mapped IPv6', async () => {
		nock(HOST).get('/meta').reply(301, '', { Location: 'http://[::ffff:a9fe:a9fe]/latest/' });
		const error = await failureOf(downloadFrom(`${HOST}/meta`).result);
		expect(error.message).toMatch(
			/was redirected to \[::ffff:a9fe:a9fe\]: a link-local address \(this includes the cloud metadata address\)/,
		);
	});

	it('refuses a redirect to another scheme', async () => {
		nock(HOST).get('/ftp').reply(302, '', { Location: 'file:///etc/passwd' });
		const error = await failureOf(downloadFrom(`${HOST}/ftp`).result);
		expect(error.message).toBe(
			`The document URL ${HOST}/ftp redirected to an address that is not http(s)`,
		);
	});

	it('resolves a host name through n8n and refuses it when it resolves to a private address', async () => {
		const { result, policies } = downloadFrom(`${HOST}/a.pdf`, {
			resolve: () => ['93.184.216.34', '10.1.2.3'],
		});
		const error = await failureOf(result);
		expect(error.message).toBe(
			`The document URL points to files.example.test, which resolves to 10.1.2.3: a private network address. Downloads from such addresses are refused unless "${ALLOW}" is on`,
		);
		expect(policies).toEqual(['unsafe']);
	});

	it('downloads from a host name that resolves to public addresses only', async () => {
		nock(HOST).get('/a.pdf').reply(200, PDF, { 'Content-Type': 'application/pdf' });
		const { result } = downloadFrom(`${HOST}/a.pdf`, { resolve: () => ['93.184.216.34'] });
		await expect(result).resolves.toMatchObject({ mimeType: 'application/pdf' });
	});

	it('downloads from loopback, and follows redirects there, with the option on', async () => {
		nock('http://127.0.0.1:9').get('/r').reply(302, '', { Location: 'http://localhost:9/a.pdf' });
		nock('http://localhost:9').get('/a.pdf').reply(200, PDF, { 'Content-Type': 'application/pdf' });
		const { result } = downloadFrom('http://127.0.0.1:9/r', { allowPrivateAddresses: true });
		await expect(result).resolves.toMatchObject({ fileName: 'r.pdf', mimeType: 'application/pdf' });
	});

	it("says so when n8n's own SSRF protection blocks the request", async () => {
		const blocked = Object.assign(
			new Error('The request was blocked because it resolves to a restricted IP address'),
			{ name: 'SsrfBlockedIpError' },
		);
		const { result } = downloadFrom('http://127.0.0.1:9/a.pdf', {
			allowPrivateAddresses: true,
			httpRequest: async () => {
				throw blocked;
			},
		});
		const error = await failureOf(result);
		expect(error.message).toBe(
			"n8n's SSRF protection blocked the download from http://127.0.0.1:9/a.pdf: The request was blocked because it resolves to a restricted IP address",
		);
		expect(error.description).toContain('N8N_SSRF_ALLOWED_IP_RANGES');
	});
});
