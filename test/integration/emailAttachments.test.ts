import { createHash } from 'node:crypto';

import type {
	IBinaryKeyData,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
} from 'n8n-workflow';

import { invoiceParameters, packageTypes, runExtract } from './extractWorkflow';
import { binaryItem, disposeHarness, type BinaryMode } from '../../harness/engine';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createEmulator } = require('../../emulator/server.js');

/**
 * Email items through n8n-core's engine against the emulator: every attachment of an item is
 * its own document (one upload, one task, one output item paired with its email), the run's
 * request limit holds across all files, a failed document fails or is output on its own, and
 * Retry On Fail reuses each file's task.
 */

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

let emulator: { url: string; close(): Promise<void> };

beforeAll(async () => {
	packageTypes();
	emulator = await createEmulator({ port: 0, processingMs: 400 });
});
afterAll(async () => {
	await emulator.close();
	disposeHarness();
});

async function admin(method: string, what: string, body?: object): Promise<IDataObject> {
	const response = await fetch(`${emulator.url}/_emulator/${what}`, {
		method,
		headers: body ? { 'content-type': 'application/json' } : {},
		body: body ? JSON.stringify(body) : undefined,
	});
	return (await response.json()) as IDataObject;
}
const uploads = async () =>
	((await admin('GET', 'stats')).requests as IDataObject).process_file as number;

beforeEach(async () => {
	await admin('POST', 'reset');
});

/** An email item as n8n's email triggers output it: attachment_<n> per file, the email's fields in its JSON. */
function email(
	files: Array<[content: string, fileName: string, mimeType?: string]>,
	json: IDataObject = {},
): INodeExecutionData {
	const binary: IBinaryKeyData = {};
	files.forEach(([content, fileName, mimeType = 'application/pdf'], i) => {
		binary[`attachment_${i}`] = binaryItem(content, fileName, mimeType).binary!.data;
	});
	return { json, binary };
}

const everyAttachment = (options: IDataObject = {}, extra: INodeParameters = {}): INodeParameters =>
	invoiceParameters('submitAndWait', {
		filesToSend: 'all',
		output: 'full',
		options: { pollInterval: 1, ...options },
		...extra,
	});

async function run(
	parameters: INodeParameters,
	items: INodeExecutionData[],
	opts: { binaryMode?: BinaryMode; nodeSettings?: Partial<INode> } = {},
) {
	return await runExtract(parameters, {
		items,
		binaryMode: opts.binaryMode,
		credentials: { apiKey: 'vnd_test_key', baseUrl: emulator.url },
		nodeSettings: opts.nodeSettings ?? {},
	});
}

const INVOICE_EMAIL = () =>
	email(
		[
			['%PDF first invoice', 'invoice-1.pdf'],
			['%PDF second invoice', 'invoice-2.pdf'],
			['Please find attached', 'notes.txt', 'text/plain'],
		],
		{ subject: 'March invoices' },
	);

describe('every attachment of an email item', () => {
	it.each(['default', 'filesystem'] as const)(
		'%s mode: one task and one output item per PDF, paired with the email, its file named; the text file in the hint',
		async (binaryMode) => {
			const result = await run(everyAttachment({ keepInputFields: true }), [INVOICE_EMAIL()], {
				binaryMode,
			});
			expect(result.errorOf('Extract')).toBeUndefined();
			const out = result.outputOf('Extract');
			expect(out).toHaveLength(2);
			expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
			expect(out.map((o) => [o.json.binaryField, o.json.fileName, o.json.subject])).toEqual([
				['attachment_0', 'invoice-1.pdf', 'March invoices'],
				['attachment_1', 'invoice-2.pdf', 'March invoices'],
			]);
			expect(out.map((o) => (o.json.result as IDataObject).file_sha256)).toEqual([
				sha256('%PDF first invoice'),
				sha256('%PDF second invoice'),
			]);
			expect(out[0].json.task_id).not.toBe(out[1].json.task_id);
			expect(await uploads()).toBe(2);
			const hints = result.run.data.resultData.runData.Extract[0].hints ?? [];
			expect(hints.map((h) => h.message)).toEqual([
				expect.stringMatching(
					/^1 file was not sent.*item 0 attachment_2 \("notes\.txt", text\/plain\)/,
				),
			]);
		},
	);

	it('outputs items in input order, per item then per file; a failed document is its own error item under Continue', async () => {
		const items = [
			email([
				['%PDF a', 'a.pdf'],
				['%PDF b EMULATOR_FAIL', 'b.pdf'],
			]),
			email([['%PDF c', 'c.pdf']]),
		];
		const result = await run(everyAttachment(), items, {
			nodeSettings: { onError: 'continueRegularOutput' },
		});
		const out = result.outputOf('Extract');
		expect(out.map((o) => [o.pairedItem, o.json.fileName, o.json.status ?? 'error'])).toEqual([
			[{ item: 0 }, 'a.pdf', 'complete'],
			[{ item: 0 }, 'b.pdf', 'error'],
			[{ item: 1 }, 'c.pdf', 'complete'],
		]);
		expect(out[1].json).toMatchObject({
			error: expect.stringMatching(/^Extraction failed: .*EMULATOR_FAIL/),
			task_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			binaryField: 'attachment_1',
			fileName: 'b.pdf',
		});
		expect(await uploads()).toBe(3);
	});

	it('Max Concurrent Requests bounds uploads and status checks across all files of all items', async () => {
		const items = Array.from({ length: 3 }, (_, i) =>
			email(
				Array.from(
					{ length: 4 },
					(__, f) => [`%PDF ${i}-${f}`, `${i}-${f}.pdf`] as [string, string],
				),
			),
		);
		// every service request takes 150 ms, so that requests overlap and the limit matters
		for (const endpoint of ['process_file', 'task_status'])
			await admin('POST', 'faults', { endpoint, delay_ms: 150, count: 1000 });
		const result = await run(everyAttachment({ maxConcurrency: 2 }), items);
		expect(result.outputOf('Extract')).toHaveLength(12);
		const stats = await admin('GET', 'stats');
		expect((stats.requests as IDataObject).process_file).toBe(12);
		expect(stats.max_in_flight).toBe(2);
	});

	it('Retry On Fail sends no file again: the second try reuses the task of each file', async () => {
		const result = await run(
			everyAttachment(),
			[
				email([
					['%PDF a', 'a.pdf'],
					['%PDF b EMULATOR_FAIL', 'b.pdf'],
				]),
			],
			{ nodeSettings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } },
		);
		expect(result.errorOf('Extract')?.message).toMatch(/EMULATOR_FAIL/);
		expect(await uploads()).toBe(2);
	});

	it('two attachments with the same bytes are two documents (the memory is per file)', async () => {
		const result = await run(everyAttachment(), [
			email([
				['%PDF same', 'copy-1.pdf'],
				['%PDF same', 'copy-2.pdf'],
			]),
		]);
		const out = result.outputOf('Extract');
		expect(out.map((o) => o.json.fileName)).toEqual(['copy-1.pdf', 'copy-2.pdf']);
		expect(new Set(out.map((o) => o.json.task_id)).size).toBe(2);
		expect(await uploads()).toBe(2);
	});
});
