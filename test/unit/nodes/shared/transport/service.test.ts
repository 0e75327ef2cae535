import {
	generateWebhookSecret,
	isTerminal,
	TASK_COMPLETED,
	WEBHOOK_EVENTS,
} from '../../../../../nodes/shared/transport/service';

describe('service vocabulary', () => {
	it('ends a task only at complete or failed', () => {
		expect(isTerminal('complete')).toBe(true);
		expect(isTerminal('failed')).toBe(true);
		for (const running of ['queued', 'processing', 'ocr_in_progress', undefined, null]) {
			expect(isTerminal(running)).toBe(false);
		}
	});

	it('subscribes webhooks to task.completed only', () => {
		expect(TASK_COMPLETED).toBe('task.completed');
		expect(WEBHOOK_EVENTS).toEqual(['task.completed']);
	});

	it('generates a fresh whsec_ secret of 32 random bytes each time', () => {
		const secret = generateWebhookSecret();
		expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
		expect(generateWebhookSecret()).not.toBe(secret);
	});
});
