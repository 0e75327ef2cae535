import { RecentDeliveries } from '../../../../nodes/DocumentExtractionTrigger/recentDeliveries';

describe('RecentDeliveries', () => {
	let now = 0;
	const clock = () => now;
	beforeEach(() => {
		now = 1_000_000;
	});

	/** Claims and settles `key` as a run that started; returns what the claim found. */
	function accept(recent: RecentDeliveries, key: string): string {
		const claim = recent.claim(key);
		if (claim.state === 'claimed') recent.settle(key, true);
		return claim.state;
	}

	it('accepts a key once; its repeats within the window are seen', () => {
		const recent = new RecentDeliveries(60_000, 100, clock);
		expect(accept(recent, 'a')).toBe('claimed');
		expect(recent.claim('a').state).toBe('seen');
		now += 59_999;
		expect(recent.claim('a').state).toBe('seen');
		expect(accept(recent, 'b')).toBe('claimed');
	});

	it('accepts a key again once the window has passed', () => {
		const recent = new RecentDeliveries(60_000, 100, clock);
		accept(recent, 'a');
		now += 60_000;
		expect(accept(recent, 'a')).toBe('claimed');
		expect(recent.claim('a').state).toBe('seen');
	});

	it('makes copies that arrive while a claim is in flight wait for its outcome', async () => {
		const recent = new RecentDeliveries(60_000, 100, clock);
		expect(recent.claim('a').state).toBe('claimed');
		const copy = recent.claim('a');
		expect(copy.state).toBe('inFlight');
		recent.settle('a', true);
		await expect(copy.state === 'inFlight' && copy.outcome).resolves.toBe(true);
		expect(recent.claim('a').state).toBe('seen');
	});

	it('forgets a key whose first copy started no run, so that the next copy takes over', async () => {
		const recent = new RecentDeliveries(60_000, 100, clock);
		recent.claim('a');
		const copy = recent.claim('a');
		recent.settle('a', false);
		await expect(copy.state === 'inFlight' && copy.outcome).resolves.toBe(false);
		expect(recent.claim('a').state).toBe('claimed');
		expect(recent.claim('a').state).toBe('inFlight');
	});

	it('ignores a settle for a key that is not in flight', () => {
		const recent = new RecentDeliveries(60_000, 100, clock);
		recent.settle('nothing', false);
		accept(recent, 'a');
		recent.settle('a', false);
		expect(recent.claim('a').state).toBe('seen');
	});

	it('holds at most maxEntries settled keys, forgetting the oldest first', () => {
		const recent = new RecentDeliveries(60_000, 3, clock);
		for (const key of ['a', 'b', 'c', 'd']) expect(accept(recent, key)).toBe('claimed');
		expect(recent.claim('b').state).toBe('seen');
		expect(accept(recent, 'a')).toBe('claimed');
	});

	it('never evicts a claim in flight within the window, and settles one left past it as started', async () => {
		const recent = new RecentDeliveries(1_000, 1, clock);
		recent.claim('open');
		const copy = recent.claim('open');
		accept(recent, 'b');
		expect(recent.claim('open').state).toBe('inFlight');
		now += 1_000;
		accept(recent, 'c');
		await expect(copy.state === 'inFlight' && copy.outcome).resolves.toBe(true);
	});
});
