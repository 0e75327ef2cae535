/**
 * n8n-workflow whose `sleep` returns at once: `jest.mock('n8n-workflow', () =>
 * jest.requireActual('<path>/helpers/sleep').workflowWithFakeSleep())`, or workflowWithFakeClock()
 * with useFakeClock() for a clock the sleeps move forward (minutes of Max Wait at once).
 */
function withSleep(record: (ms: number) => void): object {
	const actual = jest.requireActual('n8n-workflow');
	return {
		...actual,
		// a sleep given a signal is a request attempt's time limit: it runs in real time
		sleep: jest.fn(async (ms: number, signal?: AbortSignal) =>
			signal ? await actual.sleep(ms, signal) : record(ms),
		),
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
	afterEach(() => jest.restoreAllMocks());
}
