/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs under jest on Node, is never shipped or loaded by n8n */

// n8n-workflow before 2.34 (n8n 1.123): a sleep that ignores the cancel signal.
jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleep: jest.fn(async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms))),
}));

import { CancelledError, wait } from '../../../../nodes/shared/wait';

describe('wait', () => {
	it('waits the time asked for', async () => {
		const started = Date.now();
		await wait(50, new AbortController().signal);
		expect(Date.now() - started).toBeGreaterThanOrEqual(45);
	});

	it('returns at once when stopped, although the host sleep ignores the signal', async () => {
		const controller = new AbortController();
		const started = Date.now();
		setTimeout(() => controller.abort(), 20);
		await expect(wait(3_000, controller.signal)).rejects.toBeInstanceOf(CancelledError);
		expect(Date.now() - started).toBeLessThan(1000);
	});
});
