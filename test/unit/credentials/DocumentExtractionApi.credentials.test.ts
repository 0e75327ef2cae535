import { DocumentExtractionApi } from '../../../credentials/DocumentExtractionApi.credentials';
import { API_KEY, BASE_URL } from '../helpers/context';

describe('Credential', () => {
	const credential = new DocumentExtractionApi();

	it('adds the Bearer header for a vnd_ key', async () => {
		const options = await credential.authenticate(
			{ apiKey: API_KEY, baseUrl: BASE_URL },
			{ url: '/projects' },
		);
		expect(options.headers).toEqual({ Authorization: `Bearer ${API_KEY}` });
	});

	it('refuses any other key, saying what keys look like and where they come from', async () => {
		await expect(credential.authenticate({ apiKey: 'abc123' }, { url: '/x' })).rejects.toThrow(
			/keys look like vnd_… .*web dashboard/,
		);
	});

	it('is tested with GET /projects on the base URL without its trailing slash', () => {
		expect(credential.test.request).toMatchObject({ url: '/projects', method: 'GET' });
		expect(credential.test.request.baseURL).toContain('$credentials.baseUrl');
		expect(credential.properties.find((p) => p.name === 'apiKey')?.typeOptions?.password).toBe(
			true,
		);
	});

	it('refuses an http:// Base URL for a host other than loopback unless allowed, before sending', async () => {
		const http = { apiKey: API_KEY, baseUrl: 'http://gateway.internal:8080' };
		await expect(credential.authenticate(http, { url: '/projects' })).rejects.toThrow(
			/the API key would travel unencrypted.*"Allow Unencrypted HTTP"/,
		);
		const allowed = await credential.authenticate(
			{ ...http, allowUnencryptedHttp: true },
			{ url: '/projects' },
		);
		expect(allowed.headers).toEqual({ Authorization: `Bearer ${API_KEY}` });
		expect(credential.properties.find((p) => p.name === 'allowUnencryptedHttp')).toMatchObject({
			type: 'boolean',
			default: false,
		});
	});

	it('refuses a Base URL with a query without repeating it', async () => {
		const pasted = ['vnd', 'pasted_into_the_url'].join('_');
		const error = await credential
			.authenticate(
				{ apiKey: API_KEY, baseUrl: `https://api.example.com/?key=${pasted}` },
				{
					url: '/projects',
				},
			)
			.catch((e: Error) => e);
		expect((error as Error).message).toMatch(/must not contain a query/);
		expect((error as Error).message).not.toContain(pasted);
	});

	it('tests with the Base URL trimmed and without trailing slashes, as the nodes read it', () => {
		expect(credential.test.request.baseURL).toBe(
			'={{ String($credentials.baseUrl ?? "").trim().replace(/\\/+$/, "") }}',
		);
	});
});
