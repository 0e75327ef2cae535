import { displayBaseUrl, readCredential } from '../../../../nodes/shared/credential';

const PASTED = ['vnd', 'live_PASTEDKEY123'].join('_');
const readBaseUrl = (data: { baseUrl: unknown; allowUnencryptedHttp?: boolean }) =>
	readCredential({ apiKey: 'vnd_key', ...data }).baseUrl;

describe('the Base URL of the credential', () => {
	it.each([
		['https://api.example.com', 'https://api.example.com'],
		['  https://api.example.com/  ', 'https://api.example.com'],
		['https://api.example.com///', 'https://api.example.com'],
		['https://api.example.com/v1/', 'https://api.example.com/v1'],
		['https://API.Example.com:443/v1', 'https://api.example.com/v1'],
		['https://api.example.com:8443/v1', 'https://api.example.com:8443/v1'],
		['http://127.0.0.1:8790', 'http://127.0.0.1:8790'],
		['http://127.0.0.2:8790/v1', 'http://127.0.0.2:8790/v1'],
		['http://localhost:8790/', 'http://localhost:8790'],
		['http://[::1]:8790', 'http://[::1]:8790'],
		['http://[::ffff:127.0.0.1]:8790', 'http://[::ffff:7f00:1]:8790'],
	])('%p → %p', (raw, expected) => {
		expect(readBaseUrl({ baseUrl: raw })).toBe(expected);
	});

	it.each([
		['http://api.example.com', 'api.example.com'],
		['http://intranet-gateway:8080/v1', 'intranet-gateway:8080'],
		['  http://gateway.internal/  ', 'gateway.internal'],
		// they carry 127.0.0.1, but through a gateway on the network (NAT64, 6to4, Teredo)
		['http://[64:ff9b::7f00:1]:6091', '[64:ff9b::7f00:1]:6091'],
		['http://[2002:7f00:1::1]', '[2002:7f00:1::1]'],
		['http://[2001:0:7f00:1::1]', '[2001:0:7f00:1::1]'],
	])('refuses http:// for %p, which is not loopback, unless allowed', (raw, host) => {
		expect(() => readBaseUrl({ baseUrl: raw })).toThrow(
			`uses http:// for ${host}: the API key would travel unencrypted. Use https://, or turn on "Allow Unencrypted HTTP"`,
		);
		expect(readBaseUrl({ baseUrl: raw, allowUnencryptedHttp: true })).toMatch(/^http:\/\//);
	});

	it.each(['http://n8n.localhost:8790', 'http://a.b.localhost', 'http://localhost.:8790'])(
		'refuses http:// for %p, a name n8n may ask DNS for, naming the fixes',
		(raw) => {
			expect(() => readBaseUrl({ baseUrl: raw })).toThrow(
				/n8n may look names under \.localhost up in DNS.*Use http:\/\/127\.0\.0\.1 or http:\/\/localhost for this machine, https:\/\/, or turn on "Allow Unencrypted HTTP"/,
			);
			expect(readBaseUrl({ baseUrl: raw, allowUnencryptedHttp: true })).toMatch(/^http:\/\//);
			expect(readBaseUrl({ baseUrl: raw.replace('http:', 'https:') })).toMatch(/^https:/);
		},
	);

	it.each([
		[
			`https://user:${PASTED}@api.example.com/v1`,
			/user name or password .*https:\/\/api\.example\.com\/v1\)/,
		],
		[`https://${PASTED}@api.example.com`, /user name or password/],
		[
			`https://api.example.com/v1?api_key=${PASTED}`,
			/must not contain a query .*https:\/\/api\.example\.com\/v1\)/,
		],
		[`https://api.example.com/?`, /must not contain a query/],
		[`https://api.example.com/#${PASTED}`, /must not contain a fragment/],
		[`https://api.example.com/${PASTED}`, /^$/],
		[`${PASTED} https://api.example.com`, /must start with http:\/\/ or https:\/\//],
		[PASTED, /must start with http/],
		['', /must start with http/],
		[undefined, /must start with http/],
	])('never repeats a key pasted into %p', (raw, message) => {
		let text = '';
		try {
			readBaseUrl({ baseUrl: raw });
		} catch (error) {
			text = (error as Error).message;
		}
		expect(text).toMatch(message);
		expect(text).not.toContain('PASTEDKEY');
	});
});

describe('displayBaseUrl', () => {
	it.each([
		['https://api.example.com/v1/', 'https://api.example.com/v1'],
		[
			`https://user:${PASTED}@api.example.com:8443/v1?key=${PASTED}#x`,
			'https://api.example.com:8443/v1',
		],
		[`https://api.example.com/${PASTED}/v1`, 'https://api.example.com/vnd_…/v1'],
		['not a url', '(not a URL)'],
		[PASTED, '(not a URL)'],
	])('%p is shown as %p', (raw, shown) => {
		expect(displayBaseUrl(raw)).toBe(shown);
	});
});
