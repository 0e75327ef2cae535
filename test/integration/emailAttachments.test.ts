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
	files: Array<[content: Buffer | string, fileName: string, mimeType?: string]>,
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

/**
 * Email items as n8n's Gmail trigger and Outlook trigger build them (read in their code, n8n 1.123.81
 * and 2.41.1): Gmail parses the raw email with mailparser and stores every attachment it finds,
 * inline (cid) parts included, with its filename (none for a part without a name) and content type;
 * Outlook downloads every attachment of a message with hasAttachments (inline ones included, as
 * Graph lists them: an Outlook signature is image001.png), none for a message whose only parts are
 * inline. Each through prepareBinaryData (the Files node), so n8n keeps its size in `bytes`.
 */
describe('the everyday inbox: Skip Images Smaller Than 20 KB, Items Without a Document: Skip', () => {
	const bytes = (size: number, head: string) =>
		Buffer.concat([Buffer.from(head), Buffer.alloc(size - head.length, 7)]);
	const pdf = (size: number, text: string) => bytes(size, `%PDF-1.4 ${text}`);
	const image = (size: number) => bytes(size, 'JFIF');
	const inbox = (): INodeExecutionData[] => [
		// Gmail: an invoice with the sender's signature logo (cid:image001.png)
		email([
			[pdf(31_000, 'INV-1'), 'INV-1.pdf'],
			[image(7_100), 'image001.png', 'image/png'],
		]),
		// Gmail: a newsletter, its inline images: a banner, two social icons and a nameless tracking pixel
		email([
			[image(14_000), 'banner.jpg', 'image/jpeg'],
			[image(1_200), 'linkedin.png', 'image/png'],
			[image(1_100), 'x.png', 'image/png'],
			[image(43), '', 'image/gif'],
		]),
		// Gmail: a photographed receipt
		email([[image(310_000), 'IMG_2041.jpg', 'image/jpeg']]),
		// Gmail: a calendar invite (mailparser gives its text/calendar part as an attachment)
		email([
			['BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nEND:VCALENDAR\r\n', 'invite.ics', 'text/calendar'],
		]),
		// any trigger: a reply without an attachment, and an email with only notes.txt
		{ json: { subject: 'Thanks, received' } },
		email([['Please pay by Friday', 'notes.txt', 'text/plain']]),
		// Outlook: an invoice and the signature logo Graph lists as an inline attachment
		email([
			[pdf(52_000, 'INV-2'), 'INV-2.pdf'],
			[image(6_900), 'image001.png', 'image/png'],
		]),
	];
	const options = { minImageSize: 20, withoutDocument: 'skip' };

	it.each(['default', 'filesystem'] as const)(
		'%s mode: one task per real document (the two invoices and the receipt), none for the rest; the execution succeeds and its hints name every file and item not sent',
		async (binaryMode) => {
			const result = await run(inbox(), {
				options: { ...options, keepInputFields: true },
				binaryMode,
			});
			expect(result.run.data.resultData.error).toBeUndefined();
			const out = result.outputOf('Extract');
			expect(out.map((o) => [o.pairedItem, o.json.fileName, o.json.status])).toEqual([
				[{ item: 0 }, 'INV-1.pdf', 'complete'],
				[{ item: 2 }, 'IMG_2041.jpg', 'complete'],
				[{ item: 6 }, 'INV-2.pdf', 'complete'],
			]);
			expect(await uploads()).toBe(3);
			const hints = result.run.data.resultData.runData.Extract[0].hints ?? [];
			expect(hints.map((h) => h.message)).toEqual([
				'2 files were not sent, File Types not counting them as a document: item 3 attachment_0 ("invite.ics", text/calendar), item 5 attachment_0 ("notes.txt", text/plain). Add their types to File Types to send them',
				'6 images were not sent, below Skip Images Smaller Than (an email\'s logos and icons): item 0 attachment_1 ("image001.png", image/png, 7 KB), item 1 attachment_0 ("banner.jpg", image/jpeg, 13.7 KB), item 1 attachment_1 ("linkedin.png", image/png, 1.2 KB), item 1 attachment_2 ("x.png", image/png, 1.1 KB), item 1 attachment_3 (image/gif, 0.1 KB), item 6 attachment_1 ("image001.png", image/png, 6.8 KB). Lower the option to send them',
				'4 items held no document and gave no output (Items Without a Document: Skip): item 1, item 3, item 4, item 5',
			]);
		},
	);

	it.each(['continueRegularOutput', 'continueErrorOutput'] as const)(
		'under On Error → %s a failed document is an error item paired with its email, on the error output where there is one; the skipped emails give none',
		async (onError) => {
			const items = [
				{ json: {} },
				email([[pdf(2_000, 'EMULATOR_FAIL'), 'broken.pdf']]),
				email([['Please pay by Friday', 'notes.txt', 'text/plain']]),
				email([[pdf(2_000, 'INV-3'), 'INV-3.pdf']]),
			];
			const result = await run(items, { options, nodeSettings: { onError } });
			// on the error output (n8n takes only an item whose one field is `error`), error is an object
			const summary = ({ pairedItem, json }: INodeExecutionData) => {
				const { fileName, kind, status } = (
					typeof json.error === 'object' ? json.error : json
				) as IDataObject;
				return [pairedItem, fileName, kind ?? status];
			};
			const failed = [{ item: 1 }, 'broken.pdf', 'task_failed'];
			const sent = [{ item: 3 }, 'INV-3.pdf', 'complete'];
			const outputs = [result.outputOf('Extract', 0), result.outputOf('Extract', 1)];
			expect(outputs.map((items) => items.map(summary))).toEqual(
				onError === 'continueRegularOutput' ? [[failed, sent], []] : [[sent], [failed]],
			);
			const error = outputs.flat().find((o) => o.json.error)?.json.error as IDataObject | string;
			expect(typeof error === 'string' ? error : error.message).toMatch(/EMULATOR_FAIL/);
			const hints = result.run.data.resultData.runData.Extract[0].hints ?? [];
			expect(hints.map((h) => h.message)).toEqual([
				expect.stringMatching(/^1 item failed and is output as an error item/),
				expect.stringMatching(/^1 file was not sent.*item 2 attachment_0 \("notes\.txt"/),
				expect.stringMatching(/^2 items held no document .*: item 0, item 2$/),
			]);
		},
	);

	it('an execution whose every email holds no document succeeds, with no output and no request', async () => {
		const result = await run(inbox().slice(3, 6), { options });
		expect(result.run.data.resultData.error).toBeUndefined();
		expect(result.outputOf('Extract')).toEqual([]);
		expect(await uploads()).toBe(0);
	});
});
