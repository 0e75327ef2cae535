import type { IDataObject } from 'n8n-workflow';

jest.mock('n8n-workflow', () => jest.requireActual('../../helpers/sleep').workflowWithFakeSleep());

import {
	claimDelivery,
	MAX_ENTRIES,
	settleWhenAnswered,
	type WebhookResponse,
} from '../../../../nodes/DocumentExtractionTrigger/recentDeliveries';
import { completedPayload, Host, signedDelivery, strictNock } from '../../helpers/triggerHost';

/** The signed timestamp of a delivery, and the outcomes the trigger remembers, through its webhook. */

const SECRET = 'whsec_' + 'ab'.repeat(32);
const NOW = Date.parse('2026-03-10T12:00:00.000Z');
const MINUTE = 60_000;
let deliveries = 0;

strictNock();
afterEach(() => jest.restoreAllMocks());

/** What the trigger answers to a delivery with `timestamp` (absent when undefined) at `now`. */
async function answer(timestamp: unknown, now = NOW, options: IDataObject = {}) {
	jest.spyOn(Date, 'now').mockReturnValue(now);
	const host = new Host({ useExistingRegistration: true, webhookSecret: SECRET, options });
	const payload = completedPayload({
		task_id: `t-${++deliveries}`,
		timestamp: timestamp as string,
	});
	if (timestamp === undefined) delete payload.timestamp;
	const { result, res } = await host.deliver(signedDelivery(payload, SECRET));
	return result.workflowData ? 'runs' : { status: res.statusCode, ...(res.body as IDataObject) };
}

describe('the signed timestamp', () => {
	// With a tolerance of one minute, a timestamp runs at its own time + 1 min, not 1 ms later:
	// that pins the instant it was read as.
	it.each([
		['2026-03-10T12:00:00Z', NOW],
		['2026-03-10T12:00:00.123456Z', NOW + 123],
		['2026-03-10t12:00:00z', NOW],
		['2026-03-10 12:00:00Z', NOW],
		['2026-03-10T12:00Z', NOW],
		// no zone: UTC, as the service gives its times
		['2026-03-10T12:00:00', NOW],
		['2026-03-10T12:00:00.5', NOW + 500],
		['2026-03-10T14:00:00+02:00', NOW],
		['2026-03-10T14:00:00+0200', NOW],
		['2026-03-10T07:30:00-04:30', NOW],
		['2026-03-11T01:00:00+13:00', NOW],
		[' 2026-03-10T12:00:00Z ', NOW],
	])('%p is read as %p', async (text, instant) => {
		const options = { timestampTolerance: 1 };
		expect(await answer(text, instant + MINUTE, options)).toBe('runs');
		expect(await answer(text, instant + MINUTE + 1, options)).toMatchObject({ status: 200 });
	});

	it.each<[unknown, string?]>([
		[undefined, 'missing'],
		[null, 'missing'],
		['', 'missing'],
		['yesterday'],
		['2026-03-10'],
		['12:00:00'],
		['2026-02-30T12:00:00Z'],
		['2026-03-10T24:00:00Z'],
		['2026-03-10T12:60:00Z'],
		['2026-03-10T12:00:61Z'],
		['2026-03-10T12:00:00+25:00'],
		['2026-03-10T12:00:00 GMT'],
		['Tue, 10 Mar 2026 12:00:00 GMT'],
		['1773144000'],
		[NOW],
		[{}],
		[['2026-03-10T12:00:00Z']],
	])('%p is refused with 400', async (timestamp, reason = 'unreadable') => {
		expect(await answer(timestamp)).toEqual({
			status: 400,
			error: `timestamp ${reason}: a delivery must carry its signed ISO 8601 timestamp`,
		});
	});

	it.each([
		['on the edge, in the past', -60 * MINUTE, 'runs'],
		['on the edge, ahead', 60 * MINUTE, 'runs'],
		['a retry 21 s later', -21_000, 'runs'],
		[
			'two days old',
			-48 * 60 * MINUTE,
			"timestamp too old: 2 days before n8n's clock, more than the tolerance of 60 min",
		],
		['just outside, in the past', -60 * MINUTE - 1, /^timestamp too old: 60 min before/],
		['just outside, ahead', 60 * MINUTE + 1, /^timestamp in the future: 60 min after/],
	])(
		'%s: by default, the hour the trigger remembers deliveries',
		async (_name, offset, outcome) => {
			const result = await answer(new Date(NOW + offset).toISOString());
			if (outcome === 'runs') expect(result).toBe('runs');
			// a replay is acknowledged, so that the service does not send it again
			else expect(result).toMatchObject({ status: 200, received: true, ignored: outcome });
		},
	);

	it('follows the Timestamp Tolerance option; 0 turns the check off, a negative one is the default', async () => {
		const old = new Date(NOW - 6 * MINUTE).toISOString();
		expect(await answer(old, NOW, { timestampTolerance: 5 })).toMatchObject({ status: 200 });
		expect(await answer(old, NOW, { timestampTolerance: -3 })).toBe('runs');
		expect(await answer(undefined, NOW, { timestampTolerance: 0 })).toBe('runs');
		expect(await answer('2001-01-01T00:00:00Z', NOW, { timestampTolerance: 0 })).toBe('runs');
	});
});

