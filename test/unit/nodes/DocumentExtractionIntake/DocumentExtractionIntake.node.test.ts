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

const KEY = 'a3f1c9e07b2d4658a1c0e9f7b3d2a4c6e8f0a1b2c3d4e5f6';
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
		getCredentials: async () => ({ secret: KEY }),
		getHeaderData: () => headers,
		getBodyData: () => body,
	} as unknown as IWebhookFunctions;
	const started = await node.webhook.call(ctx);
	return { ...answer, ...started, answer };
}

describe('isIntakeKey', () => {
	it('takes the key', () => expect(isIntakeKey(KEY, KEY)).toBe(true));

	it.each<[string, unknown, unknown]>([
		['another key', 'b'.repeat(48), KEY],
		['the key with one character less', KEY.slice(0, -1), KEY],
		['the key with one character more', `${KEY}0`, KEY],
		['the key in other case', KEY.toUpperCase(), KEY],
		['no header', undefined, KEY],
		['an empty header', '', KEY],
		['a repeated header', [KEY, KEY], KEY],
		['no key in the credential', '', ''],
		['a key that is not text', KEY, 42],
	])('refuses %s', (_, header, key) => expect(isIntakeKey(header, key)).toBe(false));
});

describe('DocumentExtractionIntake webhook()', () => {
	const documents = [{ key: 'INV-1', url: URL, customer: 'ACME' }, 'a.pdf'];

	it('with the key: one item per document, paired, and nothing of the request but the documents', async () => {
		const result = await post(
			{ documents, other: 'not taken' },
			{ 'x-intake-key': KEY, cookie: 'c=1' },
		);
		expect(result.answer).toEqual({});
		const items = result.workflowData![0];
		expect(items.map((i) => [i.json.document_key, i.json.position, i.pairedItem])).toEqual([
			['INV-1', 1, { item: 0 }],
			[null, 2, { item: 0 }],
		]);
		const stored = JSON.stringify(result.workflowData);
		for (const leak of [KEY, 'x-intake-key', 'cookie', 'not taken'])
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
		const result = await post({ documents: [] }, { 'x-intake-key': KEY });
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
		expect((await test(KEY)).status).toBe('OK');
		expect((await test('x'.repeat(16))).status).toBe('OK');
	});

	it('refuses a shorter one, saying how to make one', async () => {
		expect(await test('x'.repeat(15))).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The key has 15 characters.*openssl rand -hex 24/),
		});
	});
});
