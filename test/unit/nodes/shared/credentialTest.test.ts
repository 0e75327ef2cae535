import type { ICredentialTestFunctions } from 'n8n-workflow';

import { testCredential } from '../../../../nodes/shared/credentialTest';
import { API_KEY } from '../../helpers/context';

/**
 * The editor's credential test where a real n8n cannot be made to fail without traffic outside
 * loopback (test/e2e/cases/credential.test.js has the rest): n8n's request helper is a stand-in
 * that fails the way n8n's HTTP client (axios) does.
 */
const BASE_URL = 'https://api.example.com/v1/';

function run(
	fail: Record<string, unknown> | undefined,
	data: Record<string, unknown> = {},
	answer: { statusCode: number; body: unknown } = { statusCode: 200, body: [] },
) {
	const sent: Array<Record<string, unknown>> = [];
	const request = async (options: Record<string, unknown>) => {
		sent.push(options);
		if (fail) throw Object.assign(new Error(String(fail.message)), fail, { isAxiosError: true });
		return { headers: {}, ...answer };
	};
	const ctx = { helpers: { request } } as unknown as ICredentialTestFunctions;
	const credential = { id: '1', name: 'c', type: 'documentExtractionApi' };
	const result = testCredential.call(ctx, {
		...credential,
		data: { apiKey: API_KEY, baseUrl: BASE_URL, ...data },
	});
	return { result, sent };
}

describe("The editor's credential test", () => {
	it('sends GET /projects with the key, without following redirects or waiting more than 10 s', async () => {
		const { result, sent } = run(undefined);
		await expect(result).resolves.toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(sent).toEqual([
			expect.objectContaining({
				uri: 'https://api.example.com/v1/projects',
				method: 'GET',
				headers: expect.objectContaining({ Authorization: `Bearer ${API_KEY}` }),
				simple: false,
				followRedirect: false,
				timeout: 10_000,
			}),
		]);
	});

	it('says a host name that is not found, and to check the Base URL', async () => {
		const { result } = run({ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND api.example.com' });
		await expect(result).resolves.toEqual({
			status: 'Error',
			message:
				'Could not reach the Document Extraction Service: The host name was not found (ENOTFOUND). Check the Base URL in the credential (https://api.example.com/v1) and that the service is reachable from n8n.',
		});
	});

	it('says that no answer came in time, and to check the Base URL', async () => {
		const { result } = run({ code: 'ECONNABORTED', message: 'timeout of 10000ms exceeded' });
		const { message } = await result;
		expect(message).toMatch(
			/^Could not reach the Document Extraction Service: No complete answer within 10 s\. Check the Base URL in the credential \(https:\/\/api\.example\.com\/v1\)/,
		);
	});

	it.each([
		[
			'JSON that lists no projects',
			{ statusCode: 200, body: { status: 'ok' } },
			/answered 200 with JSON that lists no projects\. Enter the address/,
		],
		[
			'a server error',
			{ statusCode: 500, body: { detail: 'Injected fault' } },
			/server error \(500\).*Try again later; if it persists, contact support\.$/,
		],
	])('says what is wrong with an answer of %s, and what to do', async (_, answer, expected) => {
		const { result } = run(undefined, {}, answer);
		await expect(result).resolves.toEqual({
			status: 'Error',
			message: expect.stringMatching(expected),
		});
	});

	it('says an https address that does not speak https', async () => {
		const { result } = run({
			code: 'EPROTO',
			message: 'write EPROTO 00D8:error:wrong version number',
		});
		const { message } = await result;
		expect(message).toMatch(
			/^Could not reach the Document Extraction Service: The secure connection failed \(EPROTO\): the address may not speak https\. Check the Base URL/,
		);
	});

	it('sends nothing for an http:// Base URL off this machine', async () => {
		const { result, sent } = run(undefined, { baseUrl: 'http://gateway.internal:8080' });
		await expect(result).resolves.toMatchObject({
			status: 'Error',
			message: expect.stringMatching(/the API key would travel unencrypted/),
		});
		expect(sent).toEqual([]);
	});
});
