import { Pacer } from '../../../../../nodes/shared/transport/pacer';

describe('Pacer', () => {
	function pacer() {
		const clock = { now: 0 };
		return { clock, pacer: new Pacer(() => clock.now) };
	}

	it('paces nothing until the service throttles', () => {
		const { pacer: p } = pacer();
		expect(p.rate).toBe(Infinity);
		expect(p.earliest(0)).toBe(0);
	});

	it('after a 429 pauses for Retry-After and sends at 80 % of what the service accepted, cut once a second at most', () => {
		const { pacer: p } = pacer();
		for (const t of [100, 200, 300, 400, 500]) p.onAccepted(t);
		p.onThrottled(1000, 600);
		expect(p.rate).toBeCloseTo(4);
		expect(p.earliest(600)).toBe(1600);
		// answers to requests already sent do not cut again
		p.onThrottled(1000, 700);
		p.onThrottled(1000, 900);
		expect(p.rate).toBeCloseTo(4);
	});

	it('climbs back to where the service throttled, then probes beyond it slowly', () => {
		const { pacer: p } = pacer();
		for (const t of [100, 200, 300, 400, 500]) p.onAccepted(t);
		p.onThrottled(1000, 600);
		let now = 2000;
		for (let i = 0; i < 20; i++) p.onAccepted((now += 250));
		expect(p.rate).toBeGreaterThan(5);
		expect(p.rate).toBeLessThan(5 * 1.01 ** 20 + 0.01);
	});

	it('only pauses when the service accepted nothing lately: there is no rate to learn', () => {
		const { pacer: p } = pacer();
		p.onThrottled(1500, 0);
		expect(p.rate).toBe(Infinity);
		expect(p.earliest(0)).toBe(1500);
	});

	it('spaces requests by the rate, down to the slowest pace', async () => {
		const { clock, pacer: p } = pacer();
		p.onAccepted(0);
		p.onThrottled(0, 10);
		expect(p.rate).toBeCloseTo(0.8);
		clock.now = 10;
		await p.acquire();
		expect(p.earliest(10)).toBe(10 + 1250);
		p.onAccepted(20);
		p.onThrottled(0, 1100);
		p.onThrottled(0, 2200);
		p.onThrottled(0, 3300);
		expect(p.rate).toBeGreaterThanOrEqual(0.25);
	});

	it('forgets the pace after a minute without a 429', () => {
		const { pacer: p } = pacer();
		for (const t of [100, 200, 300]) p.onAccepted(t);
		p.onThrottled(1000, 400);
		expect(Number.isFinite(p.rate)).toBe(true);
		p.earliest(400 + 61_000);
		expect(p.rate).toBe(Infinity);
	});
});
