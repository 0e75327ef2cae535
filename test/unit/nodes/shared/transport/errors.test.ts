import nock from 'nock';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../../../helpers/sleep').workflowWithFakeClock(),
);

import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { useFakeClock } from '../../../helpers/sleep';

import {
	asNodeError,
	errorDetail,
	failureKind,
	type FailureKind,
	mayPass,
	nodeError,
	ServiceError,
} from '../../../../../nodes/shared/transport/errors';
import { apiRequest, type ApiRequestOptions } from '../../../../../nodes/shared/transport/request';
import { CancelledError } from '../../../../../nodes/shared/wait';
import { explain } from '../../../../../nodes/shared/explain';
import { BASE_URL, createContext, failureOf, useOfflineNock } from '../../../helpers/context';
import { TASK } from '../../../helpers/fixtures';

/**
 * Each kind of failure, decided by the transport where it happens: what it is, whether it may
 * pass, and what it carries (the HTTP status and the service's detail).
 */

useOfflineNock();
useFakeClock();
afterEach(() => expect(nock.pendingMocks()).toEqual([]));

const ctx = () => createContext({ params: {} });
const get = (extra: Partial<ApiRequestOptions> = {}) =>
	apiRequest.call(ctx(), { method: 'GET', path: `/task_status/${TASK}`, itemIndex: 1, ...extra });
const upload = (extra: Partial<ApiRequestOptions> = {}) =>
	apiRequest.call(ctx(), {
		method: 'POST',
		path: '/process_file',
		body: { file_base64: 'AAAA' },
		itemIndex: 1,
		...extra,
	});
const netError = (message: string, code: string) => Object.assign(new Error(message), { code });

/** The failure, in the words of the node that sent the request (a document upload, or a GET). */
async function kindOf(promise: Promise<unknown>) {
	const error = explain(await failureOf<ServiceError>(promise), { sending: 'the document' });
	expect(error).toBeInstanceOf(ServiceError);
	// n8n shows it, and stores it, as the NodeApiError it is
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.name).toBe('NodeApiError');
	return error;
}

