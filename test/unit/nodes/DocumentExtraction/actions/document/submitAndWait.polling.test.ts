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

const params = (options: IDataObject = {}, operation = 'submitAndWait') =>
	documentParams(operation, { output: 'full', options: { pollInterval: 2, ...options } });

const netError = (message: string, code?: string) =>
	Object.assign(new Error(message), code ? { code } : {});

useOfflineNock();
useFakeClock();
afterEach(() => {
	expect(nock.pendingMocks()).toEqual([]);
});

describe('Submit and Wait polls through passing failures', () => {
	it('keeps polling through 5xx and network errors for longer than the retries of one request', async () => {
		nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
		// 12 failed status requests: three rounds of four attempts, over 20 s of sleeps.
		nock(BASE_URL).get(`/task_status/${TASK}`).times(8).reply(503, { detail: 'busy' });
		nock(BASE_URL)
			.get(`/task_status/${TASK}`)
			.times(4)
			.replyWithError(netError('read ECONNRESET', 'ECONNRESET'));
		nock(BASE_URL)
			.get(`/task_status/${TASK}`)
			.reply(200, task('complete', { result: { a: 1 } }));
		const items = [binaryItem('pdf')];
		const out = await submitAndWait.call(createContext({ params: params(), items }), items);
		expect(out[0].json).toMatchObject({ task_id: TASK, status: 'complete', result: { a: 1 } });
		expect(mockClock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThan(7000);
	});

	it('ends at Max Wait with the task_id, timedOut and the last error when polls keep failing', async () => {
		nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
		nock(BASE_URL).get(`/task_status/${TASK}`).times(100).reply(500, { detail: 'down' });
		const items = [binaryItem('pdf')];
		const out = await submitAndWait.call(
			createContext({ params: params({ maxWait: 60 }), items }),
			items,
		);
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
		nock(BASE_URL).post('/process_file').times(2).reply(200, { task_id: TASK });
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, task('processing'));
		nock(BASE_URL).get(`/task_status/${TASK}`).times(2).reply(401, { detail: 'Key revoked' });
		const items = [binaryItem('pdf')];
		const error = await failureOf(
			submitAndWait.call(createContext({ params: params(), items }), items),
		);
		expect(error.message).toMatch(/rejected the API key \(401\)/);
		expect(error.description).toContain(`This item's task: ${TASK}`);
		const ctx = createContext({ params: params(), items, continueOnFail: true });
		const out = await submitAndWait.call(ctx, items);
		expect(out[0].json).toMatchObject({ task_id: TASK, error: expect.stringMatching(/401/) });
	});
});
