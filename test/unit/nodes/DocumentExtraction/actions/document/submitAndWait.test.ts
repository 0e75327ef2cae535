import nock from 'nock';

import type { IDataObject } from 'n8n-workflow';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../../../../helpers/sleep').workflowWithFakeClock(),
);

import { mockClock, useFakeClock } from '../../../../helpers/sleep';

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

/** Submit and Wait on one document, with these options and Output, on a clock the sleeps move. */
function run(options: IDataObject = {}, output = 'full', continueOnFail = false) {
	const params = documentParams('submitAndWait', {
		output,
		options: { pollInterval: 2, ...options },
	});
	const items = [binaryItem('pdf')];
	return submitAndWait.call(createContext({ params, items, continueOnFail }), items);
}

/** The service accepts the document as TASK, then answers each status request with the next reply. */
function serviceReports(...replies: Array<[number, IDataObject]>) {
	nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
	for (const [status, body] of replies)
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(status, body);
}

const netError = (message: string, code?: string) =>
	Object.assign(new Error(message), code ? { code } : {});

useOfflineNock();
useFakeClock();
afterEach(() => {
	expect(nock.pendingMocks()).toEqual([]);
});

describe('Submit and Wait', () => {
	it('keeps polling through status names it does not know, then outputs the result', async () => {
		serviceReports(
			[200, task('queued')],
			[200, task('ocr_in_progress')],
			[200, task('complete', { result: { invoice_number: 'INV-1', total: 12.5 } })],
		);
		const out = await run({}, 'result');
		expect(out).toEqual([
			{ json: { invoice_number: 'INV-1', total: 12.5 }, pairedItem: { item: 0 } },
		]);
	});

	it.each([
		['Unreadable scan on page 1', 'Extraction failed: Unreadable scan on page 1'],
		// not repeated when the service's text already starts with it
		[
			'Extraction failed: the document could not be read',
			'Extraction failed: the document could not be read',
		],
	])('fails the item with the text of a failed task: %p', async (serviceError, message) => {
		serviceReports([200, task('failed', { error: serviceError })]);
		const error = await failureOf(run());
		expect(error.message).toBe(message);
		expect(error.description).toContain(TASK);
	});

	it('makes a failed task an error item with its task_id under Continue On Fail', async () => {
		serviceReports([200, task('failed', { error: 'Unreadable scan' })]);
		const out = await run({}, 'full', true);
		expect(out).toEqual([
			{
				json: { error: 'Extraction failed: Unreadable scan', kind: 'task_failed', task_id: TASK },
				pairedItem: { item: 0 },
			},
		]);
	});

	it('outputs a failed task as a normal item when "Output Failed Tasks as Items" is on', async () => {
		serviceReports([200, task('failed', { error: 'Unreadable scan' })]);
		const out = await run({ outputFailedAsItems: true }, 'result');
		expect(out[0].json).toMatchObject({
			task_id: TASK,
			status: 'failed',
			error: 'Unreadable scan',
		});
	});

	it('hands back the task_id, last status and timedOut when Max Wait runs out', async () => {
		nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
		nock(BASE_URL).get(`/task_status/${TASK}`).times(100).reply(200, task('processing'));
		const out = await run({ maxWait: 10 });
		nock.cleanAll();
		expect(out[0].json).toMatchObject({
			task_id: TASK,
			status: 'processing',
			timedOut: true,
			statusChecked: true,
			waitedSeconds: 10,
		});
		expect(String(out[0].json.message)).toMatch(
			/^The task was still running after 10 s\. .*Get Status/,
		);
	});

	it('keeps polling through 5xx and network errors for longer than the retries of one request', async () => {
		// 12 failed status requests: three rounds of four attempts, over 20 s of sleeps.
		serviceReports(
			...Array.from({ length: 8 }, (): [number, IDataObject] => [503, { detail: 'busy' }]),
		);
		nock(BASE_URL)
			.get(`/task_status/${TASK}`)
			.times(4)
			.replyWithError(netError('read ECONNRESET', 'ECONNRESET'));
		nock(BASE_URL)
			.get(`/task_status/${TASK}`)
			.reply(200, task('complete', { result: { a: 1 } }));
		const out = await run();
		expect(out[0].json).toMatchObject({ task_id: TASK, status: 'complete', result: { a: 1 } });
		expect(mockClock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThan(7000);
	});

	it('ends at Max Wait with the task_id, timedOut and the last error when polls keep failing', async () => {
		nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
		nock(BASE_URL).get(`/task_status/${TASK}`).times(100).reply(500, { detail: 'down' });
		const out = await run({ maxWait: 60 });
		nock.cleanAll();
		// never an invented status: the task's checks were never answered, and it says so
		expect(out[0].json).toMatchObject({
			task_id: TASK,
			status: null,
			timedOut: true,
			statusChecked: false,
			waitedSeconds: 60,
			lastPollError: expect.stringContaining('server error (500)'),
		});
		expect(String(out[0].json.message)).toMatch(/^No status check was answered within Max Wait/);
	});

	it('a 4xx ends the wait; the error names the task, and so does the error item under Continue', async () => {
		serviceReports([200, task('processing')], [401, { detail: 'Key revoked' }]);
		const error = await failureOf(run());
		expect(error.message).toMatch(/rejected the API key \(401\)/);
		expect(error.description).toContain(`This item's task: ${TASK}`);
		serviceReports([401, { detail: 'Key revoked' }]);
		const out = await run({}, 'full', true);
		expect(out[0].json).toMatchObject({ task_id: TASK, error: expect.stringMatching(/401/) });
	});
});
