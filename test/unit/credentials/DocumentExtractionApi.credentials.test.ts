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
});
