import { outOfSlots } from '../messages';
import { CancelledError, onAbort, throwIfCancelled } from '../wait';
import { latestStart } from './deadline';
import { KindError } from './errors';

/** Who is served first when a slot comes free: status checks before uploads. */
export type SlotPriority = 'high' | 'normal';

export interface SlotOptions {
	/** 'high' waiters get the next free slot before any 'normal' one; 'normal' unless set. */
	priority?: SlotPriority;
	/**
	 * The waiter's deadline (epoch milliseconds): a slot not granted while a request can still
	 * start before it is given up (SlotDeadlineError).
	 */
	deadline?: number;
}

/** Thrown when no slot came free while a request could still start before the deadline. */
export class SlotDeadlineError extends KindError {
	constructor(readonly limit: number) {
		const { message, description } = outOfSlots(limit);
		super('out_of_time', message, description);
		this.name = 'SlotDeadlineError';
	}
}

/**
 * The request slots of one run (Max Concurrent Requests), a counting semaphore: `run` waits for a free slot, so that no more than `limit` tasks are
 * in flight at once. A free slot goes to the oldest 'high' waiter, else to the oldest 'normal'
 * one, so status checks are never starved by uploads queued before them. With a cancel
 * signal, a waiting task gives up at once when the execution is stopped; with a `deadline`, when
 * no request could start before it any more.
 */
export class RequestSlots {
	private active = 0;

	private readonly waiting: Record<SlotPriority, Array<() => void>> = { high: [], normal: [] };

	constructor(readonly limit: number) {}

	async run<T>(
		task: () => Promise<T>,
		signal?: AbortSignal,
		{ priority = 'normal', deadline }: SlotOptions = {},
	): Promise<T> {
		throwIfCancelled(signal);
		if (this.active >= this.limit) {
			await this.waitForSlot(signal, priority, deadline);
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
		deadline: number | undefined,
	): Promise<void> {
		const grantBy = deadline === undefined ? undefined : latestStart(deadline);
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
