import type { IExecuteFunctions } from 'n8n-workflow';

import {
	ADDRESS_CLASS_NAMES,
	classifyHost,
	classifyIp,
	isRestricted,
	type RestrictedAddressClass,
} from '../../shared/addresses';
import { ALLOW_PRIVATE_ADDRESSES_OPTION } from '../constants';
import { nodeError } from '../../shared/transport/errors';

/**
 * Which addresses a download may reach: by default only public ones, judged before anything
 * connects (IP literals in any notation, localhost names, and the addresses a name resolves to).
 */

/** Whether an error is n8n's own SSRF protection refusing an address (n8n 2.x). */
export function isInstanceSsrfBlock(error: unknown): boolean {
	for (let current = error, depth = 0; current && depth < 5; depth++) {
		const { name, cause } = current as { name?: unknown; cause?: unknown };
		if (name === 'SsrfBlockedIpError' || name === 'SsrfBlockedHostnameError') return true;
		current = cause;
	}
	return false;
}

type LookupCallback = (error: Error | null, addresses: Array<{ address: string }> | string) => void;
type Lookup = (hostname: string, options: { all: true }, callback: LookupCallback) => void;
interface EgressHelpers {
	getSecureEgressFilter?: (policy?: string) => { createSecureLookup?: () => Lookup };
}

/**
 * The addresses `hostname` resolves to, looked up through n8n's own resolver, or undefined where
 * this n8n version offers none to nodes (n8n 1.x) or the lookup failed (the request then fails
 * as it would have). The lookup asks n8n for its unfiltered resolver ('unsafe'): the addresses
 * are judged here, by the same rules as IP literals; n8n's own policy still applies to the
 * request itself.
 */
async function resolveHost(
	this: IExecuteFunctions,
	hostname: string,
	signal: AbortSignal,
): Promise<string[] | undefined> {
	const helpers = this.helpers as unknown as EgressHelpers;
	if (typeof helpers.getSecureEgressFilter !== 'function') return undefined;
	let lookup: Lookup | undefined;
	try {
		lookup = helpers.getSecureEgressFilter('unsafe')?.createSecureLookup?.();
	} catch {
		lookup = undefined;
	}
	if (typeof lookup !== 'function') return undefined;
	const resolving = new Promise<string[] | undefined>((resolve) => {
		try {
			lookup(hostname, { all: true }, (error, addresses) => {
				if (error || !Array.isArray(addresses)) resolve(undefined);
				else resolve(addresses.map((entry) => entry.address));
			});
		} catch {
			resolve(undefined);
		}
	});
	const aborted = new Promise<undefined>((resolve) => {
		if (signal.aborted) resolve(undefined);
		signal.addEventListener('abort', () => resolve(undefined), { once: true });
	});
	return await Promise.race([resolving, aborted]);
}

/**
 * Refuses, before anything connects to it, an address the download must not reach unless
 * private addresses are allowed: loopback, private, link-local, unspecified and shared addresses,
 * as IP literals in any notation the URL parser accepts, as `localhost` or `*.localhost`, and as
 * host names that resolve to them (where n8n lets a node resolve names).
 */
export async function checkDownloadAddress(
	this: IExecuteFunctions,
	url: URL,
	{
		itemIndex,
		signal,
		redirected = false,
	}: { itemIndex: number; signal: AbortSignal; redirected?: boolean },
): Promise<void> {
	const refuse = (kind: RestrictedAddressClass, resolvedTo?: string) => {
		const target = `${redirected ? 'was redirected to' : 'points to'} ${url.host}${resolvedTo ? `, which resolves to ${resolvedTo}` : ''}`;
		return nodeError(
			this,
			'download_failed',
			`The document URL ${target}: ${ADDRESS_CLASS_NAMES[kind]}. Downloads from such addresses are refused unless "${ALLOW_PRIVATE_ADDRESSES_OPTION}" is on`,
			{
				itemIndex,
				description: `Nothing was sent to this address. A URL can come from an AI agent or from a document, so by default the node reaches only public addresses. For a document on an intranet server, turn on the "${ALLOW_PRIVATE_ADDRESSES_OPTION}" option of this node.`,
			},
		);
	};
	const kind = classifyHost(url.hostname);
	if (isRestricted(kind)) throw refuse(kind);
	if (kind !== undefined) return;
	for (const address of (await resolveHost.call(this, url.hostname, signal)) ?? []) {
		const resolved = classifyIp(address);
		if (isRestricted(resolved)) throw refuse(resolved, address);
	}
}
