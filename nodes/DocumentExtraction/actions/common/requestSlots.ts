import { CancelledError, onAbort, throwIfCancelled } from '../../../shared/wait';

/** Who is served first when a slot comes free: status checks before uploads. */
export type SlotPriority = 'high' | 'normal';

export interface SlotOptions {
	/** 'high' waiters get the next free slot before any 'normal' one; 'normal' unless set. */
	priority?: SlotPriority;
	/** Epoch milliseconds: a slot not granted by then is given up (SlotDeadlineError). */
	grantBy?: number;
}

/** Thrown when no slot came free before the waiter's `grantBy`. */
export class SlotDeadlineError extends Error {
	constructor(readonly limit: number) {
		super(`All ${limit} request slots stayed busy`);
		this.name = 'SlotDeadlineError';
	}
}

/**
 * The request slots of one run (Max Concurrent Requests), a counting semaphore: `run` waits for a free slot, so that no more than `limit` tasks are
 * in flight at once. A free slot goes to the oldest 'high' waiter, else to the oldest 'normal'
 * one, so status checks are never starved by uploads queued before them. With a cancel
 * signal, a waiting task gives up at once when the execution is stopped; with `grantBy`, when
 * that time has come.
 */
export class RequestSlots {
	private active = 0;

	private readonly waiting: Record<SlotPriority, Array<() => void>> = { high: [], normal: [] };

	constructor(readonly limit: number) {}

	async run<T>(
		task: () => Promise<T>,
		signal?: AbortSignal,
		{ priority = 'normal', grantBy }: SlotOptions = {},
	): Promise<T> {
		throwIfCancelled(signal);
		if (this.active >= this.limit) {
			await this.waitForSlot(signal, priority, grantBy);
		} else {
			this.active++;
		}
		try {
			throwIfCancelled(signal);
			return await task();
		} finally {
			this.release();
		}
	}

	private async waitForSlot(
		signal: AbortSignal | undefined,
		priority: SlotPriority,
		grantBy: number | undefined,
	): Promise<void> {
		let wake!: () => void;
		const granted = new Promise<void>((resolve) => (wake = resolve));
		const queue = this.waiting[priority];
		queue.push(wake);
		const aborted = onAbort(signal);
		// A timer signal, not a sleep: the host's sleep may be replaced (in tests) by one that
		// returns at once, and a slot deadline must follow the real clock.
		const expiry =
			grantBy === undefined
				? undefined
				: onAbort(AbortSignal.timeout(Math.max(0, Math.ceil(grantBy - Date.now()))));
		try {
			const outcome = await Promise.race([
				granted.then(() => 'granted' as const),
				aborted.promise.then(() => 'aborted' as const),
				...(expiry ? [expiry.promise.then(() => 'expired' as const)] : []),
			]);
			if (outcome === 'granted') return;
			const index = queue.indexOf(wake);
			if (index !== -1) queue.splice(index, 1);
			else this.release(); // the slot was handed over just as the wait ended
			throw outcome === 'aborted' ? new CancelledError() : new SlotDeadlineError(this.limit);
		} finally {
			aborted.dispose();
			expiry?.dispose();
		}
	}

	private release(): void {
		const wake = this.waiting.high.shift() ?? this.waiting.normal.shift();
		if (wake) wake();
		else this.active--;
	}
}
