import { sleep } from 'n8n-workflow';

import { ConcurrencyLimiter } from '../../../../nodes/shared/limiter';

const tick = async () => await sleep(0);

describe('ConcurrencyLimiter', () => {
	it('never runs more tasks at once than its limit, and starts waiting ones in order', async () => {
		const limiter = new ConcurrencyLimiter(2);
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
		const limiter = new ConcurrencyLimiter(1);
		await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow(
			'boom',
		);
		await expect(limiter.run(async () => 'next')).resolves.toBe('next');
	});
});
