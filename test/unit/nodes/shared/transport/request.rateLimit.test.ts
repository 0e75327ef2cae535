import nock from 'nock';

import { worded as inWords } from '../../../../../nodes/shared/explain';

import type { IDataObject } from 'n8n-workflow';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../../../helpers/sleep').workflowWithFakeClock(),
);

import { mockClock, useFakeClock } from '../../../helpers/sleep';

import { MESSAGES } from '../../../../../nodes/DocumentExtraction/messages';
import { apiRequest } from '../../../../../nodes/shared/transport/request';
import { parseRetryAfter, throttleBackoffMs } from '../../../../../nodes/shared/transport/pacer';
import { getTask, submitDocument } from '../../../../../nodes/shared/transport/service';
import { BASE_URL, createContext, failureOf, useOfflineNock } from '../../../helpers/context';
import { TASK } from '../../../helpers/fixtures';

const FIELDS = { project: 'Invoices', document_type: 'invoice' };
const ctx = (credentials?: IDataObject) =>
	createContext({ params: {}, ...(credentials ? { credentials } : {}) });

useOfflineNock();

/** The failure of a request, in the words of the document operations. */
const worded = async <E = Error & { description?: string | null; httpCode?: string | null }>(
	promise: Promise<unknown>,
) => inWords(await failureOf<E>(promise), MESSAGES.documentRequest(FIELDS));
useFakeClock();
afterEach(() => expect(nock.pendingMocks()).toEqual([]));

describe('429 Too Many Requests', () => {
	it.each([
		['seconds', () => '3', 3000],
		['an HTTP date', () => new Date(mockClock.now + 5000).toUTCString(), 5000],
	])(
		'sends even an upload again after Retry-After as %s: the service did not take it',
		async (_name, header, wait) => {
			nock(BASE_URL)
				.post('/process_file')
				.reply(429, { detail: 'slow down' }, { 'Retry-After': header() });
			nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
			const body = { file_base64: 'AAAA', ...FIELDS };
			await expect(submitDocument.call(ctx(), body, 0)).resolves.toBe(TASK);
			expect(mockClock.sleeps).toEqual([wait]);
			// at most a minute; any other text is no Retry-After
			expect(parseRetryAfter('100000')).toBe(60_000);
			expect(parseRetryAfter('soon')).toBeUndefined();
		},
	);

	it('without Retry-After backs off exponentially, with jitter', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).times(3).reply(429, {});
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, { status: 'complete' });
		await getTask.call(ctx(), TASK, 0);
		// each wait is between half and all of 1, 2, 4 s
		expect(mockClock.sleeps.map((ms, n) => ms >= 500 * 2 ** n && ms <= 1000 * 2 ** n)).toEqual([
			true,
			true,
			true,
		]);
		expect(throttleBackoffMs(10, 1)).toBe(30_000);
		expect(throttleBackoffMs(1, 0)).toBe(500);
	});

	it.each(['0', '-1', 'Thu, 01 Jan 1970 00:00:00 GMT'])(
		'takes Retry-After %p as a floor under the back-off, never as a burst',
		async (header) => {
			nock(BASE_URL).get(`/task_status/${TASK}`).times(3).reply(429, {}, { 'Retry-After': header });
			nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, { status: 'complete' });
			await getTask.call(ctx(), TASK, 0);
			expect(mockClock.sleeps.map((ms, n) => ms >= 500 * 2 ** n)).toEqual([true, true, true]);
		},
	);

	it('does not count 429s against the attempts for server errors', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).times(6).reply(429, {}, { 'Retry-After': '1' });
		nock(BASE_URL).get(`/task_status/${TASK}`).times(3).reply(500, { detail: 'down' });
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, { status: 'complete' });
		await expect(getTask.call(ctx(), TASK, 0)).resolves.toMatchObject({ status: 'complete' });
	});

	it('gives up when the time for rate limits runs out, saying so, with the count of 429s', async () => {
		const answer = { detail: 'Rate limit exceeded' };
		nock(BASE_URL).post('/process_file').times(40).reply(429, answer, { 'Retry-After': '30' });
		const error = await worded(
			submitDocument.call(ctx(), { file_base64: 'AAAA', ...FIELDS }, 2, 4),
		);
		nock.cleanAll();
		expect(error.message).toMatch(
			/^The Document Extraction Service kept rate-limiting the requests \(429 Too Many Requests, 10 times in 270 s\); the document was not sent\. Lower Max Concurrent Requests/,
		);
		expect(error.description).toMatch(/Max Concurrent Requests/);
		expect((error as Error & { context?: { itemIndex?: number } }).context?.itemIndex).toBe(2);
		// the service's own text of its last 429, as any error's detail
		expect(error).toMatchObject({ kind: 'rate_limited', status: 429, detail: answer.detail });
	});

	it('never waits past the deadline it is given', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(429, {}, { 'Retry-After': '30' });
		const second = nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, {});
		const error = await worded(
			apiRequest.call(ctx(), {
				method: 'GET',
				path: `/task_status/${TASK}`,
				deadline: mockClock.now + 10_000,
			}),
		);
		expect(second.isDone()).toBe(false);
		nock.cleanAll();
		expect(mockClock.sleeps).toEqual([]);
		expect(error.message).toMatch(/kept rate-limiting the requests \(429 Too Many Requests, once/);
		expect(error.description).toMatch(/Max Wait for Submit and Wait\) ran out/);
	});

	it('slows down every request of the credential after a 429, and no other credential', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).times(3).reply(200, { status: 'complete' });
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(429, {}, { 'Retry-After': '2' });
		nock(BASE_URL).get(`/task_status/${TASK}`).times(2).reply(200, { status: 'complete' });
		for (let i = 0; i < 3; i++) await getTask.call(ctx(), TASK, 0);
		expect(mockClock.sleeps).toEqual([]);
		await getTask.call(ctx(), TASK, 0);
		expect(mockClock.sleeps).toEqual([2000]);
		mockClock.sleeps.length = 0;
		// The next request waits for the pace the 429 set (80 % of 3 accepted a second)...
		await getTask.call(ctx(), TASK, 0);
		expect(mockClock.sleeps).toHaveLength(1);
		expect(mockClock.sleeps[0]).toBeGreaterThan(300);
		mockClock.sleeps.length = 0;
		// ... and a request with another key does not.
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, { status: 'complete' });
		await getTask.call(ctx({ apiKey: 'vnd_other_key', baseUrl: BASE_URL }), TASK, 0);
		expect(mockClock.sleeps).toEqual([]);
	});
});
