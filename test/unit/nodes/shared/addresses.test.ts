import {
	classifyHost,
	firstRestricted,
	isRestricted,
} from '../../../../nodes/shared/addresses';

/**
 * The address table: each URL as a user or an agent could write it, and the class its host has.
 * A pure function over strings: nothing here is ever contacted.
 */
const URL_TABLE: Array<[string, string | undefined]> = [
	// loopback, in every IPv4 notation the URL parser accepts (the other classes: a few of them)
	['http://127.0.0.1/a.pdf', 'loopback'],
	['http://127.0.0.2:8080/a.pdf', 'loopback'],
	['http://127.255.255.254/', 'loopback'],
	['http://2130706433/', 'loopback'],
	['http://0x7f000001/', 'loopback'],
	['http://0x7f.1/', 'loopback'],
	['http://0177.0.0.1/', 'loopback'],
	['http://0177.1/', 'loopback'],
	['http://127.1/', 'loopback'],
	['http://127.0.1/', 'loopback'],
	['http://0x7F.0x0.0x0.0x1/', 'loopback'],
	['http://127.000.000.001/', 'loopback'],
	['http://[::1]/', 'loopback'],
	['http://[0:0:0:0:0:0:0:1]/', 'loopback'],
	['http://[::ffff:127.0.0.1]/', 'loopback'],
	['http://[::ffff:7f00:1]/', 'loopback'],
	['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'loopback'],
	['http://[::127.0.0.1]/', 'loopback'],
	['http://[64:ff9b::127.0.0.1]/', 'loopback'],
	// 6to4, Teredo (server; client inverted) and local-use NAT64 carry an IPv4 address too
	['http://[2002:7f00:1::]/', 'loopback'],
	['http://[2002:c0a8:101::1]/', 'private'],
	['http://[2002:a9fe:a9fe:1:2:3:4:5]/', 'link-local'],
	['http://[2002:808:808::1]/', 'public'],
	['http://[2001:0:7f00:1::]/', 'loopback'],
	['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'loopback'],
	['http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', 'private'],
	['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'public'],
	['http://[2001:db8::7f00:1]/', 'public'],
	['http://[64:ff9b:1::10.0.0.1]/', 'private'],
	['http://[64:ff9b:1:ffff::7f00:1]/', 'loopback'],
	['http://[64:ff9b:1::808:808]/', 'public'],
	['http://[64:ff9b:2::7f00:1]/', 'public'],
	['http://localhost/', 'loopback'],
	['http://LOCALHOST:3000/', 'loopback'],
	['http://localhost./', 'loopback'],
	['http://n8n.localhost/', 'loopback'],
	['http://a.b.localhost/', 'loopback'],
	// private (RFC 1918, fc00::/7)
	['http://10.0.0.1/', 'private'],
	['http://10.255.255.255/', 'private'],
	['http://172.16.0.1/', 'private'],
	['http://172.31.255.255/', 'private'],
	['http://192.168.0.1/', 'private'],
	['http://0xc0a80001/', 'private'],
	['http://[fc00::1]/', 'private'],
	['http://[fd12:3456:789a::1]/', 'private'],
	['http://[::ffff:10.0.0.1]/', 'private'],
	['http://[::ffff:192.168.1.1]/', 'private'],
	['http://[::ffff:c0a8:101]/', 'private'],
	// link-local (169.254.0.0/16 with the cloud metadata address, fe80::/10)
	['http://169.254.169.254/latest/meta-data/', 'link-local'],
	['http://0xa9fea9fe/', 'link-local'],
	['http://169.254.43518/', 'link-local'],
	['http://169.254.0.1/', 'link-local'],
	['http://[fe80::1]/', 'link-local'],
	['http://[febf:ffff::1]/', 'link-local'],
	['http://[::ffff:169.254.169.254]/', 'link-local'],
	['http://[::ffff:a9fe:a9fe]/', 'link-local'],
	// unspecified
	['http://0.0.0.0/', 'unspecified'],
	['http://0/', 'unspecified'],
	['http://0.0.0.7/', 'unspecified'],
	['http://[::]/', 'unspecified'],
	['http://[0:0:0:0:0:0:0:0]/', 'unspecified'],
	['http://[::ffff:0.0.0.0]/', 'unspecified'],
	// shared / carrier-grade NAT (100.64.0.0/10)
	['http://100.64.0.1/', 'shared'],
	['http://100.127.255.255/', 'shared'],
	['http://[::ffff:100.64.0.1]/', 'shared'],
	// public: not refused
	['http://100.63.255.255/', 'public'],
	['http://100.128.0.0/', 'public'],
	['http://172.15.255.255/', 'public'],
	['http://172.32.0.0/', 'public'],
	['http://192.169.0.1/', 'public'],
	['http://169.253.255.255/', 'public'],
	['http://128.0.0.1/', 'public'],
	['http://126.255.255.255/', 'public'],
	['http://1.1.1.1/', 'public'],
	['http://[2001:db8::1]/', 'public'],
	['http://[2606:4700:4700::1111]/', 'public'],
	['http://[fec0::1]/', 'public'],
	['http://[::ffff:8.8.8.8]/', 'public'],
	['http://[::2]/', 'unspecified'], // IPv4-compatible form of 0.0.0.2
	// names: only a lookup can tell
	['https://example.com/a.pdf', undefined],
	['http://127.0.0.1.nip.io/', undefined],
	['http://localhost.example.com/', undefined],
	['http://mylocalhost/', undefined],
	['http://0x7f.example/', undefined],
];

describe('classifyHost over the URL parser', () => {
	it.each(URL_TABLE)('%s → %s', (url, expected) => {
		expect(classifyHost(new URL(url).hostname)).toBe(expected);
	});

	it('refuses every class but public', () => {
		const restricted = URL_TABLE.filter(([, kind]) => isRestricted(kind as never)).length;
		const expected = URL_TABLE.filter(([, kind]) => kind && kind !== 'public').length;
		expect(restricted).toBe(expected);
		expect(isRestricted(undefined)).toBe(false);
		expect(isRestricted('public')).toBe(false);
	});
});

describe('classifyHost on IP literals (addresses a name resolves to)', () => {
	it.each([
		['127.0.0.1', 'loopback'],
		['::1', 'loopback'],
		['::ffff:127.0.0.1', 'loopback'],
		['10.1.2.3', 'private'],
		['fd00::abcd', 'private'],
		['169.254.169.254', 'link-local'],
		['fe80::1%eth0', 'link-local'],
		['FE80::1', 'link-local'],
		['0.0.0.0', 'unspecified'],
		['::', 'unspecified'],
		['100.100.100.100', 'shared'],
		['93.184.216.34', 'public'],
		['2a00:1450:4001:81b::200e', 'public'],
		['0:0:0:0:0:0:0:1', 'loopback'],
		['2002:7f00:1::', 'loopback'],
		['2001:0:a9fe:a9fe::', 'link-local'],
		['', undefined],
		['256.0.0.1', undefined],
		['1.2.3', undefined],
		['1:2:3:4:5:6:7:8:9', undefined],
		['1::2::3', undefined],
		['g::1', undefined],
		['::ffff:1.2.3.999', undefined],
	])('%p → %s', (ip, expected) => {
		expect(classifyHost(ip)).toBe(expected);
	});

	it.each([
		[['93.184.216.34', '10.1.2.3'], { address: '10.1.2.3', kind: 'private' }],
		[
			['2a00:1450:4001:81b::200e', '169.254.169.254'],
			{ address: '169.254.169.254', kind: 'link-local' },
		],
		[['93.184.216.34', '2a00:1450:4001:81b::200e'], undefined],
		[['not an address'], undefined],
		[[], undefined],
	])('firstRestricted(%p) → %p: every address of a name counts', (addresses, expected) => {
		expect(firstRestricted(addresses)).toEqual(expected);
	});
});