describe('the kind of each failure', () => {
	it('not_found: the service answered 404', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(404, { detail: 'Task not found' });
		const error = await kindOf(get());
		expect(error).toMatchObject({ kind: 'not_found', status: 404, detail: 'Task not found' });
		// the kind goes where n8n stores it with the execution and gives it to an error workflow
		expect(JSON.parse(JSON.stringify(error)).context.kind).toBe('not_found');
		expect(mayPass(error)).toBe(false);
	});

	it.each([
		[422, { detail: [{ loc: ['body', 'project'], msg: 'field required' }] }],
		[401, { detail: 'Invalid API key' }],
		[307, {}],
	])('refused: the service answered %i', async (status, body) => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(status, body);
		const error = await kindOf(get());
		expect(error).toMatchObject({
			kind: 'refused',
			status,
			detail: (body as { detail?: unknown }).detail ?? null,
		});
		expect(mayPass(error)).toBe(false);
	});

	it('serviceFailed: a 5xx of the service itself, after four attempts', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).times(4).reply(503, { detail: 'busy' });
		const error = await kindOf(get());
		expect(error).toMatchObject({ kind: 'service_failed', status: 503, detail: 'busy' });
		expect(error.message).toMatch(/server error \(503\) after 4 attempts/);
		expect(mayPass(error)).toBe(true);
	});

	it('noAnswer: a GET that got no answer four times', async () => {
		nock(BASE_URL)
			.get(`/task_status/${TASK}`)
			.times(4)
			.replyWithError(netError('read ECONNRESET', 'ECONNRESET'));
		const error = await kindOf(get());
		expect(error).toMatchObject({
			kind: 'no_answer',
			status: null,
			detail: 'The connection was closed unexpectedly (ECONNRESET)',
		});
		expect(mayPass(error)).toBe(true);
	});

	it('noAnswer: an upload whose connection was refused four times (it never left)', async () => {
		nock(BASE_URL)
			.post('/process_file')
			.times(4)
			.replyWithError(netError('connect ECONNREFUSED', 'ECONNREFUSED'));
		expect(await kindOf(upload())).toMatchObject({ kind: 'no_answer', status: null });
	});

	it.each([
		['a gateway answered 502', 502],
		['a gateway answered 504', 504],
	])('mayHaveArrived: %s to an upload', async (_name, status) => {
		nock(BASE_URL).post('/process_file').reply(status, 'Bad Gateway');
		const error = await kindOf(upload());
		expect(error).toMatchObject({
			kind: 'may_have_arrived',
			status,
			detail: `A gateway answered ${status}`,
		});
		expect(error.description).toMatch(
			/Check the tasks of the project in the web dashboard, or wait for its task\.completed webhook, before you send it again\.$/,
		);
		expect(mayPass(error)).toBe(false);
	});

	it('mayHaveArrived: an upload whose connection broke after sending', async () => {
		nock(BASE_URL).post('/process_file').replyWithError(netError('socket hang up', 'ECONNRESET'));
		expect(await kindOf(upload())).toMatchObject({ kind: 'may_have_arrived', status: null });
	});

	it('mayHaveArrived: an upload that got no answer in time', async () => {
		nock(BASE_URL).post('/process_file').delay(2000).reply(200, { task_id: TASK });
		const error = await kindOf(upload({ timeoutMs: 600 }));
		expect(error).toMatchObject({ kind: 'may_have_arrived', status: null });
		expect(error.message).toMatch(/did not answer in time; it may have received the document/);
	});

	it('a 502 to a GET is retried like a 5xx and ends as serviceFailed', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).times(4).reply(502, 'Bad Gateway');
		expect(await kindOf(get())).toMatchObject({ kind: 'service_failed', status: 502 });
	});

	it('rateLimited: 429 answers until the time for the request ran out', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).times(3).reply(429, {}, { 'Retry-After': '4' });
		const error = await kindOf(get({ throttleBudgetMs: 10_000 }));
		expect(error).toMatchObject({ kind: 'rate_limited', status: 429, detail: 'Too Many Requests' });
		expect(mayPass(error)).toBe(true);
	});

	it('outOfTime: the deadline left no time to send it', async () => {
		const error = await kindOf(get({ deadline: Date.now() + 100 }));
		expect(error).toMatchObject({ kind: 'out_of_time', status: null, detail: undefined });
		expect(error.message).toBe('No time was left to send the request before the wait ran out');
		expect(mayPass(error)).toBe(true);
	});

	it('stopped: the execution was stopped', async () => {
		const controller = new AbortController();
		controller.abort();
		const error = await kindOf(get({ signal: controller.signal }));
		expect(error).toMatchObject({ kind: 'stopped', message: 'The execution was stopped' });
		expect(mayPass(error)).toBe(false);
	});

	it('names every kind it decides', async () => {
		const kinds: FailureKind[] = [
			'refused',
			'not_found',
			'service_failed',
			'no_answer',
			'may_have_arrived',
			'rate_limited',
			'out_of_time',
			'stopped',
		];
		const passing = kinds.filter((kind) => mayPass(new ServiceError(ctx().getNode(), { kind })));
		expect(passing).toEqual(['service_failed', 'no_answer', 'rate_limited', 'out_of_time']);
	});
});

describe('reading an error', () => {
	const node = () => ctx().getNode();

	it('failureKind reads the kind an error carries, and calls any other error unexpected', () => {
		expect(failureKind(new Error('x'))).toBe('unexpected');
		expect(failureKind(new NodeOperationError(node(), 'x'))).toBe('unexpected');
		expect(failureKind(nodeError(ctx(), 'invalid_input', 'x'))).toBe('invalid_input');
		expect(mayPass(new NodeApiError(node(), { status: 503 }))).toBe(false);
	});

	it('errorDetail gives the status and the detail as the service sent them', () => {
		const detail = [{ loc: ['body', 'project'], msg: 'field required' }];
		const refused = new ServiceError(node(), { kind: 'refused', status: 422, detail });
		refused.message = 'invalid';
		expect(errorDetail(refused)).toEqual({
			message: 'invalid',
			kind: 'refused',
			httpCode: 422,
			detail,
		});
		const stopped = explain(new ServiceError(node(), { kind: 'stopped' }));
		expect(errorDetail(stopped)).toEqual({ message: 'The execution was stopped', kind: 'stopped' });
		expect(errorDetail(new Error('plain'))).toEqual({ message: 'plain', kind: 'unexpected' });
	});

	it('asNodeError keeps n8n errors, turns a stop into a stopped error and anything else into its message', () => {
		const api = new NodeApiError(node(), { status: 500 });
		expect(asNodeError(ctx(), api, 0)).toBe(api);
		expect(failureKind(asNodeError(ctx(), new CancelledError(), 0))).toBe('stopped');
		const other = asNodeError(ctx(), Object.assign(new Error('boom'), { config: 'secret' }), 2);
		expect(other).toBeInstanceOf(NodeOperationError);
		expect(other.message).toBe('boom');
		expect(JSON.stringify(other)).not.toContain('secret');
		expect(other.context.kind).toBe('unexpected');
	});
});
