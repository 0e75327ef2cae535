import { CancelledError, onAbort, throwIfCancelled } from './wait';

/**
 * A counting semaphore: `run` waits for a free slot, so that no more than `limit` tasks are
 * in flight at once. Waiting tasks start in the order they asked for a slot. With a cancel
 * signal, a task waiting for a slot gives up at once when the execution is stopped.
 */
export class ConcurrencyLimiter {
	private active = 0;

	private readonly waiting: Array<() => void> = [];

	constructor(private readonly limit: number) {}

	async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
		throwIfCancelled(signal);
		if (this.active >= this.limit) {
			let wake!: () => void;
			const granted = new Promise<void>((resolve) => (wake = resolve));
			this.waiting.push(wake);
			const aborted = onAbort(signal);
			try {
				const outcome = await Promise.race([
					granted.then(() => 'granted' as const),
					aborted.promise.then(() => 'aborted' as const),
				]);
				if (outcome === 'aborted') {
					const index = this.waiting.indexOf(wake);
					if (index !== -1) this.waiting.splice(index, 1);
					else this.release(); // the slot was handed over just as the run stopped
					throw new CancelledError();
				}
			} finally {
				aborted.dispose();
			}
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

	private release(): void {
		const wake = this.waiting.shift();
		if (wake) wake();
		else this.active--;
	}
}
