/** Reading and showing http(s) addresses: the nodes' one way to do either. */

/** API keys look like vnd_…; a part of an address that does is never shown. */
const KEY_LIKE = /vnd_[^/?#\s]*/gi;

/**
 * `text` as an http:// or https:// URL with a host (resolved against `base` when given), or
 * undefined when it is not one.
 */
export function parseHttpUrl(text: string, base?: URL): URL | undefined {
	let url: URL;
	try {
		url = new URL(text, base);
	} catch {
		return undefined;
	}
	return ['http:', 'https:'].includes(url.protocol) && url.hostname ? url : undefined;
}

/**
 * An address in a form safe for messages, outputs and logs: scheme, host, port and path only,
 * never the user info, query or fragment, and anything that looks like an API key masked.
 */
export function displayUrl(url: URL): string {
	return `${url.protocol}//${url.host}${url.pathname}`.replace(KEY_LIKE, 'vnd_…');
}
