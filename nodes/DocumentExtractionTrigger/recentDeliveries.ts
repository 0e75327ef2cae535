import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * The deliveries this n8n process accepted lately, so that the service's retries and copies of
 * one delivery start one run. Kept in memory, not in static data: n8n saves static data a webhook
 * changed by writing it all back after the run was created (a database write per delivery, not
 * atomic, and able to overwrite a registration a publish stored meanwhile). The service retries
 * within about a minute; an hour's window covers every retry.
 *
 * A claim is in flight until n8n has answered the delivery; copies arriving meanwhile wait for
 * that answer. When n8n could not start the run, the key is forgotten and a waiting copy takes
 * over, so a failure to start a run never swallows a retry.
 */

const WINDOW_MS = 60 * 60_000;
const MAX_ENTRIES = 10_000;

/** How long a copy waits for an earlier copy's answer before it gets 503: below the service's 10 s. */
const COPY_WAIT_MS = 5_000;

interface Entry {
	/** When the key stops counting as seen (an entry in flight does not expire before it settles). */
	expires: number;
	/** Set while the claim is in flight: resolves true once it started a run, false when not. */
	pending?: { promise: Promise<boolean>; resolve: (started: boolean) => void };
}

/** key → entry, oldest first. */
const entries = new Map<string, Entry>();

/** Claims `key` when it is new (or expired); else what an earlier copy left. Synchronous. */
function claim(key: string): 'claimed' | 'seen' | Promise<boolean> {
	const now = Date.now();
	const entry = entries.get(key);
	if (entry?.pending) return entry.pending.promise;
	if (entry && entry.expires > now) return 'seen';
	let resolve: (started: boolean) => void = () => {};
	const promise = new Promise<boolean>((done) => (resolve = done));
	entries.delete(key);
	entries.set(key, { expires: now + WINDOW_MS, pending: { promise, resolve } });
	// Drops expired keys and, past the bound, the oldest settled ones.
	for (const [old, { expires, pending }] of entries) {
		if (entries.size <= MAX_ENTRIES && expires > now) break;
		if (!pending || expires <= now) entries.delete(old);
		// never answered within the window: counts as started, like a dropped connection
		if (pending && expires <= now) pending.resolve(true);
	}
	return 'claimed';
}

/** Ends a claim: started keeps the key as seen for the window; not started forgets it. */
function settle(key: string, started: boolean): void {
	const entry = entries.get(key);
	if (!entry?.pending) return;
	const { resolve } = entry.pending;
	if (started) {
		entry.pending = undefined;
		entry.expires = Date.now() + WINDOW_MS;
	} else {
		entries.delete(key);
	}
	resolve(started);
}

export type WebhookResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

/**
 * Claims a delivery for this process: 'claimed' when no earlier copy started a run, 'duplicate'
 * when one did, 'busy' when an earlier copy is still being answered after COPY_WAIT_MS.
 */
export async function claimDelivery(key: string): Promise<'claimed' | 'duplicate' | 'busy'> {
	const deadline = Date.now() + COPY_WAIT_MS;
	for (;;) {
		const found = claim(key);
		if (found === 'claimed') return 'claimed';
		if (found === 'seen') return 'duplicate';
		const left = deadline - Date.now();
		if (left <= 0) return 'busy';
		const timer = new AbortController();
		const ignore = () => undefined;
		const started = await Promise.race([found, sleep(left, timer.signal).then(ignore, ignore)]);
		timer.abort();
		if (started === true) return 'duplicate';
		if (started === undefined) return 'busy';
		// the earlier copy started no run: claim again (one waiting copy wins)
	}
}

/**
 * Settles the claim once n8n has answered the delivery: a 2xx means the run was created. A
 * connection closed before the answer counts as started: n8n creates the run all the same.
 */
export function settleWhenAnswered(res: WebhookResponse, key: string): void {
	const response = res as unknown as {
		once?: (event: string, listener: () => void) => unknown;
		statusCode?: number;
		closed?: boolean;
		destroyed?: boolean;
	};
	if (typeof response.once !== 'function' || response.closed || response.destroyed) {
		settle(key, true);
		return;
	}
	// Once only: after a failed answer, a later 'close' must not settle another copy's claim.
	let settled = false;
	const once = (started: boolean) => {
		if (!settled) settle(key, started);
		settled = true;
	};
	response.once('finish', () => once((response.statusCode ?? 200) < 300));
	response.once('close', () => once(true));
}
