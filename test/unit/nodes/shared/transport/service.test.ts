import nock from 'nock';

import {
	registerWebhook,
	generateWebhookSecret,
	isTerminal,
	TASK_COMPLETED,
	WEBHOOK_EVENTS,
} from '../../../../../nodes/shared/transport/service';
import { explain, webhookRequest } from '../../../../../nodes/shared/explain';
import { BASE_URL, createContext, failureOf, useOfflineNock } from '../../../helpers/context';
import { INVOICES } from '../../../helpers/fixtures';

useOfflineNock();

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

describe('refusals carry their reason in the message', () => {
	it('a refused webhook registration names the reason, the URL n8n gave, and WEBHOOK_URL', async () => {
		const detail = [
			{ loc: ['body', 'url'], msg: 'URL scheme should be https', type: 'value_error' },
		];
		nock(BASE_URL).post(`/projects/${INVOICES}/webhooks`).reply(422, { detail });
		const url = 'http://user:pw@localhost:5678/webhook/abc/webhook?token=x';
		const registration = { url, events: ['task.completed'], secret: 'whsec_x' };
		const ctx = createContext({ params: {} });
		const failure = await failureOf(registerWebhook.call(ctx, INVOICES, registration));
		const error = explain(failure, webhookRequest(INVOICES, url));
		expect(error.message).toBe(
			"The Document Extraction Service refused the webhook registration as invalid (422): url: URL scheme should be https. n8n gave the webhook URL http://localhost:5678/webhook/abc/webhook. The service needs an https address it can reach: set n8n's public address with the WEBHOOK_URL environment variable (for example WEBHOOK_URL=https://n8n.example.com/), restart n8n and publish again.",
		);
		expect(error).toMatchObject({ kind: 'refused', status: 422, detail });
	});
});
