/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';

import nock from 'nock';
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

import {
	invoiceParameters,
	packageTypes,
	ROOT,
	runExtract,
	type ExtractRunOptions,
} from './extractWorkflow';
import { binaryItem, disposeHarness } from '../../harness/engine';

const BASE_URL = 'http://127.0.0.1:9';
const API_KEY = 'vnd_integration_key';
const INVOICES = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

beforeAll(() => {
	if (!existsSync(path.join(ROOT, 'dist/nodes/DocumentExtraction/DocumentExtraction.node.js'))) {
		throw new Error('dist/ is missing: run "npm run build" before the integration tests');
	}
	packageTypes();
	nock.disableNetConnect();
});
afterAll(() => {
	nock.enableNetConnect();
	// Later test files in this process share Node's http module: take nock out of it.
	nock.restore();
	disposeHarness();
});
beforeEach(() => nock.cleanAll());

async function run(
	parameters: INodeParameters,
	options: Partial<ExtractRunOptions> & { credentials?: IDataObject } = {},
) {
	return await runExtract(parameters, {
		...options,
		credentials: (options.credentials ?? {
			apiKey: API_KEY,
			baseUrl: `${BASE_URL}/`,
		}) as ICredentialDataDecryptedObject,
	});
}

const auth = { reqheaders: { authorization: `Bearer ${API_KEY}` } };

describe.each(['default', 'filesystem'] as const)('Submit in %s binary mode', (binaryMode) => {
	it('sends the file intact with the Authorization header n8n applies', async () => {
		const pdf = Buffer.from(`%PDF-1.7 ${'x'.repeat(300_001)}`);
		let digest = '';
		nock(BASE_URL, auth)
			.post('/process_file', (body) => {
				digest = sha256(Buffer.from(body.file_base64, 'base64'));
				return (
					body.project === 'Invoices' && body.document_type === 'invoice' && body.max_pages === 2
				);
			})
			.reply(200, { task_id: uuid(1) });
		const result = await run(
			invoiceParameters('submit', { options: { maxPages: 2, includeInputBinary: true } }),
			{
				items: [binaryItem(pdf, 'big.pdf', 'application/pdf')],
				binaryMode,
			},
		);
		expect(result.errorOf('Extract')).toBeUndefined();
		const out = result.outputOf('Extract');
		expect(out.map((o) => o.json)).toEqual([
			{ task_id: uuid(1), project: 'Invoices', document_type: 'invoice' },
		]);
		expect(digest).toBe(sha256(pdf));
		if (binaryMode === 'filesystem') expect(out[0].binary?.data.id).toMatch(/^filesystem/);
		expect((await result.binaryOf('Extract')).equals(pdf)).toBe(true);
	});
});

describe('Submit and Wait through the engine', () => {
	it.each(['default', 'filesystem'] as const)(
		'runs three items side by side in %s mode: results in order, the failed one an error item',
		async (binaryMode) => {
			const files = ['first invoice', 'second EMULATOR_FAIL', 'third invoice'].map((text, i) =>
				binaryItem(`%PDF ${text}`, `f${i}.pdf`, 'application/pdf', { n: i }),
			);
			const digests = new Map<string, string>();
			let n = 0;
			nock(BASE_URL, auth)
				.post('/process_file')
				.times(3)
				.reply((_uri, body) => {
					const bytes = Buffer.from((body as IDataObject).file_base64 as string, 'base64');
					const id = uuid(++n);
					digests.set(id, sha256(bytes));
					return [200, { task_id: id, marker: bytes.includes('EMULATOR_FAIL') }];
				});
			nock(BASE_URL, auth)
				.get(/\/task_status\//)
				.times(3)
				.reply((uri) => {
					const id = uri.split('/').pop()!;
					const failed = [...digests.keys()].find(
						(key) => digests.get(key) === sha256('%PDF second EMULATOR_FAIL'),
					);
					return id === failed
						? [200, { task_id: id, status: 'failed', result: null, error: 'Marker found' }]
						: [200, { task_id: id, status: 'complete', result: { sha: digests.get(id) } }];
				});
			const result = await run(
				invoiceParameters('submitAndWait', {
					project: { __rl: true, mode: 'list', value: INVOICES },
					output: 'result',
					options: { pollInterval: 1, includeInputBinary: true },
				}),
				{ items: files, binaryMode, nodeSettings: { onError: 'continueRegularOutput' } },
			);
			const out = result.outputOf('Extract');
			expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
			expect(out[0].json.sha).toBe(sha256('%PDF first invoice'));
			expect(out[1].json.error).toBe('Extraction failed: Marker found');
			expect(out[1].json.task_id).toMatch(/^00000000-/);
			expect(out[2].json.sha).toBe(sha256('%PDF third invoice'));
			expect(out[0].binary?.data).toBeDefined();
		},
	);

	it('without continue-on-fail the failed task fails the node with the service error', async () => {
		nock(BASE_URL)
			.post('/process_file')
			.reply(200, { task_id: uuid(7) });
		nock(BASE_URL)
			.get(`/task_status/${uuid(7)}`)
			.reply(200, { task_id: uuid(7), status: 'failed', error: 'Page 1 unreadable' });
		const result = await run(invoiceParameters('submitAndWait', { options: { pollInterval: 1 } }));
		expect(result.errorOf('Extract')?.message).toBe('Extraction failed: Page 1 unreadable');
	});

	it('a stopped execution stops polling', async () => {
		nock(BASE_URL)
			.post('/process_file')
			.reply(200, { task_id: uuid(8) });
		let polls = 0;
		nock(BASE_URL)
			.get(`/task_status/${uuid(8)}`)
			.times(50)
			.reply(() => {
				polls++;
				return [200, { task_id: uuid(8), status: 'processing' }];
			});
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 1500);
		const started = Date.now();
		const result = await run(invoiceParameters('submitAndWait', { options: { pollInterval: 1 } }), {
			signal: controller.signal,
		});
		expect(result.canceled).toBe(true);
		expect(Date.now() - started).toBeLessThan(2600);
		expect(polls).toBe(1);
	});
});

describe('errors through the engine', () => {
	it('a key in the wrong format is refused before any request, without echoing it', async () => {
		const scope = nock(BASE_URL).get('/projects').reply(200, []);
		const result = await run(
			{ resource: 'project', operation: 'list' },
			{ credentials: { apiKey: 'live_0123456789', baseUrl: BASE_URL } },
		);
		const error = result.errorOf('Extract');
		expect(error?.message).toMatch(/keys look like vnd_/);
		expect(JSON.stringify(result.run.data)).not.toContain('live_0123456789');
		expect(scope.isDone()).toBe(false);
	});
});
