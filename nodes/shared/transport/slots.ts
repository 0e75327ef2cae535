import { CancelledError, onAbort, startTimer, throwIfCancelled } from '../wait';
import { type NodeContext, ServiceError } from './errors';
import { latestStart } from './deadline';

/** Who is served first when a slot comes free: status checks ('high') before uploads. */
type SlotPriority = 'high' | 'normal';

interface SlotOptions {
	priority?: SlotPriority;
	/** Epoch ms: a slot not granted while a request can still start before it is out_of_time. */
	deadline?: number;
	itemIndex?: number;
}

interface Waiter {
	grant: () => void;
	refuse: (error: Error) => void;
	grantBy: number;
	itemIndex?: number;
}

/** A run's request slots (Max Concurrent Requests), with one timer for the earliest deadline. */
export class RequestSlots {
	private active = 0;
	private readonly waiting: Record<SlotPriority, Waiter[]> = { high: [], normal: [] };
	private timerAt = Infinity;
	private clearTimer = () => {};

	constructor(
		private readonly ctx: NodeContext,
		readonly limit: number,
		private readonly signal?: AbortSignal,
	) {
		void onAbort(signal).promise.then(() => {
			this.clearTimer();
			for (const queue of Object.values(this.waiting)) {
				for (const waiter of queue.splice(0)) waiter.refuse(new CancelledError());
			}
		});
	}

	/** Takes a slot, or waits for one (status checks first); `release` gives it back. */
	async take(options: SlotOptions = {}): Promise<true> {
		throwIfCancelled(this.signal);
		if (this.active < this.limit) this.active++;
		else await this.queue(options);
		if (this.signal?.aborted) this.release();
		throwIfCancelled(this.signal);
		return true;
	}

	release(): void {
		const next = this.waiting.high.shift() ?? this.waiting.normal.shift();
		if (next) next.grant();
		else this.active--;
		if (!this.waiting.high.length && !this.waiting.normal.length) this.arm(Infinity);
	}

	private async queue({ priority = 'normal', deadline, itemIndex }: SlotOptions): Promise<void> {
		const grantBy = deadline === undefined ? Infinity : latestStart(deadline);
		await new Promise<void>((grant, refuse) => {
			this.waiting[priority].push({ grant, refuse, grantBy, itemIndex });
			if (grantBy < this.timerAt) this.arm(grantBy);
		});
	}

	/** The pool's one timer, for the earliest deadline of a waiter (none: Infinity). */
	private arm(at: number): void {
		this.clearTimer();
		this.timerAt = at;
		if (at < Infinity)
			this.clearTimer = startTimer(Math.max(0, at - Date.now()), () => this.expire());
	}

	private expire(): void {
		this.timerAt = Infinity;
		const now = Date.now();
		let next = Infinity;
		for (const queue of Object.values(this.waiting)) {
			for (const waiter of [...queue]) {
				if (waiter.grantBy > now) {
					next = Math.min(next, waiter.grantBy);
					continue;
				}
				queue.splice(queue.indexOf(waiter), 1);
				const failure = { kind: 'out_of_time' as const, facts: { slots: this.limit } };
				const { itemIndex } = waiter;
				waiter.refuse(new ServiceError(this.ctx.getNode(), { ...failure, itemIndex }));
			}
		}
		this.arm(next);
	}
}