describe("the task outcomes remembered (copies: the node's tests)", () => {
	const HOUR = 60 * 60_000;
	let now = NOW;
	beforeEach(() => jest.spyOn(Date, 'now').mockImplementation(() => now));

	// The timestamp check is off: the clock moves by hours.
	const host = () =>
		new Host({
			useExistingRegistration: true,
			webhookSecret: SECRET,
			options: { timestampTolerance: 0 },
		});
	const delivery = (taskId: string) =>
		signedDelivery(completedPayload({ task_id: taskId }), SECRET);
	const runs = async (trigger: Host, taskId: string) =>
		(await trigger.deliver(delivery(taskId))).result.workflowData !== undefined;

	it('remembers a task outcome for an hour', async () => {
		const trigger = host();
		expect(await runs(trigger, 'window')).toBe(true);
		now += HOUR - 1;
		expect(await runs(trigger, 'window')).toBe(false);
		now += 1;
		expect(await runs(trigger, 'window')).toBe(true);
		expect(await runs(trigger, 'window')).toBe(false);
	});

	/** `count` other outcomes accepted by this process (any trigger), each answered at once. */
	async function flood(count: number) {
		for (let i = 0; i < count; i++) {
			const key = `flood-${now}-${i}`;
			await claimDelivery(key);
			settleWhenAnswered({} as WebhookResponse, key);
		}
	}

	it('remembers every outcome of the hour, far past 10,000', async () => {
		const trigger = host();
		expect(await runs(trigger, 'early')).toBe(true);
		await flood(20_000);
		expect(await runs(trigger, 'early')).toBe(false);
	});

	it('forgets a delivery n8n never answered within the hour', async () => {
		const trigger = host();
		await trigger.receive(delivery('unanswered'));
		// a copy within the hour finds it still in flight and is asked to come again
		expect((await trigger.deliver(delivery('unanswered'))).res.statusCode).toBe(503);
		now += HOUR;
		expect(await runs(trigger, 'another')).toBe(true);
		expect(await runs(trigger, 'unanswered')).toBe(true);
	});

	// last: the floor it raises stays for the rest of the file
	it('past its bound, forgets the oldest tenth and refuses what was signed before them as too old', async () => {
		const trigger = new Host({ useExistingRegistration: true, webhookSecret: SECRET });
		const signedAt = (taskId: string, at: number) =>
			signedDelivery(
				completedPayload({ task_id: taskId, timestamp: new Date(at).toISOString() }),
				SECRET,
			);
		const start = now;
		const early = signedAt('early', start);
		expect((await trigger.deliver(early)).result.workflowData).toBeDefined();
		now += 10 * MINUTE;
		await flood(MAX_ENTRIES);
		now += 10 * MINUTE;
		// the tenth forgotten arrived up to 10 min after `start`: anything signed up to 5 min
		// (clock skew) later than that is refused
		for (const replay of [early, signedAt('never-seen', start + 15 * MINUTE)]) {
			const { result, res } = await trigger.deliver(replay);
			expect(result.workflowData).toBeUndefined();
			expect(res.body).toEqual({
				received: true,
				ignored: expect.stringMatching(
					/^timestamp too old: \d+ min before n8n's clock, before the oldest delivery this n8n process still remembers \(more than 250,000 arrived within the hour\)$/,
				),
			});
		}
		expect(
			(await trigger.deliver(signedAt('fresh', start + 16 * MINUTE))).result.workflowData,
		).toBeDefined();
		// Timestamp Tolerance 0 reads no timestamp: what the memory forgot runs again
		trigger.parameters.options = { timestampTolerance: 0 };
		expect((await trigger.deliver(early)).result.workflowData).toBeDefined();
	});
});
