import type { IExecuteFunctions } from 'n8n-workflow';

import {
	ADDRESS_CLASS_NAMES,
	classifyHost,
	firstRestricted,
	isRestricted,
	type RestrictedAddressClass,
} from '../../shared/addresses';
import { MESSAGES, type Words } from '../messages';

type LookupCallback = (error: Error | null, addresses: Array<{ address: string }> | string) => void;
type Lookup = (hostname: string, options: { all: true }, callback: LookupCallback) => void;
interface EgressHelpers {
	getSecureEgressFilter?: (policy?: string) => { createSecureLookup?: () => Lookup };
}

/** What `hostname` resolves to through n8n's unfiltered resolver; none where n8n offers nodes no
 * resolver (1.x) or the lookup failed (the request then fails as it would have). */
async function resolveHost(
	this: IExecuteFunctions,
	hostname: string,
	signal: AbortSignal,
): Promise<string[]> {
	let lookup: Lookup | undefined;
	try {
		lookup = (this.helpers as EgressHelpers)
			.getSecureEgressFilter?.('unsafe')
			.createSecureLookup?.();
	} catch {
		return [];
	}
	if (typeof lookup !== 'function') return [];
	return await new Promise<string[]>((resolve) => {
		if (signal.aborted) resolve([]);
		signal.addEventListener('abort', () => resolve([]), { once: true });
		try {
			lookup(hostname, { all: true }, (error, addresses) =>
				resolve(!error && Array.isArray(addresses) ? addresses.map((entry) => entry.address) : []),
			);
		} catch {
			resolve([]);
		}
	});
}

/** Why a download must not reach `url` unless private addresses are allowed (in any notation, by
 * name or by what a name resolves to), judged before anything connects; undefined when it may. */
export async function refusedAddress(
	this: IExecuteFunctions,
	url: URL,
	signal: AbortSignal,
	redirected: boolean,
): Promise<Words | undefined> {
	const refusal = (kind: RestrictedAddressClass, resolvedTo?: string) =>
		MESSAGES.privateAddress(
			`${redirected ? 'was redirected to' : 'points to'} ${url.host}${resolvedTo ? `, which resolves to ${resolvedTo}` : ''}`,
			ADDRESS_CLASS_NAMES[kind],
		);
	const kind = classifyHost(url.hostname);
	if (isRestricted(kind)) return refusal(kind);
	if (kind !== undefined) return undefined;
	const resolved = firstRestricted(await resolveHost.call(this, url.hostname, signal));
	return resolved && refusal(resolved.kind, resolved.address);
}
