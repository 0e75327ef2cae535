/**
 * n8n-workflow with a `sleep` that returns at once, so that retry and polling delays are checked
 * without waiting. In a test file:
 *
 *   jest.mock('n8n-workflow', () => jest.requireActual('<path>/helpers/sleep').workflowWithFakeSleep());
 *
 * or, for a clock the sleeps move forward (minutes of Max Wait or of 429s at once), with
 * `useFakeClock()` in the file: ….workflowWithFakeClock().
 */
function withSleep(record: (ms: number) => void): object {
	return {
		...jest.requireActual('n8n-workflow'),
		sleep: jest.fn(async (ms: number) => record(ms)),
	};
}

/** The waits asked for from workflowWithFakeSleep's `sleep`. */
export const sleeps: number[] = [];

export const workflowWithFakeSleep = () => withSleep((ms) => sleeps.push(ms));

export const mockClock = { now: Date.parse('2026-11-21T10:00:00Z'), sleeps: [] as number[] };

/** A `sleep` that moves mockClock forward and, as n8n-workflow before 2.34 (n8n 1.123), ignores the cancel signal. */
export const workflowWithFakeClock = () =>
	withSleep((ms) => {
		mockClock.sleeps.push(ms);
		mockClock.now += ms;
	});

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
