import nock from 'nock';

import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

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
	return submitAndWait.call(createContext({ params, items, continueOnFail }));
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

const taskId = (n: number) => `0b8f2f9e-4a8c-4d1e-9f3a-${String(n).padStart(12, '0')}`;

/**
 * Submit and Wait over `count` documents, 2 request slots: each task is queued at its first
 * status request and complete at the second, so every item waits for a slot and for two polls.
 */
async function runMany(count: number, signal: AbortSignal) {
	const items = Array.from({ length: count }, (_, i) => binaryItem(`pdf ${i}`));
	const ctx = createContext({
		params: documentParams('submitAndWait', {
			output: 'full',
			options: { pollInterval: 1, maxConcurrency: 2 },
		}),
		items,
		signal,
	});
	const reads = { getCredentials: 0, authenticatedRequests: 0, requests: 0 };
	const polls = new Map<string, number>();
	let uploads = 0;
	const read = ctx.getCredentials.bind(ctx);
	const counted = ctx as unknown as IDataObject & { helpers: IDataObject };
	counted.getCredentials = async (...args: Parameters<IExecuteFunctions['getCredentials']>) => {
		reads.getCredentials++;
		return await read(...args);
	};
	const answer = async (request: IHttpRequestOptions) => {
		reads.requests++;
		const url = String(request.url);
		if (request.method === 'POST' && url.endsWith('/process_file')) {
			return { statusCode: 200, headers: {}, body: { task_id: taskId(uploads++) } };
		}
		const id = url.slice(url.lastIndexOf('/') + 1);
		const seen = (polls.get(id) ?? 0) + 1;
		polls.set(id, seen);
		const status = seen === 1 ? 'queued' : 'complete';
		return { statusCode: 200, headers: {}, body: task(status, { task_id: id }) };
	};
	counted.helpers.httpRequest = answer;
	// n8n's authenticated helper reads and decrypts the credential for every request it sends.
	counted.helpers.httpRequestWithAuthentication = async (
		_type: string,
		request: IHttpRequestOptions,
	) => {
		reads.authenticatedRequests++;
		return await answer(request);
	};
	const out = await submitAndWait.call(ctx);
	return { out, reads };
}

/** An execution cancel signal that counts the abort listeners added to it, and the most at once. */
function countingSignal() {
	const signal = new AbortController().signal;
	const counts = { added: 0, most: 0 };
	const add = signal.addEventListener.bind(signal);
	const remove = signal.removeEventListener.bind(signal);
	const listeners = new Set<unknown>();
	signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
		if (args[0] === 'abort') {
			counts.added++;
			listeners.add(args[1]);
			counts.most = Math.max(counts.most, listeners.size);
		}
		add(...args);
	}) as AbortSignal['addEventListener'];
	signal.removeEventListener = ((...args: Parameters<AbortSignal['removeEventListener']>) => {
		if (args[0] === 'abort') listeners.delete(args[1]);
		remove(...args);
	}) as AbortSignal['removeEventListener'];
	return { signal, counts };
}

describe('Submit and Wait: costs per run, not per request', () => {
	it('reads the credential once, and adds a bounded number of listeners to the cancel signal, however many items wait', async () => {
		const small = countingSignal();
		await runMany(5, small.signal);
		const large = countingSignal();
		const { out, reads } = await runMany(40, large.signal);
		expect(out.map((item) => (item.json as IDataObject).status)).toEqual(
			Array(40).fill('complete'),
		);
		// 40 uploads and 80 status requests, 120 waits for 2 request slots and for polls
		expect(reads).toEqual({ getCredentials: 1, authenticatedRequests: 0, requests: 120 });
		expect(large.counts.added).toBe(small.counts.added);
		expect(large.counts.most).toBeLessThanOrEqual(2);
	});
});
