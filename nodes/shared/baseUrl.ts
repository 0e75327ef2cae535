import { classifyHost } from './addresses';
import { CREDENTIAL } from './messages';
import { displayUrl, parseHttpUrl } from './urls';

/**
 * The Base URL of the Document Extraction API credential, read the same way by the nodes and by
 * the credential test: trimmed, trailing slashes dropped, a path prefix such as /v1 kept. It may
 * hold only a scheme, a host, a port and a path: a user name, password, query or fragment is
 * refused (they are where a key pasted by mistake ends up), and no message ever repeats them.
 */

interface BaseUrlOptions {
	/** Allows http:// for hosts other than loopback (the API key then travels unencrypted). */
	allowUnencryptedHttp?: boolean;
}

/** The name of the credential option that allows http:// for hosts other than loopback. */
export const ALLOW_HTTP_OPTION = 'Allow Unencrypted HTTP';

/** The text of a Base URL as the credential holds it, trimmed and without trailing slashes. */
function trimBaseUrl(raw: unknown): string {
	return typeof raw === 'string' ? raw.trim().replace(/\/+$/, '') : '';
}

/** Scheme, host, port and path of the Base URL, without trailing slashes, safe to show. */
function safeParts(url: URL): string {
	return displayUrl(url).replace(/\/+$/, '');
}

/**
 * The Base URL in a form safe for messages, descriptions and logs: scheme, host, port and path
 * only. Never the user info, query or fragment; '(not a URL)' when it cannot be read.
 */
export function displayBaseUrl(raw: unknown): string {
	try {
		return safeParts(new URL(trimBaseUrl(raw)));
	} catch {
		return '(not a URL)';
	}
}

function invalid(reason: string): Error {
	return new Error(CREDENTIAL.baseUrl(reason));
}

/**
 * Normalises and checks the credential's Base URL; returns the address requests are sent to.
 * Throws an error whose message says what is wrong, without repeating the Base URL's user info,
 * query or fragment.
 */
function normalizeBaseUrl(raw: unknown, options: BaseUrlOptions = {}): string {
	const value = trimBaseUrl(raw);
	const url = /^https?:\/\//i.test(value) ? parseHttpUrl(value) : undefined;
	if (!url) {
		throw invalid(CREDENTIAL.notHttp);
	}
	if (url.username || url.password) {
		throw invalid(CREDENTIAL.userInfo(safeParts(url)));
	}
	if (url.search || value.includes('?')) {
		throw invalid(CREDENTIAL.query(safeParts(url)));
	}
	if (url.hash || value.includes('#')) {
		throw invalid(CREDENTIAL.fragment(safeParts(url)));
	}
	if (
		url.protocol === 'http:' &&
		classifyHost(url.hostname) !== 'loopback' &&
		options.allowUnencryptedHttp !== true
	) {
		throw invalid(CREDENTIAL.unencrypted(url.host, ALLOW_HTTP_OPTION));
	}
	return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/** The Base URL of a credential's data, checked with the credential's own options. */
export function readBaseUrl(credentials: {
	baseUrl?: unknown;
	allowUnencryptedHttp?: unknown;
}): string {
	return normalizeBaseUrl(credentials.baseUrl, {
		allowUnencryptedHttp: credentials.allowUnencryptedHttp === true,
	});
}
