import type { ICredentialTestFunction, IHttpRequestOptions } from 'n8n-workflow';

import { CREDENTIAL_TYPE, displayBaseUrl } from './credential';
import { worded } from './explain';
import { CREDENTIAL } from './messages';
import { extractProjectList } from './projects';
import { failureOf } from './transport/errors';
import { apiRequest } from './transport/request';
import type { ApiContext } from './transport/runCredential';

const TIMEOUT_MS = 10_000;
const AS_SENT = { json: true, resolveWithFullResponse: true, simple: false, followRedirect: false };
const result = (message: string, status: 'OK' | 'Error' = 'Error') => ({ status, message });

/** The editor's credential test: GET /projects as the nodes send it, failures in their words. */
export const testCredential: ICredentialTestFunction = async function ({ data = {} }) {
	const { request } = this.helpers; // the only request helper n8n gives a credential test
	const httpRequest = async ({ url: uri, method, headers }: IHttpRequestOptions) =>
		await request({ ...AS_SENT, uri, method, headers, timeout: TIMEOUT_MS });
	const getNode = () => ({ name: 'Credential test', type: CREDENTIAL_TYPE, parameters: {} });
	const ctx = { getCredentials: async () => data, getNode, helpers: { httpRequest } };
	const notTheService = (answer: string) =>
		result(CREDENTIAL.notTheService(displayBaseUrl(data.baseUrl), answer));
	const deadline = Date.now() + TIMEOUT_MS;
	const options = { method: 'GET', path: '/projects', attempts: 1, deadline } as const;
	try {
		// the key and the Base URL are checked first: nothing is sent if they fail
		const body = await apiRequest.call(ctx as unknown as ApiContext, options);
		if (extractProjectList(body)) return result('Connection successful!', 'OK');
		const what =
			body && typeof body === 'object' ? 'JSON that lists no projects' : 'a page that is not JSON';
		return notTheService(`200 with ${what}`);
	} catch (error) {
		const caught = worded(error);
		const failure = failureOf(caught);
		if (failure?.kind === 'no_answer')
			return result(`Could not reach the Document Extraction Service: ${failure.description}`);
		const status = failure?.status ?? 0;
		const refusedElsewhere = status >= 400 && status < 500 && ![401, 402, 429].includes(status);
		if (refusedElsewhere) return notTheService(String(status));
		const { message, description } = caught as Error & { description?: string };
		return result(failure?.kind === 'service_failed' ? `${message}. ${description}` : message);
	}
};
