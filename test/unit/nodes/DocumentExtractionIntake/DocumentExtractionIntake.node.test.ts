import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IWebhookFunctions,
} from 'n8n-workflow';

import {
	DocumentExtractionIntake,
	isIntakeKey,
} from '../../../../nodes/DocumentExtractionIntake/DocumentExtractionIntake.node';
import { NO_DOCUMENTS } from '../../../../nodes/DocumentExtractionIntake/documents';

const INTAKE_VALUE = 'a3f1c9e0'.repeat(6);
const URL = 'https://files.example.com/inv-1.pdf';
const node = new DocumentExtractionIntake();

/** Posts `body` with `headers` to the node's webhook(): what it answered and what it started. */
async function post(body: unknown, headers: Record<string, unknown>) {
	const answer: { status?: number; body?: unknown } = {};
	const res = {
		status: (status: number) => ((answer.status = status), res),
		json: (sent: unknown) => (answer.body = sent),
	};
	const ctx = {
		getResponseObject: () => res,
		getCredentials: async () => ({ secret: INTAKE_VALUE }),
		getHeaderData: () => headers,
		getBodyData: () => body,
	} as unknown as IWebhookFunctions;
	const started = await node.webhook.call(ctx);
	return { ...answer, ...started, answer };
}

describe('isIntakeKey', () => {
	it('takes the key', () => expect(isIntakeKey(INTAKE_VALUE, INTAKE_VALUE)).toBe(true));

	it.each<[string, unknown, unknown]>([
		['another key', 'b'.repeat(48), INTAKE_VALUE],
		['the key with one character less', INTAKE_VALUE.slice(0, -1), INTAKE_VALUE],
		['the key with one character more', `${INTAKE_VALUE}0`, INTAKE_VALUE],
		['the key in other case', INTAKE_VALUE.toUpperCase(), INTAKE_VALUE],
		['no header', undefined, INTAKE_VALUE],
		['an empty header', '', INTAKE_VALUE],
		['a repeated header', [INTAKE_VALUE, INTAKE_VALUE], INTAKE_VALUE],
		['no key in the credential', '', ''],
		['a key that is not text', INTAKE_VALUE, 42],
	])('refuses %s', (_, header, key) => expect(isIntakeKey(header, key)).toBe(false));
});

describe('DocumentExtractionIntake webhook()', () => {
	const documents = [{ key: 'INV-1', url: URL, customer: 'ACME' }, 'a.pdf'];

	it('with the key: one item per document, paired, and nothing of the request but the documents', async () => {
		const result = await post(
			{ documents, other: 'not taken' },
			{ 'x-intake-key': INTAKE_VALUE, cookie: 'c=1' },
		);
		expect(result.answer).toEqual({});
		const items = result.workflowData![0];
		expect(items.map((i) => [i.json.document_key, i.json.position, i.pairedItem])).toEqual([
			['INV-1', 1, { item: 0 }],
			[null, 2, { item: 0 }],
		]);
		const stored = JSON.stringify(result.workflowData);
		for (const leak of [INTAKE_VALUE, 'x-intake-key', 'cookie', 'not taken'])
			expect(stored).not.toContain(leak);
	});

	it.each<[string, Record<string, unknown>]>([
		['without the header', {}],
		['with a wrong key', { 'x-intake-key': 'guessed' }],
	])('%s: 403, and no run', async (_, headers) => {
		const result = await post({ documents }, headers);
		expect(result.status).toBe(403);
		expect(result.body).toEqual([expect.objectContaining({ kind: 'wrong_intake_key' })]);
		expect(result.workflowData).toBeUndefined();
		expect(result.noWebhookResponse).toBe(true);
	});

	it('with the key and no documents: 400 no_documents, and no run', async () => {
		const result = await post({ documents: [] }, { 'x-intake-key': INTAKE_VALUE });
		expect([result.status, result.body, result.workflowData]).toEqual([
			400,
			[NO_DOCUMENTS],
			undefined,
		]);
	});
});

describe('the Intake Key credential test', () => {
	const test = (secret: string) =>
		node.methods.credentialTest.testIntakeKey.call(
			{} as ICredentialTestFunctions,
			{
				data: { secret },
			} as unknown as ICredentialsDecrypted,
		);

	it('takes a key of 16 characters or more', async () => {
		expect((await test(INTAKE_VALUE)).status).toBe('OK');
		expect((await test('x'.repeat(16))).status).toBe('OK');
	});

	it('refuses a shorter one, saying how to make one', async () => {
		expect(await test('x'.repeat(15))).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The key has 15 characters.*openssl rand -hex 24/),
		});
	});
});
