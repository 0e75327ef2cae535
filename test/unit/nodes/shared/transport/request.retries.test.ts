/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { inspect } from 'node:util';
import { Readable } from 'node:stream';

import nock from 'nock';

import { explain } from '../../../../../nodes/shared/explain';
import { MESSAGES } from '../../../../../nodes/DocumentExtraction/messages';
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../../../helpers/sleep').workflowWithFakeSleep(),
);

import { sleeps } from '../../../helpers/sleep';

import { failureKind } from '../../../../../nodes/shared/transport/errors';
import { networkErrorCode } from '../../../../../nodes/shared/transport/network';
import { apiRequest } from '../../../../../nodes/shared/transport/request';
import { getTask, submitDocument } from '../../../../../nodes/shared/transport/service';
import {
	API_KEY,
	BASE_URL,
	createContext,
	failureOf,
	httpClientError,
	useOfflineNock,
} from '../../../helpers/context';
import { TASK } from '../../../helpers/fixtures';

const FIELDS = { project: 'Invoices', document_type: 'invoice' };
useOfflineNock();

/** The failure of a request, in the words of the document operations. */
const worded = async <E = Error & { description?: string | null; httpCode?: string | null }>(
	promise: Promise<unknown>,
) => explain(await failureOf<E>(promise), MESSAGES.documentRequest(FIELDS));
beforeEach(() => {
	sleeps.length = 0;
});
afterEach(() => expect(nock.pendingMocks()).toEqual([]));

/** A network error as Node's HTTP stack raises it, with its code when it has one. */
const netError = (message: string, code?: string) =>
	Object.assign(new Error(message), code ? { code } : {});

/** A context whose requests are recorded (with the options the transport set). */
function recordingContext(options: Parameters<typeof createContext>[0] = { params: {} }) {
	const ctx = createContext(options);
	const sent: IHttpRequestOptions[] = [];
	const send = ctx.helpers.httpRequest;
	ctx.helpers.httpRequest = async function (this: IExecuteFunctions, request: IHttpRequestOptions) {
		sent.push(request);
		return await send.call(this, request);
	} as typeof send;
	return { ctx, sent };
}

/**
 * A context whose HTTP client records each request and answers it with `answer` (which throws to
 * make the attempt fail); `attempt` counts from 1.
 */
function answeringContext(
	answer: (request: IHttpRequestOptions, attempt: number) => unknown,
	options?: Parameters<typeof createContext>[0],
) {
	const { ctx, sent } = recordingContext(options);
	ctx.helpers.httpRequest = (async (request: IHttpRequestOptions) => {
		sent.push(request);
		return await answer(request, sent.length);
	}) as typeof ctx.helpers.httpRequest;
	return { ctx, sent };
}

/** Everything n8n could store of an error: its JSON, its cause's JSON and a deep inspection. */
function serialized(error: Error & { toJSON?: () => unknown; cause?: unknown }): string {
	return [
		JSON.stringify(error),
		JSON.stringify(error.toJSON?.() ?? null),
		JSON.stringify(error.cause ?? null),
		inspect(error, { depth: 20 }),
	].join('\n');
}

