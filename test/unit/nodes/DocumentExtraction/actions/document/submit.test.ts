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
	useOfflineNock,
} from '../../../../helpers/context';
import { documentParams } from '../../../../helpers/fixtures';

const submit = asOperation(submitExecute);

const project = { __rl: true, mode: 'id', value: 'Invoices' };
const params = (extra: IDataObject = {}) =>
	documentParams('submit', { project, options: {}, ...extra });

useOfflineNock();

describe('Submit Document', () => {
	it('outputs the input fields with task_id with Keep Input Fields, and only the task without it', async () => {
		nock(BASE_URL).post('/process_file').times(2).reply(200, { task_id: 'b1' });
		const input = binaryItem('ctx');
		input.json = { customer: 'ACME-7', file_name: 'march.pdf', task_id: 'stale' };
		const kept = await submit.call(
			createContext({ params: params({ options: { keepInputFields: true } }), items: [input] }),
			[input],
		);
		expect(kept[0].json).toEqual({
			customer: 'ACME-7',
			file_name: 'march.pdf',
			task_id: 'b1',
			project: 'Invoices',
			document_type: 'invoice',
		});
		const plain = await submit.call(createContext({ params: params(), items: [input] }), [input]);
		expect(plain[0].json).toEqual({ task_id: 'b1', project: 'Invoices', document_type: 'invoice' });
	});

	it('sends max_pages only when set, and passes the binary on only when asked', async () => {
		const bodies: Array<Record<string, unknown>> = [];
		nock(BASE_URL)
			.post('/process_file', (body) => bodies.push(body) > 0)
			.times(2)
			.reply(200, { task_id: 'a' });
		const items = [binaryItem('one'), binaryItem('two')];
		const out = await submit.call(
			createContext({
				params: (name, i) =>
					params({ options: i === 0 ? { maxPages: 3, includeInputBinary: true } : {} })[
						name as keyof ReturnType<typeof params>
					],
				items,
			}),
			items,
		);
		const byContent = Object.fromEntries(
			bodies.map((b) => [Buffer.from(String(b.file_base64), 'base64').toString(), b]),
		);
		expect(byContent.one.max_pages).toBe(3);
		expect('max_pages' in byContent.two).toBe(false);
		expect(out[0].binary?.data.fileName).toBe('invoice.pdf');
		expect(out[1].binary).toBeUndefined();
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
	])(
		'refuses %s, sending nothing',
		async (_name, items: INodeExecutionData[], extra, message, description) => {
			const scope = nock(BASE_URL).post('/process_file').reply(200, { task_id: 'x' });
			const error = await failureOf(
				submit.call(createContext({ params: params(extra), items }), items),
			);
			expect(error.message).toBe(message);
			expect(error.description).toMatch(description);
			expect(scope.isDone()).toBe(false);
		},
	);
});

describe('Submit, Listed Binary Fields', () => {
	it('sends each named file as its own document: its file named first, and only its own binary kept', async () => {
		acceptEachDocument();
		const binary = Object.assign(
			{},
			...['A', 'B', 'C'].map(
				(content, i) =>
					binaryItem(content, { fileName: `${content}.pdf` }, `attachment_${i}`).binary,
			),
		);
		const items = [{ json: { subject: 'March' }, binary }];
		const out = await submit.call(
			createContext({
				params: params({
					filesToSend: 'list',
					binaryPropertyNames: 'attachment_2, attachment_0',
					options: { includeInputBinary: true },
				}),
				items,
			}),
			items,
		);
		expect(out.map((o) => [Object.keys(o.json), Object.keys(o.binary ?? {})])).toEqual([
			[['binaryField', 'fileName', 'task_id', 'project', 'document_type'], ['attachment_2']],
			[['binaryField', 'fileName', 'task_id', 'project', 'document_type'], ['attachment_0']],
		]);
		expect(out.map((o) => [o.json.fileName, o.json.task_id, o.pairedItem])).toEqual([
			['C.pdf', 'task-C', { item: 0 }],
			['A.pdf', 'task-A', { item: 0 }],
		]);
	});
});

describe('Submit Document from a URL', () => {
	const FILE_HOST = 'http://files.example.test';
	const urlParams = (extra: Record<string, unknown> = {}): Record<string, unknown> => {
		const all: Record<string, unknown> = params({
			inputSource: 'url',
			documentUrl: `${FILE_HOST}/a/scan`,
			...extra,
		});
		delete all.binaryPropertyName;
		return all;
	};

	it('downloads the file into the binary store, sends it, and outputs it with Include Downloaded File', async () => {
		const pdf = Buffer.from('%PDF-1.7 scanned');
		nock(FILE_HOST).get('/a/scan').reply(200, pdf, {
			'Content-Type': 'application/pdf',
			'Content-Disposition': 'attachment; filename="march.pdf"',
		});
		const received = acceptEachDocument(1);
		const store = new Map<string, Buffer>();
		const items: INodeExecutionData[] = [{ json: {} }];
		const ctx = createContext({
			params: urlParams({ options: { includeDownloadedFile: true } }),
			items,
			store,
			binaryMode: 'filesystem',
		});
		const out = await submit.call(ctx, items);
		expect(received).toEqual(['%PDF-1.7 scanned']);
		expect(out[0].json.task_id).toBe('task-%PDF-1.7 scanned');
		expect(out[0].binary?.data).toMatchObject({
			fileName: 'march.pdf',
			mimeType: 'application/pdf',
		});
		expect(store.get(out[0].binary!.data.id!)).toEqual(pdf);
	});

	it('outputs no binary unless asked, and refuses a bad URL before any request', async () => {
		nock(FILE_HOST).get('/a/scan').reply(200, 'PDF', { 'Content-Type': 'application/pdf' });
		nock(BASE_URL).post('/process_file').reply(200, { task_id: 't-1' });
		const items: INodeExecutionData[] = [{ json: {} }, { json: {} }];
		const ctx = createContext({
			params: (name, i) =>
				(i === 1 ? urlParams({ documentUrl: 'ftp://x/y.pdf' }) : urlParams())[name],
			items,
			continueOnFail: true,
		});
		const out = await submit.call(ctx, items);
		expect(out[0].json.task_id).toBe('t-1');
		expect(out[0].binary).toBeUndefined();
		expect(out[1].json.error).toBe('"ftp://x/y.pdf" is not an http(s) URL');
		expect(nock.pendingMocks()).toEqual([]);
	});
});
