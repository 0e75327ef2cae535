/**
 * A counting semaphore: `run` waits for a free slot, so that no more than `limit` tasks are
 * in flight at once. Waiting tasks start in the order they asked for a slot.
 */
export class ConcurrencyLimiter {
	private active = 0;

	private readonly waiting: Array<() => void> = [];

	constructor(private readonly limit: number) {}

	async run<T>(task: () => Promise<T>): Promise<T> {
		if (this.active >= this.limit) {
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		} else {
			this.active++;
		}
		try {
			return await task();
		} finally {
			const wake = this.waiting.shift();
			if (wake) wake();
			else this.active--;
		}
	}
}