describe('timeouts', () => {
	it('bounds an attempt by the wall clock: a request that never answers is aborted by its own signal', async () => {
		// n8n's plain httpRequest (1.x and 2.x) aborts a request on the abortSignal it is given:
		// this fake trickles until that signal fires, and never on the execution's cancel signal.
		const ctx = createContext({ params: {} });
		ctx.helpers.httpRequest = async function (request: IHttpRequestOptions) {
			const signal = request.abortSignal as AbortSignal | undefined;
			await new Promise<void>((_resolve, reject) => {
				if (!signal) return;
				signal.addEventListener('abort', () =>
					reject(Object.assign(new Error('aborted'), { code: 'ERR_CANCELED' })),
				);
			});
		} as typeof ctx.helpers.httpRequest;
		const started = Date.now();
		const error = await worded(
			apiRequest.call(ctx, {
				method: 'GET',
				path: `/task_status/${TASK}`,
				timeoutMs: 200,
				attempts: 1,
			}),
		);
		expect(Date.now() - started).toBeLessThan(2000);
		expect(error.message).toMatch(/did not answer within 1 s/);
	});

	it('a status request that gets no answer times out and is tried again', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).delay(3000).reply(200, { status: 'processing' });
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, { status: 'complete' });
		const task = await apiRequest.call(createContext({ params: {} }), {
			method: 'GET',
			path: `/task_status/${TASK}`,
			timeoutMs: 200,
		});
		expect(task).toMatchObject({ status: 'complete' });
		expect(sleeps).toEqual([1000]);
	});

	it('an upload that gets no answer is not sent again: the service may have it', async () => {
		nock(BASE_URL).post('/process_file').delay(3000).reply(200, { task_id: TASK });
		const error = await worded(
			apiRequest.call(createContext({ params: {} }), {
				method: 'POST',
				path: '/process_file',
				body: { file_base64: 'AAAA' },
				timeoutMs: 200,
				itemIndex: 0,
			}),
		);
		expect(error.message).toMatch(
			/^The Document Extraction Service did not answer in time; it may have received the document, so it was not sent again/,
		);
		expect(error.description).toMatch(/not sent again/);
		expect(error.description).toMatch(/web dashboard/);
		expect(sleeps).toEqual([]);
	});

	it('never lets a request outlast the deadline it is given', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).delay(3000).reply(200, {});
		const started = Date.now();
		const error = await worded(
			apiRequest.call(createContext({ params: {} }), {
				method: 'GET',
				path: `/task_status/${TASK}`,
				deadline: Date.now() + 1300,
			}),
		);
		expect(Date.now() - started).toBeLessThan(2500);
		expect(failureKind(error)).toBe('no_answer');
		expect(error.message).toMatch(/did not answer/);
	});
});

