/**
 * The network a URL host or IP address reaches. The URL parser has already turned every IPv4
 * notation (`2130706433`, `0177.0.0.1`, `127.1`) into dotted decimal in `URL.hostname`.
 */

/** The kinds of address a download refuses unless private addresses are allowed, as messages name them. */
export const ADDRESS_CLASS_NAMES = {
	loopback: 'a loopback address',
	private: 'a private network address',
	'link-local': 'a link-local address (this includes the cloud metadata address)',
	unspecified: 'the unspecified address',
	shared: 'a shared (carrier-grade NAT) address',
};

export type RestrictedAddressClass = keyof typeof ADDRESS_CLASS_NAMES;

type AddressClass = RestrictedAddressClass | 'public';

function parseIpv4(text: string): number[] | undefined {
	const parts = text.split('.');
	if (parts.length !== 4) return undefined;
	const bytes: number[] = [];
	for (const part of parts) {
		if (!/^\d{1,3}$/.test(part)) return undefined;
		const value = Number(part);
		if (value > 255) return undefined;
		bytes.push(value);
	}
	return bytes;
}

/** The eight 16-bit groups of an IPv6 address (brackets and zone allowed), or undefined. */
function parseIpv6(text: string): number[] | undefined {
	let value = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
	value = value.replace(/%.*$/, '').toLowerCase();
	if (!value.includes(':')) return undefined;
	// an embedded IPv4 tail (::ffff:127.0.0.1) becomes two groups
	const tail = /:(\d+\.\d+\.\d+\.\d+)$/.exec(value);
	if (tail) {
		const bytes = parseIpv4(tail[1]);
		if (!bytes) return undefined;
		const high = ((bytes[0] << 8) | bytes[1]).toString(16);
		const low = ((bytes[2] << 8) | bytes[3]).toString(16);
		value = `${value.slice(0, tail.index)}:${high}:${low}`;
	}
	const halves = value.split('::');
	if (halves.length > 2) return undefined;
	const read = (part: string) => (part === '' ? [] : part.split(':'));
	const head = read(halves[0]);
	const rest = halves.length === 2 ? read(halves[1]) : [];
	const missing = 8 - head.length - rest.length;
	if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
	const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
	const numbers: number[] = [];
	for (const group of groups) {
		if (!/^[0-9a-f]{1,4}$/.test(group)) return undefined;
		numbers.push(parseInt(group, 16));
	}
	return numbers;
}

function classifyIpv4([a, b]: number[]): AddressClass {
	if (a === 127) return 'loopback';
	if (a === 0) return 'unspecified';
	if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
	if (a === 169 && b === 254) return 'link-local';
	if (a === 100 && b >= 64 && b <= 127) return 'shared';
	return 'public';
}

function classifyIpv6(groups: number[]): AddressClass {
	const ipv4 = (hi: number, lo: number) => classifyIpv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
	const text = groups.map((g) => g.toString(16)).join(':');
	if (text === '0:0:0:0:0:0:0:0') return 'unspecified';
	if (text === '0:0:0:0:0:0:0:1') return 'loopback';
	// The IPv4 address carried decides: IPv4-mapped, -translated, -compatible and NAT64 (64:ff9b::/96,
	// 64:ff9b:1::/48) in the last 32 bits, 6to4 (2002::/16) in bits 16–48, Teredo (2001::/32) the
	// server's in bits 32–64 and the client's inverted in the last 32
	if (/^(0:0:0:0:(0|ffff):0|0:0:0:0:0:ffff|64:ff9b:(0:0:0:0|1)):/.test(text)) {
		return ipv4(groups[6], groups[7]);
	}
	if (groups[0] === 0x2002) return ipv4(groups[1], groups[2]);
	if (text.startsWith('2001:0:')) {
		const client = ipv4(groups[6] ^ 0xffff, groups[7] ^ 0xffff);
		return isRestricted(client) ? client : ipv4(groups[2], groups[3]);
	}
	if ((groups[0] & 0xfe00) === 0xfc00) return 'private';
	if ((groups[0] & 0xffc0) === 0xfe80) return 'link-local';
	return 'public';
}

function classifyIp(address: string): AddressClass | undefined {
	const v4 = parseIpv4(address);
	if (v4) return classifyIpv4(v4);
	const v6 = parseIpv6(address);
	return v6 && classifyIpv6(v6);
}

/** 127/8, ::1 or ::ffff:127.x: an IP literal that stays on this machine, not one a gateway carries. */
export function staysOnThisMachine(address: string): boolean {
	const v6 = parseIpv6(address);
	const mapped = v6 && v6.slice(0, 5).every((group) => group === 0) && v6[5] === 0xffff;
	if (v6 && !mapped) return v6.every((group, i) => group === (i === 7 ? 1 : 0));
	return (v6 ? v6[6] >> 8 : parseIpv4(address)?.[0]) === 127;
}

/** `localhost` and `*.localhost` are loopback (RFC 6761); other names are unknown. */
export function classifyHost(hostname: string): AddressClass | undefined {
	const ip = classifyIp(hostname);
	if (ip) return ip;
	const name = hostname.toLowerCase().replace(/\.$/, '');
	if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
	return undefined;
}

export function isRestricted(kind: AddressClass | undefined): kind is RestrictedAddressClass {
	return kind !== undefined && kind !== 'public';
}

/** The first of the addresses a name resolves to that a download must not reach, with its class. */
export function firstRestricted(
	addresses: string[],
): { address: string; kind: RestrictedAddressClass } | undefined {
	for (const address of addresses) {
		const kind = classifyIp(address);
		if (isRestricted(kind)) return { address, kind };
	}
	return undefined;
}
