import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { DocumentExtractionApi } from '../../../credentials/DocumentExtractionApi.credentials';
import { API_KEY, BASE_URL } from '../helpers/context';

/** The Base URL's checks are shared with the nodes (test/unit/nodes/shared/credential.baseUrl.test.ts). */
describe('Credential', () => {
	const credential = new DocumentExtractionApi();
	const authenticate = async (data: ICredentialDataDecryptedObject) =>
		await credential.authenticate(data, { url: '/projects' });

	it('adds the Bearer header for a vnd_ key', async () => {
		const options = await authenticate({ apiKey: API_KEY, baseUrl: BASE_URL });
		expect(options.headers).toEqual({ Authorization: `Bearer ${API_KEY}` });
	});

	it('refuses any other key, saying what keys look like and where they come from', async () => {
		await expect(authenticate({ apiKey: 'abc123' })).rejects.toThrow(
			/keys look like vnd_… .*web dashboard/,
		);
		for (const apiKey of ['vnd_', 'vnd_test key', 'vnd_tést', 'vnd_a\tb'])
			await expect(authenticate({ apiKey })).rejects.toThrow(/keys look like vnd_/);
	});

	it('has an option for http:// to a host other than loopback, off unless set', async () => {
		expect(credential.properties.find((p) => p.name === 'allowUnencryptedHttp')).toMatchObject({
			type: 'boolean',
			default: false,
		});
		const http = { apiKey: API_KEY, baseUrl: 'http://gateway.internal:8080' };
		await expect(authenticate(http)).rejects.toThrow(/"Allow Unencrypted HTTP"/);
		await expect(authenticate({ ...http, allowUnencryptedHttp: true })).resolves.toBeDefined();
	});

	it('hides the API key as a password field (its test: test/unit/nodes/shared/credentialTest.test.ts)', () => {
		expect(credential.properties.find((p) => p.name === 'apiKey')?.typeOptions?.password).toBe(
			true,
		);
	});
});
