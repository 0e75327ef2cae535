import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * The deliveries this n8n main or webhook instance accepted in the last hour, so that retries and
 * copies start one run. In memory, not static data: n8n writes a webhook's static data back whole
 * after the run was created (a write per delivery, not atomic, able to overwrite a registration
 * stored meanwhile). Copies wait for the first one's answer; when n8n could not start its run, a copy takes over.
 */

const WINDOW_MS = 60 * 60_000;
const MAX_ENTRIES = 10_000;

/** How long a copy waits for the first one's answer before a 503: below the service's 10 s. */
const COPY_WAIT_MS = 5_000;

interface Entry {
	/** When the key stops counting as seen (not before it settles, while in flight). */
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

/** 'busy': an earlier copy is still being answered after COPY_WAIT_MS. */
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

/** A 2xx means the run was created; so does a closed connection: n8n creates it all the same. */
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
