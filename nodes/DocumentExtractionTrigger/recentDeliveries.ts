import { createHash } from 'crypto';
import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * The deliveries this n8n process accepted in the last hour, so that retries and copies start one run.
 * In memory: n8n writes a webhook's static data back whole, not atomically. Past MAX_ENTRIES (69 a
 * second for the hour, ~90 bytes each) the oldest tenth leaves early and raises the floor.
 */

const WINDOW_MS = 60 * 60_000;
export const MAX_ENTRIES = 250_000;
const SKEW_MS = 5 * 60_000;
/** How long a copy waits for the first one's answer before a 503: below the service's 10 s. */
const COPY_WAIT_MS = 5_000;

/** Short key → when it stops counting as seen (settled), or its claim in flight (resolves true
 * once it started a run, false when not); oldest first. */
type Pending = { expires: number; promise: Promise<boolean>; resolve: (started: boolean) => void };
export const entries = new Map<string, number | Pending>();
let [nextPrune, floor] = [0, 0];
export const rememberedSince = () => floor;

/** 12 bytes of SHA-256, as 16 characters: one outcome at one node, workflow and mode. */
export const shortKey = (parts: string[]) =>
	createHash('sha256').update(parts.join('|')).digest().subarray(0, 12).toString('base64');

/** Drops expired keys (at most once a second) and, past the bound, the oldest settled tenth. */
function prune(now: number): void {
	if (now < nextPrune && entries.size <= MAX_ENTRIES) return;
	nextPrune = now + 1_000;
	const keep = entries.size > MAX_ENTRIES ? MAX_ENTRIES * 0.9 : Infinity;
	for (const [key, entry] of entries) {
		const expires = typeof entry === 'number' ? entry : entry.expires;
		if (expires > now && entries.size <= keep) break;
		if (typeof entry === 'object' && expires > now) continue;
		entries.delete(key);
		if (expires > now) floor = Math.max(floor, expires - WINDOW_MS + SKEW_MS);
		// never answered within the window: counts as started, like a dropped connection
		if (typeof entry === 'object') entry.resolve(true);
	}
}

/** Claims `key` when it is new (or expired); else what an earlier copy left. Synchronous. */
function claim(key: string): 'claimed' | 'seen' | Promise<boolean> {
	const now = Date.now();
	const entry = entries.get(key);
	if (typeof entry === 'object') return entry.promise;
	if (entry !== undefined && entry > now) return 'seen';
	let resolve: (started: boolean) => void = () => {};
	const promise = new Promise<boolean>((done) => (resolve = done));
	entries.delete(key);
	entries.set(key, { expires: now + WINDOW_MS, promise, resolve });
	prune(now);
	return 'claimed';
}

/** Ends a claim: started keeps the key as seen for the window; not started forgets it. */
function settle(key: string, started: boolean): void {
	const entry = entries.get(key);
	if (typeof entry !== 'object') return;
	if (started) entries.set(key, Date.now() + WINDOW_MS);
	else entries.delete(key);
	entry.resolve(started);
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
