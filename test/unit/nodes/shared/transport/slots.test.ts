import { sleep } from 'n8n-workflow';

import { RequestSlots } from '../../../../../nodes/shared/transport/slots';
import { node } from '../../../helpers/context';

const tick = async () => await sleep(0);

/** `task` in a slot taken and given back as the callers do. */
async function inSlot<T>(
	slots: RequestSlots,
	task: () => Promise<T>,
	options?: Parameters<RequestSlots['take']>[0],
): Promise<T> {
	await slots.take(options);
	try {
		return await task();
	} finally {
		slots.release();
	}
}
const ctx = { getNode: () => node };
const blocker = () => {
	let release!: () => void;
	const task = async () => await new Promise<void>((resolve) => (release = resolve));
	return { task, release: () => release() };
};

describe('RequestSlots', () => {
	it('never runs more tasks at once than its limit, and starts waiting ones in order', async () => {
		const slots = new RequestSlots(ctx, 2);
		const started: number[] = [];
		const release: Array<() => void> = [];
		let inFlight = 0;
		let maxInFlight = 0;
		const runs = [0, 1, 2, 3, 4].map(
			async (n) =>
				await inSlot(slots, async () => {
					started.push(n);
					maxInFlight = Math.max(maxInFlight, ++inFlight);
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
		// the slot of a task that fails is freed
		await expect(inSlot(slots, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
		await expect(inSlot(slots, async () => 'next')).resolves.toBe('next');
	});

	it('gives a free slot to a status check before uploads that waited longer', async () => {
		const slots = new RequestSlots(ctx, 1);
		const order: string[] = [];
		const busy = blocker();
		const first = inSlot(slots, busy.task);
		const runs = [
			inSlot(slots, async () => void order.push('upload 1')),
			inSlot(slots, async () => void order.push('upload 2')),
			inSlot(slots, async () => void order.push('status'), { priority: 'high' }),
		];
		await tick();
		busy.release();
		await Promise.all([first, ...runs]);
		expect(order).toEqual(['status', 'upload 1', 'upload 2']);
	});

	it('gives up waiting at the deadline (out_of_time, naming the slots), and the slot is not lost', async () => {
		const slots = new RequestSlots(ctx, 1);
		const busy = blocker();
		const first = inSlot(slots, busy.task);
		const started = Date.now();
		const late = inSlot(slots, async () => 'late', {
			deadline: Date.now() + 600, // a request must be able to start by 500 ms before it
			itemIndex: 3,
		});
		await expect(late).rejects.toMatchObject({ kind: 'out_of_time', facts: { slots: 1 } });
		expect(Date.now() - started).toBeGreaterThanOrEqual(90);
		busy.release();
		await first;
		await expect(inSlot(slots, async () => 'next')).resolves.toBe('next');
	});

	it('refuses every waiter at once when the execution is stopped, and starts nothing after', async () => {
		const controller = new AbortController();
		const slots = new RequestSlots(ctx, 1, controller.signal);
		const busy = blocker();
		const first = inSlot(slots, busy.task);
		const task = jest.fn(async () => 'ran');
		const second = inSlot(slots, task);
		controller.abort();
		await expect(second).rejects.toMatchObject({ kind: 'stopped' });
		await expect(inSlot(slots, task)).rejects.toMatchObject({ kind: 'stopped' });
		busy.release();
		await first;
		expect(task).not.toHaveBeenCalled();
	});
});
