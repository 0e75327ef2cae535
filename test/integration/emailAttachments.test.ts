/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';

import type { IBinaryKeyData, IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import {
	binaryItem,
	chainWorkflow,
	disposeHarness,
	loadPackageTypes,
	runWorkflow,
	START_AND_FILES,
	type BinaryMode,
} from '../../harness/engine';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createEmulator } = require('../../emulator/server.js');

/**
 * Email items through n8n-core's engine, the compiled package loaded as n8n loads it, against the
 * emulator: what the engine adds to the node (binary modes, pairing, Continue On Fail, hints, Retry
 * On Fail keeping the node context between tries). The request limit is the run's own: unit tests.
 */

const ROOT = path.resolve(__dirname, '../..');
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

let emulator: { url: string; close(): Promise<void> };
let types: ReturnType<typeof loadPackageTypes>;

beforeAll(async () => {
	if (!existsSync(path.join(ROOT, 'dist/nodes/DocumentExtraction/DocumentExtraction.node.js'))) {
		throw new Error('dist/ is missing: run "npm run build" before the integration tests');
	}
	types = loadPackageTypes(ROOT);
	emulator = await createEmulator({ port: 0, processingMs: 400 });
});
afterAll(async () => {
	await emulator.close();
	disposeHarness();
});

const admin = async (what: string, method = 'GET') =>
	(await (await fetch(`${emulator.url}/_emulator/${what}`, { method })).json()) as IDataObject;
const uploads = async () => ((await admin('stats')).requests as IDataObject).process_file;

beforeEach(() => admin('reset', 'POST'));

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

/**
 * Manual trigger → Files (stores the items' binary in the binary mode) → Extract: Submit and Wait
 * of every attachment as invoices of the Invoices project, full output, with `options`.
 */
async function run(
	items: INodeExecutionData[],
	opts: { options?: IDataObject; binaryMode?: BinaryMode; nodeSettings?: Partial<INode> } = {},
) {
	const parameters = {
		resource: 'document',
		operation: 'submitAndWait',
		project: { __rl: true, mode: 'id', value: 'Invoices' },
		documentType: 'invoice',
		filesToSend: 'all',
		output: 'full',
		options: { pollInterval: 1, ...opts.options },
	};
	const type = 'n8n-nodes-document-extraction.documentExtraction';
	return await runWorkflow({
		workflow: chainWorkflow([
			...START_AND_FILES,
			{ name: 'Extract', type, parameters, ...opts.nodeSettings },
		]),
		types,
		credentials: { documentExtractionApi: { apiKey: 'vnd_test_key', baseUrl: emulator.url } },
		binaryMode: opts.binaryMode ?? 'default',
		inputItems: items,
	});
}

describe('every attachment of an email item', () => {
	it.each(['default', 'filesystem'] as const)(
		'%s mode: one task and one output item per PDF (the same bytes twice: two) with its own file, in input order, paired with its email; a failed one an error item under Continue; the text file in the hint',
		async (binaryMode) => {
			const items = [
				email(
					[
						['%PDF first invoice', 'invoice-1.pdf'],
						['%PDF second invoice EMULATOR_FAIL', 'invoice-2.pdf'],
						['Please find attached', 'notes.txt', 'text/plain'],
					],
					{ subject: 'March invoices' },
				),
				// the same bytes twice: two documents (the memory is per file)
				email(
					[
						['%PDF third invoice', 'invoice-3.pdf'],
						['%PDF third invoice', 'copy.pdf'],
					],
					{ subject: 'April' },
				),
			];
			const result = await run(items, {
				options: { keepInputFields: true, includeInputBinary: true },
				binaryMode,
				nodeSettings: { onError: 'continueRegularOutput' },
			});
			const out = result.outputOf('Extract');
			expect(
				out.map((o) => [o.pairedItem, o.json.binaryField, o.json.fileName, o.json.subject]),
			).toEqual([
				[{ item: 0 }, 'attachment_0', 'invoice-1.pdf', 'March invoices'],
				[{ item: 0 }, 'attachment_1', 'invoice-2.pdf', undefined],
				[{ item: 1 }, 'attachment_0', 'invoice-3.pdf', 'April'],
				[{ item: 1 }, 'attachment_1', 'copy.pdf', 'April'],
			]);
			expect(out.map((o) => (o.json.result as IDataObject | undefined)?.file_sha256)).toEqual([
				sha256('%PDF first invoice'),
				undefined,
				sha256('%PDF third invoice'),
				sha256('%PDF third invoice'),
			]);
			expect(out[1].json).toMatchObject({
				error: expect.stringMatching(/^Extraction failed: .*EMULATOR_FAIL/),
				task_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			});
			expect(new Set(out.map((o) => o.json.task_id)).size).toBe(4);
			expect(await uploads()).toBe(4);
			// the file kept is the one n8n stored, in its binary mode
			if (binaryMode === 'filesystem')
				expect(out[2].binary?.attachment_0.id).toMatch(/^filesystem/);
			const bytes = await result.binaryOf('Extract', 2, 'attachment_0');
			expect(bytes.toString()).toBe('%PDF third invoice');
			const hints = result.run.data.resultData.runData.Extract[0].hints ?? [];
			expect(hints.map((h) => h.message)).toEqual([
				expect.stringMatching(/^1 item failed and is output as an error item/),
				expect.stringMatching(
					/^1 file was not sent.*item 0 attachment_2 \("notes\.txt", text\/plain\)/,
				),
			]);
		},
	);

	it('Retry On Fail sends no file again: the second try reuses the task of each file', async () => {
		const result = await run(
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
});
