import { staysOnThisMachine } from './addresses';
import { CREDENTIAL } from './messages';
import { displayUrl, parseHttpUrl } from './urls';

// No message repeats the key, nor the Base URL's user info, query or fragment (where a key
// pasted by mistake ends up).

export const CREDENTIAL_TYPE = 'documentExtractionApi';

export const ALLOW_HTTP_OPTION = 'Allow Unencrypted HTTP';

function trimBaseUrl(raw: unknown): string {
	return typeof raw === 'string' ? raw.trim().replace(/\/+$/, '') : '';
}

function safeParts(url: URL): string {
	return displayUrl(url).replace(/\/+$/, '');
}

/** The Base URL safe for messages and logs: scheme, host, port and path; '(not a URL)' else. */
export function displayBaseUrl(raw: unknown): string {
	try {
		return safeParts(new URL(trimBaseUrl(raw)));
	} catch {
		return '(not a URL)';
	}
}

/** The checked key and Base URL of a credential's data; the key's format is checked first. */
export function readCredential(credentials: {
	apiKey?: unknown;
	baseUrl?: unknown;
	allowUnencryptedHttp?: unknown;
}): { apiKey: string; baseUrl: string } {
	const apiKey = typeof credentials.apiKey === 'string' ? credentials.apiKey.trim() : '';
	// vnd_ and at least one visible ASCII character: what a header can carry as it is
	if (!/^vnd_[\x21-\x7e]+$/.test(apiKey)) throw new Error(CREDENTIAL.keyFormat);
	const value = trimBaseUrl(credentials.baseUrl);
	const url = /^https?:\/\//i.test(value) ? parseHttpUrl(value) : undefined;
	const invalid = (reason: string) => new Error(CREDENTIAL.baseUrl(reason));
	if (!url) throw invalid(CREDENTIAL.notHttp);
	if (url.username || url.password) throw invalid(CREDENTIAL.userInfo(safeParts(url)));
	if (url.search || value.includes('?')) throw invalid(CREDENTIAL.query(safeParts(url)));
	if (url.hash || value.includes('#')) throw invalid(CREDENTIAL.fragment(safeParts(url)));
	// only a loopback IP or `localhost` stays on this machine: n8n may ask DNS for *.localhost
	const loopback = url.hostname === 'localhost' || staysOnThisMachine(url.hostname);
	if (url.protocol === 'http:' && !loopback && credentials.allowUnencryptedHttp !== true) {
		const message = /localhost\.?$/i.test(url.hostname) ? 'localhostName' : 'unencrypted';
		throw invalid(CREDENTIAL[message](url.host, ALLOW_HTTP_OPTION));
	}
	return { apiKey, baseUrl: `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}` };
}
