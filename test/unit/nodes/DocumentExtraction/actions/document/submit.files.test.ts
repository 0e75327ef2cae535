import nock from 'nock';

import type { IBinaryKeyData, IDataObject, INodeExecutionData } from 'n8n-workflow';

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

/** Submit with Files to Send: several files of one item, each its own document. */

const project = { __rl: true, mode: 'id', value: 'Invoices' };
const params = (extra: IDataObject = {}) =>
	documentParams('submit', { project, options: {}, ...extra });

/** An email item: attachment_<n> per file (name, content, type). */
function email(
	files: Array<[string, string, string?]>,
	json: IDataObject = {},
): INodeExecutionData {
	const binary: IBinaryKeyData = {};
	files.forEach(([fileName, content, mimeType = 'application/pdf'], i) => {
		Object.assign(binary, binaryItem(content, { fileName, mimeType }, `attachment_${i}`).binary);
	});
	return { json, binary };
}

useOfflineNock();

describe('Submit, Files to Send', () => {
	it('All Binary Fields: one task and one output item per PDF, its file first, the email fields kept', async () => {
		const received = acceptEachDocument();
		const items = [
			email(
				[
					['a.pdf', 'A'],
					['notes.txt', 'N', 'text/plain'],
					['b.pdf', 'B'],
				],
				{ subject: 'March' },
			),
		];
		const out = await submit.call(
			createContext({
				params: params({ filesToSend: 'all', options: { keepInputFields: true } }),
				items,
			}),
			items,
		);
		expect(out.map((o) => o.json)).toEqual([
			{
				binaryField: 'attachment_0',
				fileName: 'a.pdf',
				subject: 'March',
				task_id: 'task-A',
				project: 'Invoices',
				document_type: 'invoice',
			},
			{
				binaryField: 'attachment_2',
				fileName: 'b.pdf',
				subject: 'March',
				task_id: 'task-B',
				project: 'Invoices',
				document_type: 'invoice',
			},
		]);
		expect(Object.keys(out[0].json).slice(0, 2)).toEqual(['binaryField', 'fileName']);
		expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
		expect(received.sort()).toEqual(['A', 'B']);
	});

	it('Listed Binary Fields with Include Input Binary: each item carries only its own file', async () => {
		acceptEachDocument();
		const items = [
			email([
				['a.pdf', 'A'],
				['b.pdf', 'B'],
				['c.pdf', 'C'],
			]),
		];
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
		expect(out.map((o) => [o.json.task_id, Object.keys(o.binary ?? {})])).toEqual([
			['task-C', ['attachment_2']],
			['task-A', ['attachment_0']],
		]);
	});

	it('without Continue, a refused file fails the node naming it, and no file is sent after it', async () => {
		nock(BASE_URL).post('/process_file').reply(422, { detail: 'Unreadable file' });
		const sibling = nock(BASE_URL).post('/process_file').reply(200, { task_id: 'task-B' });
		const items = [
			email([
				['a.pdf', 'A'],
				['b.pdf', 'B'],
			]),
		];
		const error = await failureOf(
			submit.call(
				createContext({
					params: params({ filesToSend: 'all', options: { maxConcurrency: 1 } }),
					items,
				}),
				items,
			),
		);
		expect(error.message).toMatch(/\("a\.pdf" in attachment_0\)$/);
		expect(sibling.isDone()).toBe(false);
	});

	it('under Continue, a refused file is its own error item beside its sibling', async () => {
		nock(BASE_URL)
			.post('/process_file', (b) => Buffer.from(b.file_base64, 'base64').toString() === 'A')
			.reply(422, { detail: 'Unreadable file' });
		nock(BASE_URL).post('/process_file').reply(200, { task_id: 'task-B' });
		const items = [
			email([
				['a.pdf', 'A'],
				['b.pdf', 'B'],
			]),
		];
		const out = await submit.call(
			createContext({ params: params({ filesToSend: 'all' }), items, continueOnFail: true }),
			items,
		);
		expect(
			out.map((o) => [o.pairedItem, o.json.fileName, o.json.task_id ?? o.json.httpCode]),
		).toEqual([
			[{ item: 0 }, 'a.pdf', 422],
			[{ item: 0 }, 'b.pdf', 'task-B'],
		]);
		expect(out[0].json.error).toMatch(/Unreadable file/);
	});

	it('Retry On Fail reuses the task of each file, two files with the same bytes included', async () => {
		const items = [
			email([
				['copy-1.pdf', 'SAME'],
				['copy-2.pdf', 'SAME'],
				['other.pdf', 'OTHER'],
			]),
		];
		// the node's context of the execution, which each try of the node gets again
		const nodeContext = {};
		const context = () =>
			createContext({
				params: params({ filesToSend: 'all', options: { maxConcurrency: 1 } }),
				items,
				executionId: 'execution-files',
				nodeContext,
			});
		let n = 0;
		nock(BASE_URL)
			.post('/process_file', (b) => Buffer.from(b.file_base64, 'base64').toString() === 'SAME')
			.times(2)
			.reply(() => [200, { task_id: `task-${++n}` }]);
		nock(BASE_URL).post('/process_file').reply(422, { detail: 'Try again' });
		await failureOf(submit.call(context(), items));
		// the second try (Retry On Fail: the same execution) sends only the refused file
		nock(BASE_URL).post('/process_file').reply(200, { task_id: 'task-3' });
		const out = await submit.call(context(), items);
		expect(out.map((o) => [o.json.fileName, o.json.task_id])).toEqual([
			['copy-1.pdf', 'task-1'],
			['copy-2.pdf', 'task-2'],
			['other.pdf', 'task-3'],
		]);
		expect(nock.pendingMocks()).toEqual([]);
	});

	it('Input Binary Field stays the default: the field "data", no file fields in the output', async () => {
		acceptEachDocument();
		const items = [binaryItem('D')];
		const out = await submit.call(createContext({ params: params(), items }), items);
		expect(out.map((o) => o.json)).toEqual([
			{ task_id: 'task-D', project: 'Invoices', document_type: 'invoice' },
		]);
	});
});
