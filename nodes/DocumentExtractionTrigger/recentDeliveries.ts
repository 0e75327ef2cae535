/**
 * The deliveries this n8n process accepted lately, so that the service's retries and identical
 * copies of one delivery start one run.
 *
 * Kept in memory, not in the workflow's static data: n8n 2.x does not save what a trigger writes
 * to static data while it answers a webhook with a run, saving it in other paths rewrites the
 * whole static data (a registration stored by a publish at that moment would be lost), and the
 * check-and-set must be atomic. A synchronous check-and-set in memory is atomic within a process:
 * copies arriving together cannot both be accepted. The service retries within about a minute
 * (after 1, 4 and 16 s, each attempt waiting up to 10 s), so a window of ten minutes covers every
 * retry.
 */
export class RecentDeliveries {
	/** key → time the key stops counting as seen, oldest first */
	private readonly seen = new Map<string, number>();

	constructor(
		private readonly windowMs = 10 * 60_000,
		private readonly maxEntries = 10_000,
		private readonly now: () => number = Date.now,
	) {}

	/** True, and remembered, when `key` was not accepted within the window; false for a repeat. */
	claim(key: string): boolean {
		const now = this.now();
		const until = this.seen.get(key);
		if (until !== undefined && until > now) return false;
		this.seen.delete(key);
		this.seen.set(key, now + this.windowMs);
		for (const [oldest, expires] of this.seen) {
			if (this.seen.size <= this.maxEntries && expires > now) break;
			this.seen.delete(oldest);
		}
		return true;
	}

	/** Forgets `key`, so that the next copy is accepted (for a delivery that started no run). */
	release(key: string): void {
		this.seen.delete(key);
	}

	get size(): number {
		return this.seen.size;
	}
}
