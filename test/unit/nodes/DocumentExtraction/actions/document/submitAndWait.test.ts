import nock from 'nock';

import type { IDataObject } from 'n8n-workflow';

import { execute as submitAndWaitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submitAndWait.operation';
import {
	asOperation,
	BASE_URL,
	binaryItem,
	createContext,
	failureOf,
	useOfflineNock,
} from '../../../../helpers/context';
import { documentParams, TASK, task } from '../../../../helpers/fixtures';

const submitAndWait = asOperation(submitAndWaitExecute);

const params = (options: IDataObject = {}, output = 'full') =>
	documentParams('submitAndWait', { output, options: { pollInterval: 1, ...options } });

/** The service accepts one document as TASK, then answers each status request with the next task. */
function serviceReports(...tasks: IDataObject[]) {
	nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
	for (const reply of tasks) nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, reply);
}

useOfflineNock();

describe('Submit and Wait', () => {
	it('keeps polling through status names it does not know, then outputs the result', async () => {
		serviceReports(
			task('queued'),
			task('ocr_in_progress'),
			task('complete', { result: { invoice_number: 'INV-1', total: 12.5 } }),
		);
		const items = [binaryItem('pdf')];
		const out = await submitAndWait.call(
			createContext({ params: params({}, 'result'), items }),
			items,
		);
		expect(out).toHaveLength(1);
		expect(out[0].json).toEqual({ invoice_number: 'INV-1', total: 12.5 });
		expect(out[0].pairedItem).toEqual({ item: 0 });
		// the output opens on the extracted fields: the input file is passed on only when asked
		expect(out[0].binary).toBeUndefined();
		expect(nock.isDone()).toBe(true);
	});

	it.each([
		[
			'fails the item with the service error text when the task fails',
			'Unreadable scan on page 1',
			'Extraction failed: Unreadable scan on page 1',
		],
		[
			'does not repeat "Extraction failed" when the service text already starts with it',
			'Extraction failed: the document could not be read',
			'Extraction failed: the document could not be read',
		],
	])('%s', async (_name, serviceError, message) => {
		serviceReports(task('failed', { error: serviceError }));
		const items = [binaryItem('pdf')];
		const error = await failureOf(
			submitAndWait.call(createContext({ params: params(), items }), items),
		);
		expect(error.message).toBe(message);
		expect(error.description).toContain(TASK);
	});

	it('makes a failed task an error item with its task_id under continueOnFail', async () => {
		serviceReports(task('failed', { error: 'Unreadable scan' }));
		const items = [binaryItem('pdf')];
		const out = await submitAndWait.call(
			createContext({ params: params(), items, continueOnFail: true }),
			items,
		);
		expect(out[0].json).toEqual({
			error: 'Extraction failed: Unreadable scan',
			kind: 'task_failed',
			task_id: TASK,
		});
		expect(out[0].pairedItem).toEqual({ item: 0 });
	});

	it('outputs a failed task as a normal item when "Output Failed Tasks as Items" is on', async () => {
		serviceReports(task('failed', { error: 'Unreadable scan' }));
		const items = [binaryItem('pdf')];
		const out = await submitAndWait.call(
			createContext({ params: params({ outputFailedAsItems: true }, 'result'), items }),
			items,
		);
		expect(out[0].json).toMatchObject({
			task_id: TASK,
			status: 'failed',
			error: 'Unreadable scan',
		});
	});

	it('hands back the task_id, last status and timedOut when Max Wait runs out', async () => {
		nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
		nock(BASE_URL).get(`/task_status/${TASK}`).times(5).reply(200, task('processing'));
		const items = [binaryItem('pdf')];
		const started = Date.now();
		const out = await submitAndWait.call(
			createContext({ params: params({ maxWait: 2 }), items }),
			items,
		);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
		expect(out[0].json).toMatchObject({ task_id: TASK, status: 'processing', timedOut: true });
		expect(String(out[0].json.message)).toMatch(/Get Status/);
	});
});
