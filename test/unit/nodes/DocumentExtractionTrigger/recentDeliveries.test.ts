import { RecentDeliveries } from '../../../../nodes/DocumentExtractionTrigger/recentDeliveries';

describe('RecentDeliveries', () => {
	let now = 0;
	const clock = () => now;
	beforeEach(() => {
		now = 1_000_000;
	});

	it('accepts a key once, and its repeats within the window are refused', () => {
		const recent = new RecentDeliveries(60_000, 100, clock);
		expect(recent.claim('a')).toBe(true);
		expect(recent.claim('a')).toBe(false);
		now += 59_999;
		expect(recent.claim('a')).toBe(false);
		expect(recent.claim('b')).toBe(true);
	});

	it('accepts a key again once the window has passed', () => {
		const recent = new RecentDeliveries(60_000, 100, clock);
		expect(recent.claim('a')).toBe(true);
		now += 60_000;
		expect(recent.claim('a')).toBe(true);
		expect(recent.claim('a')).toBe(false);
	});

	it('accepts a released key again at once', () => {
		const recent = new RecentDeliveries(60_000, 100, clock);
		recent.claim('a');
		recent.release('a');
		expect(recent.claim('a')).toBe(true);
	});

	it('holds at most maxEntries keys, forgetting the oldest first', () => {
		const recent = new RecentDeliveries(60_000, 3, clock);
		for (const key of ['a', 'b', 'c', 'd']) expect(recent.claim(key)).toBe(true);
		expect(recent.size).toBe(3);
		expect(recent.claim('b')).toBe(false);
		expect(recent.claim('a')).toBe(true);
	});

	it('drops expired keys as new ones arrive, so memory follows the traffic of the window', () => {
		const recent = new RecentDeliveries(1_000, 10_000, clock);
		for (let i = 0; i < 500; i++) {
			recent.claim(`k${i}`);
			now += 10;
		}
		// 500 keys 10 ms apart, a 1 s window: only the last 100 can still be in it
		expect(recent.size).toBeLessThanOrEqual(101);
	});
});
