/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs under jest on Node, is never shipped or loaded by n8n */

// n8n-workflow before 2.34 (n8n 1.123): a sleep that ignores the cancel signal.
jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleep: jest.fn(async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms))),
}));

import { RequestSlots } from '../../../../../nodes/shared/transport/slots';
import { CancelledError } from '../../../../../nodes/shared/wait';

describe('RequestSlots and the cancel signal', () => {
	it('a task waiting for a free slot gives up at once when stopped, and never runs', async () => {
		const limiter = new RequestSlots(1);
		const controller = new AbortController();
		let release!: () => void;
		const first = limiter.run(
			async () => await new Promise<void>((resolve) => (release = resolve)),
			controller.signal,
		);
		const ran: string[] = [];
		const second = limiter.run(async () => {
			ran.push('second');
		}, controller.signal);
		controller.abort();
		await expect(second).rejects.toBeInstanceOf(CancelledError);
		release();
		await first;
		expect(ran).toEqual([]);
		// The slot is free again for a run that is not stopped.
		await expect(limiter.run(async () => 'ok')).resolves.toBe('ok');
	});

	it('does not start a task once stopped', async () => {
		const controller = new AbortController();
		controller.abort();
		const task = jest.fn(async () => 'ran');
		await expect(new RequestSlots(2).run(task, controller.signal)).rejects.toBeInstanceOf(
			CancelledError,
		);
		expect(task).not.toHaveBeenCalled();
	});
});
