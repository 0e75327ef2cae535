/**
 * n8n-workflow with a `sleep` that returns at once and records how long it was asked to wait,
 * so retry and polling delays can be checked without waiting. In a test file:
 *
 *   jest.mock('n8n-workflow', () => jest.requireActual('<path>/helpers/sleep').workflowWithFakeSleep());
 *   import { sleeps } from '<path>/helpers/sleep';
 */
export const sleeps: number[] = [];

export function workflowWithFakeSleep(): object {
	return {
		...jest.requireActual('n8n-workflow'),
		sleep: jest.fn(async (ms: number) => {
			sleeps.push(ms);
		}),
	};
}

/**
 * A clock that the fake `sleep` moves forward, so that polling over minutes of Max Wait, or
 * waits for 429s, run at once. The fake sleep also ignores the cancel signal, as n8n-workflow
 * does before 2.34 (n8n 1.123). In a test file:
 *
 *   jest.mock('n8n-workflow', () => jest.requireActual('<path>/helpers/sleep').workflowWithFakeClock());
 *   import { mockClock, useFakeClock } from '<path>/helpers/sleep';
 *   useFakeClock();
 */
export const mockClock = { now: Date.parse('2026-11-21T10:00:00Z'), sleeps: [] as number[] };

export function workflowWithFakeClock(): object {
	return {
		...jest.requireActual('n8n-workflow'),
		sleep: jest.fn(async (ms: number) => {
			mockClock.sleeps.push(ms);
			mockClock.now += ms;
		}),
	};
}

/** Date.now() reads the fake clock in every test of the file, and the sleeps are counted per test. */
export function useFakeClock(): void {
	beforeEach(() => {
		mockClock.sleeps.length = 0;
		jest.spyOn(Date, 'now').mockImplementation(() => mockClock.now);
	});
	afterEach(() => {
		jest.restoreAllMocks();
	});
}
