import {
	checkTimestamp,
	DEFAULT_TIMESTAMP_TOLERANCE_MINUTES,
	parseTimestamp,
	timestampAnswer,
	timestampToleranceMs,
} from '../../../../nodes/DocumentExtractionTrigger/delivery';

const NOW = Date.parse('2026-03-10T12:00:00.000Z');
const MINUTE = 60_000;
const TOLERANCE = 60 * MINUTE;

describe('parseTimestamp', () => {
	it.each([
		['2026-03-10T12:00:00Z', NOW],
		['2026-03-10T12:00:00.000Z', NOW],
		['2026-03-10T12:00:00.123456Z', NOW + 123],
		['2026-03-10t12:00:00z', NOW],
		['2026-03-10 12:00:00Z', NOW],
		['2026-03-10T12:00Z', NOW],
		// no zone: UTC, as the service gives its times
		['2026-03-10T12:00:00', NOW],
		['2026-03-10T12:00:00.5', NOW + 500],
		// offsets
		['2026-03-10T14:00:00+02:00', NOW],
		['2026-03-10T14:00:00+0200', NOW],
		['2026-03-10T07:30:00-04:30', NOW],
		['2026-03-10T12:00:00+00:00', NOW],
		['2026-03-11T01:00:00+13:00', NOW],
		[' 2026-03-10T12:00:00Z ', NOW],
	])('%p is %p', (text, expected) => {
		expect(parseTimestamp(text)).toBe(expected);
	});

	it.each([
		'',
		'yesterday',
		'2026-03-10',
		'12:00:00',
		'2026-02-30T12:00:00Z',
		'2026-03-10T24:00:00Z',
		'2026-03-10T12:60:00Z',
		'2026-03-10T12:00:61Z',
		'2026-03-10T12:00:00+25:00',
		'2026-03-10T12:00:00 GMT',
		'Tue, 10 Mar 2026 12:00:00 GMT',
		'1773144000',
	])('%p is not a timestamp', (text) => {
		expect(parseTimestamp(text)).toBeUndefined();
	});

	it.each([1773144000000, null, undefined, {}, ['2026-03-10T12:00:00Z']])(
		'%p (not a string) is not a timestamp',
		(value) => {
			expect(parseTimestamp(value)).toBeUndefined();
		},
	);
});

describe('checkTimestamp', () => {
	const iso = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

	it.each([
		['exactly now', 0],
		['just inside, in the past', -TOLERANCE + 1],
		['on the edge, in the past', -TOLERANCE],
		['just inside, ahead (n8n clock slow)', TOLERANCE - 1],
		['on the edge, ahead', TOLERANCE],
		['a retry 21 s later', -21_000],
	])('%s passes', (_name, offset) => {
		expect(checkTimestamp(iso(offset), TOLERANCE, NOW)).toEqual({ ok: true });
	});

	it.each([
		['just outside, in the past', -TOLERANCE - 1, 'too old'],
		['two days old', -48 * TOLERANCE, 'too old'],
		['just outside, ahead', TOLERANCE + 1, 'in the future'],
	])('%s is refused', (_name, offset, reason) => {
		expect(checkTimestamp(iso(offset), TOLERANCE, NOW)).toEqual({
			ok: false,
			reason,
			differenceMs: -offset,
		});
	});

	it('reads a timestamp without a zone as UTC and one with an offset by its offset', () => {
		// 61 minutes old when read as UTC, whatever the zone of the machine
		expect(checkTimestamp('2026-03-10T10:59:00', TOLERANCE, NOW)).toMatchObject({
			reason: 'too old',
		});
		expect(checkTimestamp('2026-03-10T11:01:00', TOLERANCE, NOW)).toEqual({ ok: true });
		// the same instant written in another zone
		expect(checkTimestamp('2026-03-10T13:01:00+02:00', TOLERANCE, NOW)).toEqual({ ok: true });
		expect(checkTimestamp('2026-03-10T12:59:00+02:00', TOLERANCE, NOW)).toMatchObject({
			reason: 'too old',
		});
		expect(checkTimestamp('2026-03-10T04:59:00-06:00', TOLERANCE, NOW)).toMatchObject({
			reason: 'too old',
		});
	});

	it.each([
		[undefined, 'missing'],
		[null, 'missing'],
		['', 'missing'],
		['not a date', 'unreadable'],
		[1773144000, 'unreadable'],
	])('%p is refused as %s', (value, reason) => {
		expect(checkTimestamp(value, TOLERANCE, NOW)).toEqual({ ok: false, reason });
	});

	it('a tolerance of 0 turns the check off', () => {
		expect(checkTimestamp(undefined, 0, NOW)).toEqual({ ok: true });
		expect(checkTimestamp('2001-01-01T00:00:00Z', 0, NOW)).toEqual({ ok: true });
	});
});

describe('the tolerance and the answer', () => {
	it('defaults to the hour the trigger remembers deliveries for', () => {
		expect(DEFAULT_TIMESTAMP_TOLERANCE_MINUTES).toBe(60);
		expect(timestampToleranceMs({})).toBe(60 * MINUTE);
		expect(timestampToleranceMs({ timestampTolerance: 5 })).toBe(5 * MINUTE);
		expect(timestampToleranceMs({ timestampTolerance: 0 })).toBe(0);
		expect(timestampToleranceMs({ timestampTolerance: -3 })).toBe(60 * MINUTE);
	});

	it('acknowledges a replay (200, ignored) so that the service does not retry it', () => {
		expect(
			timestampAnswer({ ok: false, reason: 'too old', differenceMs: 2 * 86_400_000 }, TOLERANCE),
		).toEqual({
			status: 200,
			body: {
				received: true,
				ignored: "timestamp too old: 2 days before n8n's clock, more than the tolerance of 60 min",
			},
		});
	});

	it('refuses a delivery without a readable timestamp with 400', () => {
		expect(timestampAnswer({ ok: false, reason: 'missing' }, TOLERANCE).status).toBe(400);
		expect(timestampAnswer({ ok: false, reason: 'unreadable' }, TOLERANCE).status).toBe(400);
	});
});
