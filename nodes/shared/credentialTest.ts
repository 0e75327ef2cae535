import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE, displayBaseUrl } from './credential';
import { checkBaseUrl, explain } from './explain';
import { CREDENTIAL } from './messages';
import { failureOf } from './transport/errors';
import { apiRequest } from './transport/request';
import type { ApiContext } from './transport/runCredential';

const TIMEOUT_MS = 10_000;
const AS_SENT = { json: true, resolveWithFullResponse: true, simple: false, followRedirect: false };

/**
 * The editor's credential test: GET /projects through the nodes' transport (the key and the Base
 * URL checked first, nothing sent if they fail), each failure in the words of the run-time errors.
 */
export async function testCredential(
	this: ICredentialTestFunctions,
	{ data = {} }: ICredentialsDecrypted,
) {
	const { request } = this.helpers; // the only request helper n8n gives a credential test
	const httpRequest = async ({ url: uri, method, headers }: IHttpRequestOptions) =>
		await request({ ...AS_SENT, uri, method, headers, timeout: TIMEOUT_MS });
	const getNode = () => ({ name: 'Credential test', type: CREDENTIAL_TYPE, parameters: {} });
	const ctx = { getCredentials: async () => data, getNode, helpers: { httpRequest } };
	const result = (message: string, status: 'OK' | 'Error' = 'Error') => ({ status, message });
	const notTheService = (answer: string) =>
		result(CREDENTIAL.notTheService(displayBaseUrl(data.baseUrl), answer));
	const options = { method: 'GET', path: '/projects', attempts: 1 } as const;
	try {
		const deadline = Date.now() + TIMEOUT_MS;
		const body = await apiRequest.call(ctx as unknown as ApiContext, { ...options, deadline });
		if (body && typeof body === 'object') return result('Connection successful!', 'OK');
		return notTheService('200 with a page that is not JSON');
	} catch (caught) {
		const failure = failureOf(explain(caught));
		const status = failure?.status ?? 0;
		if (status >= 400 && status < 500 && ![401, 402, 429].includes(status)) {
			return notTheService(String(status));
		}
		if (failure?.kind !== 'no_answer') return result((caught as Error).message);
		return result(`${failure.message}. ${checkBaseUrl(String(failure.facts.baseUrl))}`);
	}
}
