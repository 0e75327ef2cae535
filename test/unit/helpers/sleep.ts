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
