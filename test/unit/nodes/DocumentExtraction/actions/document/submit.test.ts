import { createHash } from 'node:crypto';

import nock from 'nock';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute as submitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submit.operation';
import {
	asOperation,
	BASE_URL,
	binaryItem,
	createContext,
	failureOf,
	storedItem,
	useOfflineNock,
} from '../../../../helpers/context';
import { documentParams } from '../../../../helpers/fixtures';

const submit = asOperation(submitExecute);

const project = { __rl: true, mode: 'id', value: 'Invoices' };
const params = (extra: IDataObject = {}) =>
	documentParams('submit', { project, options: {}, ...extra });

useOfflineNock();

describe('Submit Document', () => {
	it('posts the file as base64 with project and document type and returns the task', async () => {
		const pdf = Buffer.from('%PDF-1.7 invoice 42');
		let received: Record<string, unknown> = {};
		nock(BASE_URL, { reqheaders: { 'content-type': 'application/json' } })
			.post('/process_file', (body) => {
				received = body;
				return true;
			})
			.reply(200, { task_id: '0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01' });
		const items = [binaryItem(pdf)];
		const out = await submit.call(createContext({ params: params(), items }), items);
		expect(received).toEqual({
			project: 'Invoices',
			document_type: 'invoice',
			file_base64: pdf.toString('base64'),
		});
		expect(out).toHaveLength(1);
		expect(out[0].json).toEqual({
			task_id: '0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01',
			project: 'Invoices',
			document_type: 'invoice',
		});
		expect(out[0].pairedItem).toEqual({ item: 0 });
		expect(out[0].binary).toBeUndefined();
	});

	it('fails with the item, sending nothing, when no document type is chosen (the field is optional in the editor)', async () => {
		const items = [binaryItem(Buffer.from('%PDF-1.7'))];
		const error = await failureOf(
			submit.call(createContext({ params: params({ documentType: '' }), items }), items),
		);
		expect(error.message).toBe(
			'No document type given: choose one in Document Type, for example invoice',
		);
		expect(error.description).toMatch(/Choose the document type/);
		expect(nock.pendingMocks()).toEqual([]);
	});

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

	it('refuses a fractional Max Pages before sending', async () => {
		const items = [binaryItem('x')];
		const error = await failureOf(
			submit.call(createContext({ params: params({ options: { maxPages: 1.5 } }), items }), items),
		);
		expect(error.message).toMatch(/Max Pages must be a whole number/);
	});

	it('streams a file stored outside memory (filesystem mode) intact', async () => {
		const store = new Map<string, Buffer>();
		// not a multiple of the 3-byte base64 group, and spanning several stream chunks
		const bytes = Buffer.alloc(3 * 64 * 1024 * 2 + 7);
		for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + 7) % 256;
		const items = [storedItem(store, 'fs-1', bytes)];
		let digest = '';
		nock(BASE_URL)
			.post('/process_file', (body) => {
				digest = createHash('sha256').update(Buffer.from(body.file_base64, 'base64')).digest('hex');
				return body.project === 'Invoices' && body.document_type === 'invoice';
			})
			.reply(200, { task_id: 'fs-task' });
		const out = await submit.call(createContext({ params: params(), items, store }), items);
		expect(out[0].json.task_id).toBe('fs-task');
		expect(digest).toBe(createHash('sha256').update(bytes).digest('hex'));
	});

	it('names the missing binary field and lists the ones the item has', async () => {
		const items: INodeExecutionData[] = [binaryItem('x', {}, 'attachment_0')];
		items[0].binary!.invoiceScan = items[0].binary!.attachment_0;
		const error = await failureOf(submit.call(createContext({ params: params(), items }), items));
		expect(error.message).toBe('No binary field "data" on item 0');
		expect(error.description).toContain('"attachment_0", "invoiceScan"');
	});

	it('explains an item without any binary data', async () => {
		const items: INodeExecutionData[] = [{ json: { a: 1 } }];
		const error = await failureOf(submit.call(createContext({ params: params(), items }), items));
		expect(error.description).toMatch(/no binary data at all/);
	});

	it('refuses an empty file without sending it', async () => {
		const scope = nock(BASE_URL).post('/process_file').reply(200, { task_id: 'x' });
		const items = [binaryItem(Buffer.alloc(0))];
		const error = await failureOf(submit.call(createContext({ params: params(), items }), items));
		expect(error.message).toBe('The file in binary field "data" is empty');
		expect(scope.isDone()).toBe(false);
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

	it('downloads the file (redirect followed) and streams it to the service from the binary store', async () => {
		const pdf = Buffer.alloc(300 * 1024, 7);
		pdf.write('%PDF-1.7');
		let received: Record<string, unknown> = {};
		nock(FILE_HOST)
			.get('/a/scan')
			.reply(302, '', { Location: '/b/scan' })
			.get('/b/scan')
			.reply(200, pdf, {
				'Content-Type': 'application/pdf',
				'Content-Disposition': 'attachment; filename="march.pdf"',
			});
		nock(BASE_URL)
			.post('/process_file', (body) => {
				received = body;
				return true;
			})
			.reply(200, { task_id: '0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01' });
		const store = new Map<string, Buffer>();
		const items: INodeExecutionData[] = [{ json: {} }];
		const ctx = createContext({
			params: urlParams({ options: { includeDownloadedFile: true } }),
			items,
			store,
			binaryMode: 'filesystem',
		});
		const out = await submit.call(ctx, items);
		expect(
			createHash('sha256')
				.update(Buffer.from(received.file_base64 as string, 'base64'))
				.digest('hex'),
		).toBe(createHash('sha256').update(pdf).digest('hex'));
		expect(out[0].json.task_id).toBe('0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01');
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

	it('a 404 fails the item without sending anything to the service', async () => {
		nock(FILE_HOST).get('/a/scan').reply(404);
		const scope = nock(BASE_URL).post('/process_file').reply(200, { task_id: 't' });
		const items: INodeExecutionData[] = [{ json: {} }];
		const error = await failureOf(
			submit.call(createContext({ params: urlParams(), items }), items),
		);
		expect(error.message).toContain('the host answered 404');
		expect(scope.isDone()).toBe(false);
		nock.cleanAll();
	});
});
