import nock from 'nock';

import { downloadDocument } from '../../../../../nodes/DocumentExtraction/input/download';
import { createContext, failureOf, useOfflineNock } from '../../../helpers/context';

const HOST = 'http://files.example.test';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n%%EOF\n');
const MB = 1024 * 1024;

useOfflineNock();
afterEach(() => expect(nock.pendingMocks()).toEqual([]));

describe('addresses a download may reach', () => {
	const ALLOW = 'Allow Private Addresses';

	/** A download of `url`; n8n's resolver, where given, resolves any name to `resolve`. */
	function downloadFrom(
		url: string,
		options: {
			allowPrivateAddresses?: boolean;
			resolve?: string[];
			httpRequest?: () => Promise<unknown>;
		} = {},
	) {
		const ctx = createContext({ params: {} });
		const helpers = ctx.helpers as unknown as Record<string, unknown>;
		const { resolve, httpRequest, allowPrivateAddresses } = options;
		const policies: unknown[] = [];
		if (resolve) {
			const lookup = (_host: string, _options: unknown, callback: (e: null, a: object[]) => void) =>
				callback(
					null,
					resolve.map((address) => ({ address })),
				);
			helpers.getSecureEgressFilter = (policy: unknown) => {
				policies.push(policy);
				return { createSecureLookup: () => lookup };
			};
		}
		if (httpRequest) helpers.httpRequest = httpRequest;
		const limits = { itemIndex: 0, maxBytes: MB, timeoutMs: 5000, allowPrivateAddresses };
		return { result: downloadDocument.call(ctx, new URL(url), limits), policies };
	}

	// Loopback literals only (the notations are shared/addresses' tests): nothing is contacted.
	it.each([
		['http://127.0.0.1:9/a.pdf', '127.0.0.1:9', 'a loopback address'],
		['http://2130706433/a.pdf', '127.0.0.1', 'a loopback address'],
		['http://[::1]:9/a.pdf', '[::1]:9', 'a loopback address'],
		['http://[::ffff:127.0.0.1]/a.pdf', '[::ffff:7f00:1]', 'a loopback address'],
		['http://localhost:9/a.pdf', 'localhost:9', 'a loopback address'],
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

	it('refuses a redirect to another scheme', async () => {
		nock(HOST).get('/ftp').reply(302, '', { Location: 'file:///etc/passwd' });
		const error = await failureOf(downloadFrom(`${HOST}/ftp`).result);
		expect(error.message).toBe(
			`The document URL ${HOST}/ftp redirected to an address that is not http(s)`,
		);
	});

	// which resolved addresses are refused is firstRestricted's table (shared/addresses' tests)
	it('resolves a host name through n8n and refuses it when it resolves to a restricted address', async () => {
		const { result, policies } = downloadFrom(`${HOST}/a.pdf`, { resolve: ['127.0.0.1'] });
		const error = await failureOf(result);
		expect(error.message).toBe(
			`The document URL points to files.example.test, which resolves to 127.0.0.1: a loopback address. Downloads from such addresses are refused unless "${ALLOW}" is on`,
		);
		expect(policies).toEqual(['unsafe']);
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
