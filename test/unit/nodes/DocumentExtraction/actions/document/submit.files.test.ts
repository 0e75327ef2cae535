import type { IBinaryKeyData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute as submitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submit.operation';
import {
	acceptEachDocument,
	asOperation,
	binaryItem,
	createContext,
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

	it('Input Binary Field stays the default: the field "data", no file fields in the output', async () => {
		acceptEachDocument();
		const items = [binaryItem('D')];
		const out = await submit.call(createContext({ params: params(), items }), items);
		expect(out.map((o) => o.json)).toEqual([
			{ task_id: 'task-D', project: 'Invoices', document_type: 'invoice' },
		]);
	});
});
