import nock from 'nock';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute as submitAndWaitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submitAndWait.operation';
import { execute as submitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submit.operation';
import {
	asOperation,
	BASE_URL,
	binaryItem,
	createContext,
	failureOf,
	storedItem,
	type ContextOptions,
	useOfflineNock,
} from '../../../../helpers/context';
import { documentParams } from '../../../../helpers/fixtures';

const submitAndWait = asOperation(submitAndWaitExecute);
const submit = asOperation(submitExecute);

/**
 * Running Submit / Submit and Wait again with the same items: in the same execution, as n8n's
 * Retry On Fail does (the same node context), and as a retry from the Executions list does (a
 * new execution that starts from the stored data, the node context included: a JSON copy, as
 * after a restart or on another worker). A document the service accepted is not sent again.
 */

useOfflineNock();

/** The node context as n8n stores it with the execution and hands it to a retry. */
const stored = (context: IDataObject) => JSON.parse(JSON.stringify(context)) as IDataObject;

const FAIL = 'UNREADABLE';

/**
 * A service that gives each distinct document its own task (by the body's file_base64 or, for a
 * URL, whatever the body holds), finishes it at once, and fails documents containing FAIL.
 * `uploadFaults` answers the first uploads with these statuses instead (after creating the task
 * for a 502/504, as a gateway that lost the answer).
 */
function service(uploadFaults: number[] = []) {
	const tasks = new Map<string, { id: string; failed: boolean }>();
	const created: string[] = [];
	let uploads = 0;
	nock(BASE_URL)
		.persist()
		.post('/process_file')
		.reply((_uri, body) => {
			uploads++;
			const file = Buffer.from(String((body as IDataObject).file_base64), 'base64').toString();
			const fault = uploadFaults.shift();
			const makeTask = () => {
				const id = `00000000-0000-4000-8000-${String(created.length + 1).padStart(12, '0')}`;
				created.push(id);
				tasks.set(id, { id, failed: file.includes(FAIL) });
				return id;
			};
			if (fault !== undefined) {
				if (fault === 502 || fault === 504) makeTask();
				return [fault, { detail: 'Injected fault' }];
			}
			return [200, { task_id: makeTask() }];
		})
		.get(/\/task_status\/.+/)
		.reply((uri) => {
			const id = decodeURIComponent(uri.split('/').pop() as string);
			const task = tasks.get(id);
			if (!task) return [404, { detail: `Task '${id}' not found` }];
			return [
				200,
				task.failed
					? { task_id: id, status: 'failed', result: null, error: 'Extraction failed: unreadable' }
					: { task_id: id, status: 'complete', result: { invoice_number: id.slice(-4) } },
			];
		});
	return {
		created,
		get uploads() {
			return uploads;
		},
	};
}

const documents = () => [
	binaryItem('invoice one'),
	binaryItem(`invoice two ${FAIL}`),
	binaryItem('invoice three'),
	binaryItem('invoice four'),
];

/** The node context of the execution the tests run in, unless a test passes another. */
let execution: IDataObject;
beforeEach(() => {
	execution = {};
});

function run(
	operation: typeof submit,
	items: INodeExecutionData[],
	options: Partial<ContextOptions> & { params?: IDataObject } = {},
) {
	const params = documentParams(operation === submit ? 'submit' : 'submitAndWait', {
		output: 'full',
		options: { pollInterval: 1 },
		...(options.params ?? {}),
	});
	return operation.call(
		createContext({
			executionId: 'execution-1',
			nodeContext: execution,
			...options,
			params,
			items,
		}),
		items,
	);
}

describe('Retry On Fail: the same items again in the same execution', () => {
	it('Submit and Wait creates one task per document over three tries; the failed task is read again and its error stays', async () => {
		const svc = service();
		const items = documents();
		const errors = [];
		for (let i = 0; i < 3; i++) errors.push(await failureOf(run(submitAndWait, items)));
		expect(svc.created).toHaveLength(4);
		expect(svc.uploads).toBe(4);
		for (const error of errors) expect(error.message).toBe('Extraction failed: unreadable');
		// the last try names the tasks of the other items, as the first did
		for (const id of [svc.created[0], svc.created[2], svc.created[3]])
			expect(errors[2].description).toContain(id);
	});

	it('a document stored in the binary store is known by its binary id', async () => {
		const svc = service();
		const store = new Map<string, Buffer>();
		const items = [
			storedItem(store, 'fs:1', 'stored one'),
			storedItem(store, 'fs:2', 'stored two'),
		];
		const first = await run(submit, items, { store });
		const second = await run(submit, items, { store });
		expect(svc.created).toHaveLength(2);
		expect(second.map((item) => item.json.task_id)).toEqual(first.map((item) => item.json.task_id));
	});

	it('a document whose upload may have arrived (502) is not sent again; the others are reused', async () => {
		const svc = service([502]);
		const items = [binaryItem('only one')];
		const first = await failureOf(run(submit, items));
		expect(first.message).toMatch(/gateway .* answered 502; it may have received the document/i);
		const second = await failureOf(run(submit, items));
		expect(second.message).toMatch(/^Not sent again: an earlier try .* may have delivered/);
		expect(second.message).toContain('502');
		expect(svc.uploads).toBe(1);
		expect(svc.created).toHaveLength(1);
	});

	it('a document the service refused (4xx) is sent again', async () => {
		const svc = service([422]);
		const items = [binaryItem('fixed later')];
		await failureOf(run(submit, items));
		const out = await run(submit, items);
		expect(svc.uploads).toBe(2);
		expect(out[0].json.task_id).toBe(svc.created[0]);
	});

	it('another document, project or document type in the same item is sent', async () => {
		const svc = service();
		await run(submit, [binaryItem('first version')]);
		await run(submit, [binaryItem('second version')]);
		await run(submit, [binaryItem('second version')], { params: { documentType: 'receipt' } });
		expect(svc.created).toHaveLength(3);
	});

	it('a URL input is known by its URL', async () => {
		const svc = service();
		nock('http://files.example.test')
			.persist()
			.get(/\/files\/.+/)
			.reply((uri) => [200, `file ${uri}`, { 'content-type': 'application/pdf' }]);
		const items = [
			{ json: { url: 'http://files.example.test/files/a.pdf' } },
			{ json: { url: 'http://files.example.test/files/b.pdf' } },
		];
		const params = {
			inputSource: 'url',
			documentUrl: 'URL',
			options: { allowPrivateAddresses: true },
		};
		const context = (executionId: string) =>
			createContext({
				executionId,
				nodeContext: execution,
				items,
				store: new Map<string, Buffer>(),
				binaryMode: 'filesystem',
				params: (name: string, itemIndex: number) =>
					name === 'documentUrl'
						? items[itemIndex].json.url
						: (documentParams('submit', params) as IDataObject)[name],
			});
		await submit.call(context('execution-1'), items);
		await submit.call(context('execution-1'), items);
		expect(svc.created).toHaveLength(2);
	});
});

describe('Later executions', () => {
	it('a new execution (a new trigger event, a manual run) sends the document again', async () => {
		const svc = service();
		const items = [binaryItem('same file')];
		await run(submit, items, { executionId: 'execution-1' });
		await run(submit, items, { executionId: 'execution-2', nodeContext: {} });
		expect(svc.created).toHaveLength(2);
	});

	it('a retry from the Executions list reuses the tasks kept with the failed execution, in any process', async () => {
		const svc = service();
		const items = documents();
		await failureOf(run(submitAndWait, items, { executionId: 'execution-1' }));
		expect(svc.created).toHaveLength(4);
		const retried = stored(execution);
		const error = await failureOf(
			run(submitAndWait, items, {
				executionId: 'execution-2',
				mode: 'retry',
				nodeContext: retried,
			}),
		);
		expect(svc.created).toHaveLength(4);
		expect(svc.uploads).toBe(4);
		expect(error.message).toBe('Extraction failed: unreadable');
		// and a retry of the retry
		await failureOf(
			run(submitAndWait, items, {
				executionId: 'execution-3',
				mode: 'retry',
				nodeContext: stored(retried),
			}),
		);
		expect(svc.created).toHaveLength(4);
	});

	it('a retry from the list sends a document that may have arrived: the user was told to check first', async () => {
		const svc = service([502]);
		const items = [binaryItem('only one')];
		await failureOf(run(submit, items));
		const out = await run(submit, items, {
			executionId: 'execution-2',
			mode: 'retry',
			nodeContext: stored(execution),
		});
		expect(svc.uploads).toBe(2);
		expect(out[0].json.task_id).toBe(svc.created[1]);
	});

	it('a retry with the currently saved workflow sends what it changed (another document type)', async () => {
		const svc = service();
		const items = [binaryItem('first')];
		await run(submit, items);
		await run(submit, items, {
			executionId: 'execution-2',
			mode: 'retry',
			nodeContext: stored(execution),
			params: { documentType: 'receipt' },
		});
		expect(svc.created).toHaveLength(2);
	});

	it('keeps one short entry per accepted document: its fingerprint and task_id', async () => {
		const svc = service();
		await run(submit, documents());
		const entries = execution.documentExtractionSent as IDataObject;
		expect(Object.keys(entries)).toEqual(['0', '1', '2', '3']);
		expect(entries[0]).toBe(`${String(entries[0]).slice(0, 16)} ${svc.created[0]}`);
		expect(JSON.stringify(entries).length).toBeLessThan(4 * 64);
	});

	it('without a node context nothing is remembered', async () => {
		const svc = service();
		const items = [binaryItem('no context')];
		const params = documentParams('submit', {});
		const context = () =>
			Object.assign(createContext({ executionId: 'x', params, items }), { getContext: undefined });
		await submit.call(context(), items);
		await submit.call(context(), items);
		expect(svc.created).toHaveLength(2);
	});
});
