import { sleep } from 'n8n-workflow';

import { RequestSlots, SlotDeadlineError } from '../../../../../nodes/shared/transport/slots';

const tick = async () => await sleep(0);

describe('RequestSlots', () => {
	it('never runs more tasks at once than its limit, and starts waiting ones in order', async () => {
		const limiter = new RequestSlots(2);
		const started: number[] = [];
		const release: Array<() => void> = [];
		let inFlight = 0;
		let maxInFlight = 0;
		const runs = [0, 1, 2, 3, 4].map(
			async (n) =>
				await limiter.run(async () => {
					started.push(n);
					inFlight++;
					maxInFlight = Math.max(maxInFlight, inFlight);
					await new Promise<void>((resolve) => release.push(resolve));
					inFlight--;
					return n * 10;
				}),
		);
		await tick();
		expect(started).toEqual([0, 1]);
		while (release.length) {
			release.shift()!();
			await tick();
		}
		await expect(Promise.all(runs)).resolves.toEqual([0, 10, 20, 30, 40]);
		expect(started).toEqual([0, 1, 2, 3, 4]);
		expect(maxInFlight).toBe(2);
	});

	it('frees the slot of a task that fails', async () => {
		const limiter = new RequestSlots(1);
		await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow(
			'boom',
		);
		await expect(limiter.run(async () => 'next')).resolves.toBe('next');
	});

	it('gives a free slot to a status check before uploads that waited longer', async () => {
		const limiter = new RequestSlots(1);
		const order: string[] = [];
		let release!: () => void;
		const first = limiter.run(
			async () => await new Promise<void>((resolve) => (release = resolve)),
		);
		const runs = [
			limiter.run(async () => void order.push('upload 1')),
			limiter.run(async () => void order.push('upload 2')),
			limiter.run(async () => void order.push('status'), undefined, { priority: 'high' }),
		];
		await tick();
		release();
		await Promise.all([first, ...runs]);
		expect(order).toEqual(['status', 'upload 1', 'upload 2']);
	});

	it('gives up waiting for a slot at its grant deadline, and the slot is not lost', async () => {
		const limiter = new RequestSlots(1);
		const running = { now: 0, peak: 0 };
		const counted = async <T>(task: () => Promise<T>) => {
			running.peak = Math.max(running.peak, ++running.now);
			try {
				return await task();
			} finally {
				running.now--;
			}
		};
		let release!: () => void;
		const busy = limiter.run(
			async () => await counted(async () => await new Promise<void>((r) => (release = r))),
		);
		const started = Date.now();
		await expect(
			limiter.run(async () => await counted(async () => 'late'), undefined, {
				priority: 'high',
				deadline: Date.now() + 600, // a request must be able to start by 500 ms before it
			}),
		).rejects.toBeInstanceOf(SlotDeadlineError);
		expect(Date.now() - started).toBeGreaterThanOrEqual(90);
		release();
		await busy;
		await expect(limiter.run(async () => await counted(async () => 'next'))).resolves.toBe('next');
		expect(running.peak).toBe(1);
	});
});
