/** API keys look like vnd_…; a part of an address that does is never shown. */
const KEY_LIKE = /vnd_[^/?#\s]*/gi;

export function parseHttpUrl(text: string, base?: URL): URL | undefined {
	let url: URL;
	try {
		url = new URL(text, base);
	} catch {
		return undefined;
	}
	return ['http:', 'https:'].includes(url.protocol) && url.hostname ? url : undefined;
}

/** An address safe to show: scheme, host, port and path, anything like an API key masked. */
export function displayUrl(url: URL): string {
	return `${url.protocol}//${url.host}${url.pathname}`.replace(KEY_LIKE, 'vnd_…');
}
