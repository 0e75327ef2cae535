import { readBaseUrl } from './baseUrl';
import { CREDENTIAL } from './messages';

/**
 * The Document Extraction API credential as the nodes and the credential itself read it: the
 * key's format and the Base URL are checked the same way before any request is sent.
 */

/** The credential type's name, as the nodes ask for it. */
export const CREDENTIAL_TYPE = 'documentExtractionApi';

const API_KEY_PREFIX = 'vnd_';

/**
 * Returns the key when it has the service's format, otherwise throws an error that
 * says what a key looks like and where to get one. The key itself is never echoed.
 */
function assertApiKeyFormat(apiKey: unknown): string {
	const key = typeof apiKey === 'string' ? apiKey.trim() : '';
	if (!key.startsWith(API_KEY_PREFIX) || key.length <= API_KEY_PREFIX.length) {
		throw new Error(CREDENTIAL.keyFormat);
	}
	return key;
}

/**
 * The checked key and Base URL of a credential's data. Throws an error whose message says what
 * is wrong (the key's format first, then the Base URL), never repeating the key.
 */
export function readCredential(credentials: {
	apiKey?: unknown;
	baseUrl?: unknown;
	allowUnencryptedHttp?: unknown;
}): { apiKey: string; baseUrl: string } {
	const apiKey = assertApiKeyFormat(credentials.apiKey);
	return { apiKey, baseUrl: readBaseUrl(credentials) };
}