describe('which failures are retried', () => {
	it.each(['ECONNREFUSED', 'ENOTFOUND'])(
		'retries an upload that never reached the service (%s): one task',
		async (code) => {
			nock(BASE_URL)
				.post('/process_file')
				.replyWithError(netError(`connect ${code}`, code));
			nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
			await expect(
				submitDocument.call(createContext({ params: {} }), { file_base64: 'AAAA' }, 0),
			).resolves.toBe(TASK);
			expect(sleeps).toEqual([1000]);
		},
	);

	it.each([
		['ECONNRESET', netError('read ECONNRESET', 'ECONNRESET')],
		['socket hang up', netError('socket hang up')],
	])(
		'does not resend an upload whose connection broke after sending (%s)',
		async (_name, failure) => {
			nock(BASE_URL).post('/process_file').replyWithError(failure);
			const error = await worded(
				submitDocument.call(createContext({ params: {} }), { file_base64: 'AAAA' }, 3),
			);
			expect(error.message).toMatch(
				/^The connection to the Document Extraction Service broke off; it may have received the document, so it was not sent again/,
			);
			expect(error.description).toMatch(/second task and a second charge/);
			expect(error.description).toMatch(/Check the tasks of the project in the web dashboard/);
			expect(sleeps).toEqual([]);
			expect(failureKind(error)).toBe('may_have_arrived');
		},
	);

	it.each([500, 503])('retries an upload the service answered with %i', async (status) => {
		nock(BASE_URL).post('/process_file').reply(status, { detail: 'server error' });
		nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
		await expect(
			submitDocument.call(createContext({ params: {} }), { file_base64: 'AAAA' }, 0),
		).resolves.toBe(TASK);
	});

	it.each([502, 504])(
		'does not resend an upload a gateway answered with %i: the service may have it',
		async (status) => {
			nock(BASE_URL).post('/process_file').reply(status, { detail: 'gateway' });
			const second = nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
			const error = await worded(
				submitDocument.call(createContext({ params: {} }), { file_base64: 'AAAA' }, 0),
			);
			expect(second.isDone()).toBe(false);
			nock.cleanAll();
			expect(error.message).toBe(
				`A gateway in front of the Document Extraction Service answered ${status}; it may have received the document, so it was not sent again. Check the project's tasks before sending it again`,
			);
			expect(error.description).toMatch(/second task and a second charge/);
			expect(sleeps).toEqual([]);
		},
	);

	it.each([502, 504])('retries a GET a gateway answered with %i', async (status) => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(status, 'gateway');
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, { status: 'complete' });
		await expect(getTask.call(createContext({ params: {} }), TASK, 0)).resolves.toMatchObject({
			status: 'complete',
		});
	});

	it('always retries a GET after a broken connection', async () => {
		nock(BASE_URL)
			.get(`/task_status/${TASK}`)
			.replyWithError(netError('socket hang up', 'ECONNRESET'));
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, { status: 'complete' });
		await expect(getTask.call(createContext({ params: {} }), TASK, 0)).resolves.toMatchObject({
			status: 'complete',
		});
	});

	it('gives up on a GET after four attempts with a transient error', async () => {
		nock(BASE_URL)
			.get(`/task_status/${TASK}`)
			.times(4)
			.replyWithError(netError('socket hang up', 'ECONNRESET'));
		const error = await worded(getTask.call(createContext({ params: {} }), TASK, 0));
		expect(error.message).toBe(
			'Could not reach the Document Extraction Service after 4 attempts: The connection was closed unexpectedly',
		);
		expect(failureKind(error)).toBe('no_answer');
		expect(sleeps).toEqual([1000, 2000, 4000]);
	});

	it('makes only the attempts it is allowed', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).twice().reply(500, {});
		const error = await worded(
			getTask.call(createContext({ params: {} }), TASK, undefined, { attempts: 2 }),
		);
		expect(error.message).toBe(
			'The Document Extraction Service failed with a server error (500) after 2 attempts',
		);
	});

	it('finds the network error code wherever the HTTP client put it', () => {
		const raw = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {});
		expect(networkErrorCode(raw)).toBe('ECONNREFUSED');
		expect(networkErrorCode({ cause: { code: 'ENOTFOUND' } })).toBe('ENOTFOUND');
		expect(networkErrorCode(new Error('timeout of 100ms exceeded'))).toBe('ETIMEDOUT');
		expect(networkErrorCode(new Error('socket hang up'))).toBeUndefined();
	});

	/** What n8n 1.x's request helper throws: its NodeApiError keeps the code as httpCode only. */
	const n8n1Error = (message: string, httpCode: string, clientMessage: string) =>
		Object.assign(new Error(message), { httpCode, messages: [clientMessage, clientMessage] });

	it("finds the code of n8n 1.x's wrapped errors, where it is the httpCode", () => {
		const refused = n8n1Error(
			'The service refused the connection - perhaps it is offline',
			'ECONNREFUSED',
			'connect ECONNREFUSED 127.0.0.1:9',
		);
		expect(networkErrorCode(refused)).toBe('ECONNREFUSED');
		expect(networkErrorCode(Object.assign(new Error('Bad gateway'), { httpCode: '502' }))).toBe(
			undefined,
		);
	});

	it('on n8n 1.x, an upload that timed out is reported as a timeout and not sent again', async () => {
		const { ctx, sent } = answeringContext((request) => {
			throw n8n1Error(
				'The connection was aborted, perhaps the server is offline',
				'ECONNABORTED',
				`timeout of ${request.timeout}ms exceeded`,
			);
		});
		const error = await worded(submitDocument.call(ctx, { file_base64: 'AAAA' }, 0));
		expect(error.message).toMatch(
			/^The Document Extraction Service did not answer in time; it may have received the document, so it was not sent again/,
		);
		expect(sent).toHaveLength(1);
	});

	it('on n8n 1.x, an upload whose connection was refused is sent again', async () => {
		const { ctx, sent } = answeringContext((_request, attempt) => {
			if (attempt < 3)
				throw n8n1Error(
					'The service refused the connection - perhaps it is offline',
					'ECONNREFUSED',
					'connect ECONNREFUSED 127.0.0.1:9',
				);
			return { statusCode: 200, headers: {}, body: { task_id: TASK } };
		});
		await expect(submitDocument.call(ctx, { file_base64: 'AAAA' }, 0)).resolves.toBe(TASK);
		expect(sent).toHaveLength(3);
		expect(sleeps).toEqual([1000, 2000]);
	});
});

