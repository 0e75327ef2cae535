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

useOfflineNock();

/** The node context as n8n stores it with the execution and hands it to a retry. */
const stored = (context: IDataObject) => JSON.parse(JSON.stringify(context)) as IDataObject;

const FAIL = 'UNREADABLE';

/**
 * A service that gives each upload its own task, finishes it at once, and fails documents
 * containing FAIL; `uploadFaults` answers the first uploads with these statuses instead (after
 * creating the task for a 502, as a gateway that lost the answer).
 */
function service(uploadFaults: number[] = []) {
	const failed = new Set<string>();
	const svc = { created: [] as string[], uploads: 0 };
	nock(BASE_URL)
		.persist()
		.post('/process_file')
		.reply((_uri, body) => {
			svc.uploads++;
			const file = Buffer.from(String((body as IDataObject).file_base64), 'base64').toString();
			const fault = uploadFaults.shift();
			if (fault === undefined || fault === 502) {
				const id = `00000000-0000-4000-8000-${String(svc.created.length + 1).padStart(12, '0')}`;
				svc.created.push(id);
				if (file.includes(FAIL)) failed.add(id);
				if (fault === undefined) return [200, { task_id: id }];
			}
			return [fault!, { detail: 'Injected fault' }];
		})
		.get(/\/task_status\/.+/)
		.reply((uri) => {
			const id = uri.split('/').pop() as string;
			return [
				200,
				failed.has(id)
					? { task_id: id, status: 'failed', result: null, error: 'Extraction failed: unreadable' }
					: { task_id: id, status: 'complete', result: { invoice_number: id.slice(-4) } },
			];
		});
	return svc;
}

const documents = () =>
	['invoice one', `invoice two ${FAIL}`, 'invoice three', 'invoice four'].map((text) =>
		binaryItem(text),
	);

/** The node context of the execution the tests run in (Retry On Fail runs again in it). */
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
	const context = { executionId: 'execution-1', nodeContext: execution, ...options };
	return operation.call(createContext({ ...context, params, items }));
}

/** A retry from the Executions list: a new execution from a JSON copy of the stored context. */
const retry = (executionId: string, context = execution) => ({
	executionId,
	mode: 'retry',
	nodeContext: stored(context),
});

describe('Retry On Fail: the same items again in the same execution', () => {
	it('Submit and Wait creates one task per document over three tries; the failed task is read again and its error stays', async () => {
		const svc = service();
		const items = documents();
		const errors = [];
		for (let i = 0; i < 3; i++) errors.push(await failureOf(run(submitAndWait, items)));
		expect([svc.created.length, svc.uploads]).toEqual([4, 4]);
		for (const error of errors) expect(error.message).toBe('Extraction failed: unreadable');
		// the last try names the tasks of the other items, as the first did
		for (const id of [svc.created[0], svc.created[2], svc.created[3]])
			expect(errors[2].description).toContain(id);
	});

	it('a document stored in the binary store is known by its binary id', async () => {
		const svc = service();
		const store = new Map<string, Buffer>();
		const items = [storedItem(store, 'fs:1', 'one'), storedItem(store, 'fs:2', 'two')];
		const first = await run(submit, items, { store });
		const second = await run(submit, items, { store });
		expect(svc.created).toHaveLength(2);
		expect(second.map((item) => item.json.task_id)).toEqual(first.map((item) => item.json.task_id));
	});

	it('a document whose upload may have arrived (502) is not sent again', async () => {
		const svc = service([502]);
		const items = [binaryItem('only one')];
		const first = await failureOf(run(submit, items));
		expect(first.message).toMatch(/gateway .* answered 502; it may have received the document/i);
		const second = await failureOf(run(submit, items));
		expect(second.message).toMatch(/^Not sent again: an earlier try .* may have delivered/);
		expect(second.message).toContain('502');
		expect(second.description).toMatch(/Retry On Fail does not send a document again/);
		expect([svc.created.length, svc.uploads]).toEqual([1, 1]);
	});

	it('a document the service refused (4xx) is sent again', async () => {
		const svc = service([422]);
		const items = [binaryItem('fixed later')];
		await failureOf(run(submit, items));
		const out = await run(submit, items);
		expect(svc.uploads).toBe(2);
		expect(out[0].json.task_id).toBe(svc.created[0]);
	});

	it('another document, document type (also in a retry from the list) in the same item is sent', async () => {
		const svc = service();
		await run(submit, [binaryItem('first version')]);
		await run(submit, [binaryItem('second version')]);
		await run(submit, [binaryItem('second version')], { params: { documentType: 'receipt' } });
		await run(submit, [binaryItem('second version')], {
			...retry('execution-2'),
			params: { documentType: 'passport' },
		});
		expect(svc.created).toHaveLength(4);
	});

	it('a URL input is known by its URL', async () => {
		const svc = service();
		nock('http://files.example.test')
			.persist()
			.get(/\/files\/.+/)
			.reply((uri) => [200, `file ${uri}`, { 'content-type': 'application/pdf' }]);
		const items = ['a', 'b'].map((name) => ({
			json: { url: `http://files.example.test/files/${name}.pdf` },
		}));
		const params = documentParams('submit', {
			inputSource: 'url',
			options: { allowPrivateAddresses: true },
		}) as IDataObject;
		const context = () =>
			createContext({
				executionId: 'execution-1',
				nodeContext: execution,
				items,
				binaryMode: 'filesystem',
				params: (name: string, i: number) =>
					name === 'documentUrl' ? items[i].json.url : params[name],
			});
		await submit.call(context());
		await submit.call(context());
		expect(svc.created).toHaveLength(2);
	});
});

