jest.mock('n8n-workflow', () => jest.requireActual('../../helpers/sleep').workflowWithFakeSleep());

import {
	completedPayload,
	Host,
	nodeType,
	signedDelivery,
	strictNock,
} from '../../helpers/triggerHost';

/** How long, and how many, task outcomes the trigger remembers; copies are in the node's tests. */

const SECRET = 'whsec_' + 'cd'.repeat(32);
const HOUR = 60 * 60_000;
let now = Date.parse('2026-03-10T12:00:00.000Z');

strictNock();
beforeEach(() => jest.spyOn(Date, 'now').mockImplementation(() => now));
afterEach(() => jest.restoreAllMocks());

// The timestamp check is off: the clock moves by hours.
const host = () =>
	new Host({
		useExistingRegistration: true,
		webhookSecret: SECRET,
		options: { timestampTolerance: 0 },
	});
const delivery = (taskId: string) => signedDelivery(completedPayload({ task_id: taskId }), SECRET);
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

it('remembers at most 10,000 outcomes, forgetting the oldest first', async () => {
	const trigger = host();
	const workflow = trigger.load();
	for (let i = 0; i <= 10_000; i++) {
		const { context, res } = trigger.webhook(workflow, delivery(`bound-${i}`));
		await nodeType.webhook.call(context);
		res.status(200).json({});
	}
	expect(await runs(trigger, 'bound-1')).toBe(false);
	expect(await runs(trigger, 'bound-0')).toBe(true);
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
