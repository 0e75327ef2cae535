import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * The deliveries this n8n process accepted lately, so that the service's retries and identical
 * copies of one delivery start one run.
 *
 * Kept in memory, not in the workflow's static data. n8n saves static data that a webhook call
 * changed by writing the workflow's whole static data back, after the run was created: that is
 * one database write per delivery, it is not atomic (copies arriving together all read the same
 * old state), and a delivery in flight would overwrite a registration that a publish stored
 * meanwhile. A synchronous check-and-set in memory is atomic within a process, costs nothing, and
 * never touches the database. The service retries within about a minute (after 1, 4 and 16 s,
 * each attempt waiting up to 10 s); an hour's window covers every retry with room to spare.
 *
 * A claim is in flight until n8n has answered the delivery. Copies that arrive meanwhile wait for
 * that answer: when n8n could not start the run (it answered with an error), the key is forgotten
 * and one of the waiting copies takes over, so a failure to start a run never swallows a retry.
 */

/** What `claim` found for a key. */
type Claim =
	/** The caller owns the delivery and must call `settle` once n8n has answered it. */
	| { state: 'claimed' }
	/** An earlier copy started a run. */
	| { state: 'seen' }
	/** An earlier copy is being answered: true once it started a run, false when it did not. */
	| { state: 'inFlight'; outcome: Promise<boolean> };

interface Entry {
	/** when the key stops counting as seen (in-flight entries do not expire before they settle) */
	expires: number;
	/** set while the claim is in flight */
	pending?: { promise: Promise<boolean>; resolve: (started: boolean) => void };
}

export class RecentDeliveries {
	/** key → entry, oldest first */
	private readonly entries = new Map<string, Entry>();

	constructor(
		private readonly windowMs = 60 * 60_000,
		private readonly maxEntries = 10_000,
		private readonly now: () => number = Date.now,
	) {}

	/** Looks `key` up and, when it is new (or expired), claims it for the caller. Synchronous. */
	claim(key: string): Claim {
		const now = this.now();
		const entry = this.entries.get(key);
		if (entry?.pending) return { state: 'inFlight', outcome: entry.pending.promise };
		if (entry && entry.expires > now) return { state: 'seen' };

		let resolve: (started: boolean) => void = () => {};
		const promise = new Promise<boolean>((done) => (resolve = done));
		this.entries.delete(key);
		this.entries.set(key, { expires: now + this.windowMs, pending: { promise, resolve } });
		this.evict(now);
		return { state: 'claimed' };
	}

	/**
	 * Ends a claim: `started` true keeps the key as seen for the window; false forgets it, so that
	 * the next copy is accepted. Copies waiting on the claim learn the outcome.
	 */
	settle(key: string, started: boolean): void {
		const entry = this.entries.get(key);
		if (!entry?.pending) return;
		const { resolve } = entry.pending;
		if (started) {
			entry.pending = undefined;
			entry.expires = this.now() + this.windowMs;
		} else {
			this.entries.delete(key);
		}
		resolve(started);
	}

	/** Drops expired keys and, past the bound, the oldest settled ones. */
	private evict(now: number): void {
		for (const [key, entry] of this.entries) {
			if (this.entries.size <= this.maxEntries && entry.expires > now) break;
			if (!entry.pending) {
				this.entries.delete(key);
			} else if (entry.expires <= now) {
				// never answered within the window: counts as started, like a dropped connection
				this.entries.delete(key);
				entry.pending.resolve(true);
			}
		}
	}
}

/** The memory shared by every Document Extraction Trigger in this n8n process (one per process). */
export const recentDeliveries = new RecentDeliveries();

export type WebhookResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

/**
 * How long a copy of a delivery waits for an earlier copy's answer before it is asked to come
 * again (503). Well below the service's 10 s limit.
 */
const COPY_WAIT_MS = 5_000;

/**
 * Claims a delivery for this process: 'claimed' when no earlier copy started a run, 'duplicate'
 * when one did, 'busy' when an earlier copy is still being answered after COPY_WAIT_MS.
 */
export async function claimDelivery(key: string): Promise<'claimed' | 'duplicate' | 'busy'> {
	const deadline = Date.now() + COPY_WAIT_MS;
	for (;;) {
		const claim = recentDeliveries.claim(key);
		if (claim.state === 'claimed') return 'claimed';
		if (claim.state === 'seen') return 'duplicate';
		const left = deadline - Date.now();
		if (left <= 0) return 'busy';
		const timer = new AbortController();
		const started = await Promise.race([
			claim.outcome,
			sleep(left, timer.signal).then(
				() => undefined,
				() => undefined,
			),
		]);
		timer.abort();
		if (started === true) return 'duplicate';
		if (started === undefined) return 'busy';
		// the earlier copy started no run: claim again (one waiting copy wins)
	}
}

/**
 * Settles the claim once n8n has answered the delivery: a 2xx means the run was created; any
 * other answer means it was not, and the next copy may start it. A connection closed before
 * the answer counts as started: n8n goes on creating the run after the sender has gone.
 */
export function settleWhenAnswered(res: WebhookResponse, key: string): void {
	const response = res as unknown as {
		once?: (event: string, listener: () => void) => unknown;
		statusCode?: number;
		closed?: boolean;
		destroyed?: boolean;
	};
	// Without events to wait for, or when the sender has already gone (its 'close' is past), the
	// delivery counts as started: n8n creates the run all the same.
	if (
		typeof response.once !== 'function' ||
		response.closed === true ||
		response.destroyed === true
	) {
		recentDeliveries.settle(key, true);
		return;
	}
	let settled = false;
	const settle = (started: boolean) => {
		if (settled) return;
		settled = true;
		recentDeliveries.settle(key, started);
	};
	response.once('finish', () => settle((response.statusCode ?? 200) < 300));
	response.once('close', () => settle(true));
}
