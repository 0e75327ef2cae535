import nock from 'nock';

import type { INodeExecutionData } from 'n8n-workflow';

import { execute as submitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submit.operation';
import { execute as submitAndWaitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submitAndWait.operation';
import {
	acceptEachDocument,
	asOperation,
	BASE_URL,
	binaryItem,
	createContext,
	failureOf,
	useOfflineNock,
} from '../../../../helpers/context';
import { documentParams, TASK, task } from '../../../../helpers/fixtures';

const submit = asOperation(submitExecute);
const submitAndWait = asOperation(submitAndWaitExecute);

useOfflineNock();
afterEach(() => expect(nock.pendingMocks()).toEqual([]));

const FILE_HOST = 'http://files.example.test';
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2048, 1)]);
const taskId = (n: number) => `0b8f2f9e-4a8c-4d1e-9f3a-${String(n).padStart(12, '0')}`;
const waitParams = (options: object) =>
	documentParams('submitAndWait', { output: 'full', options: { pollInterval: 1, ...options } });

describe('fail-fast without Continue On Fail', () => {
	it('submits nothing after the first failure and names the task already sent', async () => {
		const sent = acceptEachDocument();
		const items = Array.from({ length: 10 }, (_, index) =>
			index === 1 ? { json: {} } : binaryItem(`doc-${index}`),
		);
		const params = documentParams('submit', { options: { maxConcurrency: 1 } });
		const error = await failureOf(submit.call(createContext({ params, items })));
		nock.cleanAll();
		expect(error.message).toBe('No binary field "data" on item 1');
		expect((error as unknown as { context: object }).context).toMatchObject({
			itemIndex: 1,
			kind: 'invalid_input',
		});
		expect(sent).toEqual(['doc-0']);
		expect(error.description).toContain('item 0: task-doc-0');
		expect(error.description).toContain('8 items were not submitted');
	});

	it('lets the items already sent finish before failing, with Submit and Wait', async () => {
		nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, task('complete'));
		const items = [binaryItem('doc-0'), { json: {} }, binaryItem('doc-2')];
		const params = waitParams({ maxConcurrency: 1 });
		const error = await failureOf(submitAndWait.call(createContext({ params, items })));
		expect(error.message).toBe('No binary field "data" on item 1');
		expect(error.description).toContain(`item 0: ${TASK}`);
		expect(error.description).toContain('1 item was not submitted');
	});
});

describe('one limit for every request, downloads included', () => {
	it('with 12 URL items and a limit of 2, a download and its upload share a slot: never more than 2 under way', async () => {
		const n = 12;
		let underWay = 0;
		let most = 0;
		nock(FILE_HOST)
			.get(/\/doc-\d+\.pdf/)
			.times(n)
			.delay(50)
			.reply(() => {
				most = Math.max(most, ++underWay);
				return [200, PDF, { 'Content-Type': 'application/pdf' }];
			});
		let next = 0;
		nock(BASE_URL)
			.post('/process_file')
			.times(n)
			.delay(30)
			.reply(() => {
				underWay--;
				return [200, { task_id: taskId(next++) }];
			});
		const items: INodeExecutionData[] = Array.from({ length: n }, () => ({ json: {} }));
		const params = {
			...documentParams('submit', { options: { maxConcurrency: 2 } }),
			inputSource: 'url',
		};
		const ctx = createContext({
			params: (name, i) =>
				name === 'documentUrl' ? `${FILE_HOST}/doc-${i}.pdf` : params[name as keyof typeof params],
			items,
		});
		const out = await submit.call(ctx);
		expect(out.every((o) => typeof o.json.task_id === 'string')).toBe(true);
		expect(out).toHaveLength(n);
		expect(most).toBe(2);
	});

	it('an item whose Max Wait runs out while it waits for a request slot is not sent, and says why', async () => {
		// one slot, uploads of 400 ms, Max Wait 1 s: the third item cannot start in its time
		let next = 0;
		nock(BASE_URL)
			.post('/process_file')
			.times(2)
			.delay(400)
			.reply(200, () => ({ task_id: taskId(next++) }));
		// whether the first items get a status check in their time depends on the clock
		nock(BASE_URL)
			.get(/\/task_status\//)
			.optionally()
			.times(2)
			.reply(200, (uri) => ({ ...task('complete'), task_id: uri.split('/').pop() }));
		const items = Array.from({ length: 3 }, (_, i) => binaryItem(`doc ${i}`));
		const params = waitParams({ maxConcurrency: 1, maxWait: 1 });
		const ctx = createContext({ params, items, continueOnFail: true });
		const out = await submitAndWait.call(ctx);
		expect(out[2].json).toMatchObject({ kind: 'out_of_time' });
		expect('task_id' in out[2].json).toBe(false);
		expect(out[2].json.error).toMatch(/all 1 request slots stayed busy/);
	});
});
