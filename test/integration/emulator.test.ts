import { createHash } from 'node:crypto';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { invoiceParameters, packageTypes, runExtract } from './extractWorkflow';
import { binaryItem, disposeHarness, type BinaryMode } from '../../harness/engine';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createEmulator } = require('../../emulator/server.js');

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

let emulator: { url: string; close(): Promise<void> };

beforeAll(async () => {
	packageTypes();
	emulator = await createEmulator({ port: 0, processingMs: 600 });
});
afterAll(async () => {
	await emulator.close();
	disposeHarness();
});

async function run(
	parameters: INodeParameters,
	items = [binaryItem('%PDF-1.7 x', 'a.pdf', 'application/pdf')],
	opts: { binaryMode?: BinaryMode; apiKey?: string; continueOnFail?: boolean } = {},
) {
	return await runExtract(parameters, {
		items,
		binaryMode: opts.binaryMode,
		credentials: { apiKey: opts.apiKey ?? 'vnd_test_key', baseUrl: emulator.url },
		nodeSettings: opts.continueOnFail ? { onError: 'continueRegularOutput' } : {},
	});
}

const submitAndWait = (project = 'Invoices'): INodeParameters =>
	invoiceParameters('submitAndWait', {
		project: { __rl: true, mode: 'id', value: project },
		output: 'full',
		options: { pollInterval: 1 },
	});

describe('against the service emulator', () => {
	it.each(['default', 'filesystem'] as const)(
		'Submit and Wait round-trips every file byte for byte in %s mode',
		async (binaryMode) => {
			const contents = [
				'%PDF first',
				'%PDF second EMULATOR_FAIL',
				`%PDF third ${'z'.repeat(200_000)}`,
			];
			const items = contents.map((c, i) => binaryItem(c, `f${i}.pdf`, 'application/pdf', { i }));
			const result = await run(submitAndWait(), items, { binaryMode, continueOnFail: true });
			const out = result.outputOf('Extract');
			expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
			const ok = [out[0], out[2]].map((o) => o.json.result as IDataObject);
			expect(ok.map((r) => r.file_sha256)).toEqual([sha256(contents[0]), sha256(contents[2])]);
			expect(ok.map((r) => r.file_size)).toEqual([contents[0].length, contents[2].length]);
			expect(out[1].json.error).toMatch(/^Extraction failed: .*EMULATOR_FAIL/);
			expect(out[1].json.task_id).toMatch(/^[0-9a-f-]{36}$/);
		},
	);

	it('an inactive key gives the 402 message', async () => {
		const result = await run({ resource: 'project', operation: 'list' }, undefined, {
			apiKey: 'vnd_inactive_key',
		});
		expect(result.errorOf('Extract')?.message).toBe(
			'The Document Extraction subscription is inactive (402): Subscription inactive. Renew it in the web dashboard.',
		);
	});

	it('an unknown project gives the 404 message naming it', async () => {
		const result = await run(submitAndWait('Receipts'));
		expect(result.errorOf('Extract')?.message).toBe(
			"Not found (404): Project 'Receipts' not found",
		);
	});

	it('a bad document type gives the 404 message naming it', async () => {
		const result = await run({ ...submitAndWait(), documentType: 'payslip' });
		expect(result.errorOf('Extract')?.message).toContain("Document type 'payslip' not found");
	});
});
