import nock from 'nock';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute as submitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submit.operation';
import {
	acceptEachDocument,
	asOperation,
	BASE_URL,
	binaryItem,
	createContext,
	failureOf,
	type ContextOptions,
	useOfflineNock,
} from '../../../../helpers/context';
import { documentParams } from '../../../../helpers/fixtures';

const submit = asOperation(submitExecute);

const FILE_HOST = 'http://files.example.test';
const URL_INPUT = { inputSource: 'url', documentUrl: `${FILE_HOST}/a/scan` };

/** Submit of `items` to project "Invoices" (by name), with `extra` parameters. */
function send(
	items: INodeExecutionData[],
	extra: IDataObject = {},
	context: Partial<ContextOptions> = {},
) {
	const project = { __rl: true, mode: 'id', value: 'Invoices' };
	const params: IDataObject = documentParams('submit', { project, options: {}, ...extra });
	// a URL input reads no binary field
	if (extra.inputSource === 'url') delete params.binaryPropertyName;
	return submit.call(createContext({ params, items, ...context }));
}

useOfflineNock();

describe('Submit Document', () => {
	it('outputs the input fields with task_id with Keep Input Fields, and only the task without it', async () => {
		nock(BASE_URL).post('/process_file').times(2).reply(200, { task_id: 'b1' });
		const input = { ...binaryItem('ctx'), json: { customer: 'ACME-7', task_id: 'stale' } };
		const [kept] = await send([input], { options: { keepInputFields: true } });
		expect(kept.json).toEqual({
			customer: 'ACME-7',
			task_id: 'b1',
			project: 'Invoices',
			document_type: 'invoice',
		});
		const [plain] = await send([input]);
		expect(plain).toEqual({
			json: { task_id: 'b1', project: 'Invoices', document_type: 'invoice' },
			pairedItem: { item: 0 },
		});
	});

	it('sends max_pages only when set', async () => {
		const bodies: IDataObject[] = [];
		nock(BASE_URL)
			.post('/process_file', (body) => bodies.push(body) > 0)
			.times(2)
			.reply(200, { task_id: 'a' });
		await send([binaryItem('one')], { options: { maxPages: 3 } });
		await send([binaryItem('two')]);
		expect(bodies.map((body) => ('max_pages' in body ? body.max_pages : 'unset'))).toEqual([
			3,
			'unset',
		]);
	});

	it.each([
		[
			'no document type (the field is optional in the editor)',
			[binaryItem('%PDF-1.7')],
			{ documentType: '' },
			'No document type given: choose one in Document Type, for example invoice',
			/Choose the document type/,
		],
		[
			'a fractional Max Pages',
			[binaryItem('x')],
			{ options: { maxPages: 1.5 } },
			'Max Pages must be a whole number',
			/Got 1.5/,
		],
		[
			'a missing binary field, listing those the item has',
			[
				{
					json: {},
					binary: {
						...binaryItem('x', {}, 'attachment_0').binary,
						...binaryItem('y', {}, 'invoiceScan').binary,
					},
				},
			],
			{},
			'No binary field "data" on item 0',
			/"attachment_0", "invoiceScan"/,
		],
		[
			'an item without any binary data',
			[{ json: { a: 1 } }],
			{},
			'No binary field "data" on item 0',
			/no binary data at all/,
		],
		[
			'an empty file',
			[binaryItem(Buffer.alloc(0))],
			{},
			'The file in binary field "data" is empty',
			/Pass a PDF or image file with content/,
		],
		[
			'a Document URL that is not http(s)',
			[{ json: {} }],
			{ ...URL_INPUT, documentUrl: 'ftp://x/y.pdf' },
			'"ftp://x/y.pdf" is not an http(s) URL',
			/full http:\/\/ or https:\/\/ address/,
		],
	])(
		'refuses %s, sending nothing',
		async (_name, items: INodeExecutionData[], extra, message, description) => {
			const scope = nock(BASE_URL).post('/process_file').reply(200, { task_id: 'x' });
			const error = await failureOf(send(items, extra));
			expect(error.message).toBe(message);
			expect(error.description).toMatch(description);
			expect(scope.isDone()).toBe(false);
		},
	);

	it('Listed Binary Fields: each named file is its own document, its file named first, only its own binary kept', async () => {
		acceptEachDocument();
		const binary = Object.assign(
			{},
			...['A', 'B', 'C'].map(
				(content, i) =>
					binaryItem(content, { fileName: `${content}.pdf` }, `attachment_${i}`).binary,
			),
		);
		const out = await send([{ json: { subject: 'March' }, binary }], {
			filesToSend: 'list',
			binaryPropertyNames: 'attachment_2, attachment_0',
			options: { includeInputBinary: true },
		});
		expect(out.map((o) => [Object.keys(o.json), Object.keys(o.binary ?? {})])).toEqual([
			[['binaryField', 'fileName', 'task_id', 'project', 'document_type'], ['attachment_2']],
			[['binaryField', 'fileName', 'task_id', 'project', 'document_type'], ['attachment_0']],
		]);
		expect(out.map((o) => [o.json.fileName, o.json.task_id, o.pairedItem])).toEqual([
			['C.pdf', 'task-C', { item: 0 }],
			['A.pdf', 'task-A', { item: 0 }],
		]);
	});

	it('downloads a Document URL into the binary store, sends it, and outputs it only with Include Downloaded File', async () => {
		const pdf = Buffer.from('%PDF-1.7 scanned');
		nock(FILE_HOST).get('/a/scan').twice().reply(200, pdf, {
			'Content-Type': 'application/pdf',
			'Content-Disposition': 'attachment; filename="march.pdf"',
		});
		const received = acceptEachDocument(2);
		const store = new Map<string, Buffer>();
		const context = { store, binaryMode: 'filesystem' as const };
		const options = { includeDownloadedFile: true };
		const [kept] = await send([{ json: {} }], { ...URL_INPUT, options }, context);
		expect(received).toEqual(['%PDF-1.7 scanned']);
		expect(kept.json.task_id).toBe('task-%PDF-1.7 scanned');
		expect(kept.binary?.data).toMatchObject({ fileName: 'march.pdf', mimeType: 'application/pdf' });
		expect(store.get(kept.binary!.data.id!)).toEqual(pdf);
		const [plain] = await send([{ json: {} }], URL_INPUT, context);
		expect(plain.binary).toBeUndefined();
	});
});