describe('Later executions', () => {
	it('a new execution (a new trigger event, a manual run) sends the document again', async () => {
		const svc = service();
		const items = [binaryItem('same file')];
		await run(submit, items);
		await run(submit, items, { executionId: 'execution-2', nodeContext: {} });
		expect(svc.created).toHaveLength(2);
	});

	it('a retry from the Executions list, and a retry of it, reuse the tasks kept with the failed execution', async () => {
		const svc = service();
		const items = documents();
		await failureOf(run(submitAndWait, items));
		const retried = retry('execution-2');
		const error = await failureOf(run(submitAndWait, items, retried));
		expect(error.message).toBe('Extraction failed: unreadable');
		await failureOf(run(submitAndWait, items, retry('execution-3', retried.nodeContext)));
		expect([svc.created.length, svc.uploads]).toEqual([4, 4]);
	});

	it('a retry from the list sends a document that may have arrived: the user was told to check first', async () => {
		const svc = service([502]);
		const items = [binaryItem('only one')];
		await failureOf(run(submit, items));
		const out = await run(submit, items, retry('execution-2'));
		expect(svc.uploads).toBe(2);
		expect(out[0].json.task_id).toBe(svc.created[1]);
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
		const context = () =>
			Object.assign(createContext({ params: documentParams('submit'), items }), {
				getContext: undefined,
			});
		await submit.call(context());
		await submit.call(context());
		expect(svc.created).toHaveLength(2);
	});
});

describe('a stop: n8n keeps the custom data of a stopped execution, not the node context', () => {
	it('each accepted task_id is in the custom data at once: the first 6, then how many more', async () => {
		service();
		const items = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => binaryItem(`invoice ${n}`));
		const custom: IDataObject = {};
		const params = documentParams('submit', { options: {} });
		const context = createContext({ executionId: 'e', nodeContext: execution, params, items });
		const set = (key: string, value: string) => (custom[key] = value);
		// as n8n 1.x and 2.x give it to a node: $execution.customData of its data proxy
		const getWorkflowDataProxy = () => ({ $execution: { customData: { set } } });
		const out = await submit.call(Object.assign(context, { getWorkflowDataProxy }));
		const ids = out.map((item) => item.json.task_id);
		expect(custom).toEqual({ documentExtractionTasks: `${ids.slice(0, 6).join(' ')} +2 more` });
		expect(String(custom.documentExtractionTasks).length).toBeLessThanOrEqual(255);
	});
});