describe('the API key never reaches an error', () => {
	const key = API_KEY;

	it.each([
		[
			'a broken upload',
			() =>
				nock(BASE_URL)
					.post('/process_file')
					.replyWithError(netError('socket hang up', 'ECONNRESET')),
		],
		[
			'a refused connection',
			() =>
				nock(BASE_URL)
					.post('/process_file')
					.times(4)
					.replyWithError(netError('connect ECONNREFUSED', 'ECONNREFUSED')),
		],
		['a 5xx', () => nock(BASE_URL).post('/process_file').times(4).reply(500, { detail: 'down' })],
		['a 401', () => nock(BASE_URL).post('/process_file').reply(401, { detail: 'bad key' })],
	])('%s', async (_name, arrange) => {
		arrange();
		const error = await worded(
			submitDocument.call(createContext({ params: {} }), { file_base64: 'AAAA' }, 0),
		);
		const text = serialized(error);
		expect(text).not.toContain(key);
		expect(text).not.toMatch(/authorization/i);
	});

	it('when the execution is stopped during a request', async () => {
		const controller = new AbortController();
		const { ctx } = answeringContext(
			(request) => {
				controller.abort();
				throw httpClientError(Object.assign(new Error('canceled'), { code: 'ERR_CANCELED' }), {
					...request,
					headers: { Authorization: `Bearer ${key}` },
				});
			},
			{ params: {}, signal: controller.signal },
		);
		const error = await worded(getTask.call(ctx, TASK, 0, { signal: controller.signal }));
		expect(error.message).toBe('The execution was stopped');
		expect(failureKind(error)).toBe('stopped');
		expect(serialized(error)).not.toContain(key);
	});

	it('the raw client error of the test host does carry the key (so the checks above can fail)', () => {
		const raw = httpClientError(new Error('x'), {
			url: BASE_URL,
			headers: { Authorization: `Bearer ${key}` },
		});
		expect(serialized(raw)).toContain(key);
	});
});

describe('streams', () => {
	it('closes the stream of every attempt, however the attempt ends', async () => {
		const opened: Readable[] = [];
		const { ctx } = answeringContext((request, attempt) => {
			// Refused before the body was read: the client never touches the stream.
			if (attempt < 3) {
				throw httpClientError(
					Object.assign(new Error('fetch failed'), {
						cause: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' },
					}),
					request,
				);
			}
			return { statusCode: 503, headers: {}, body: { detail: 'busy' } };
		});
		const body = async () => {
			const stream = new Readable({ read() {} });
			opened.push(stream);
			return stream;
		};
		await worded(
			apiRequest.call(ctx, {
				method: 'POST',
				path: '/process_file',
				body,
			}),
		);
		expect(opened).toHaveLength(4);
		expect(opened.map((stream) => stream.destroyed)).toEqual([true, true, true, true]);
	});
});

describe('cancel', () => {
	it('sends nothing once the execution is stopped, even with a sleep that ignores the signal', async () => {
		const controller = new AbortController();
		const { ctx, sent } = recordingContext({ params: {}, signal: controller.signal });
		controller.abort();
		const error = await worded(getTask.call(ctx, TASK, 0, { signal: controller.signal }));
		expect(error.message).toBe('The execution was stopped');
		expect(sent).toHaveLength(0);
	});
});
