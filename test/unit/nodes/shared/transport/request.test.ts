/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { inspect } from 'node:util';
import { Readable } from 'node:stream';

import nock from 'nock';
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../../../helpers/sleep').workflowWithFakeSleep(),
);

import { sleeps } from '../../../helpers/sleep';

import { MESSAGES } from '../../../../../nodes/DocumentExtraction/messages';
import { worded as inWords } from '../../../../../nodes/shared/explain';
import { webhookRequest } from '../../../../../nodes/shared/projects';
import {
	asNodeError,
	errorDetail,
	failureKind,
	mayPass,
	nodeError,
	ServiceError,
} from '../../../../../nodes/shared/transport/errors';
import {
	getTask,
	isTerminal,
	registerWebhook,
	submitDocument,
} from '../../../../../nodes/shared/transport/service';
import { CancelledError } from '../../../../../nodes/shared/wait';
import { networkErrorCode } from '../../../../../nodes/shared/transport/network';
import { apiRequest, type ApiRequestOptions } from '../../../../../nodes/shared/transport/request';
import {
	API_KEY,
	BASE_URL,
	createContext,
	failureOf,
	httpClientError,
	useOfflineNock,
} from '../../../helpers/context';
import { INVOICES, TASK } from '../../../helpers/fixtures';

/** What each answer of the service becomes, and its failure's words (as documents get them). */

useOfflineNock();
beforeEach(() => (sleeps.length = 0));
afterEach(() => expect(nock.pendingMocks()).toEqual([]));

const PATH = { GET: `/task_status/${TASK}`, POST: '/process_file' };
type Method = keyof typeof PATH;
/** One attempt's answer: a status with its body and headers, or a network error. */
type Reply = [number, unknown?, Record<string, string>?] | Error;

const netError = (message: string, code?: string) =>
	Object.assign(new Error(message), code ? { code } : {});
const ctx = () => createContext({ params: {} });

/** Sends a GET or an upload, nock answering its attempts with `replies` in turn. */
function send(method: Method, replies: Reply[], extra: Partial<ApiRequestOptions> = {}) {
	for (const reply of replies) {
		const scope = nock(BASE_URL).intercept(PATH[method], method);
		if (reply instanceof Error) scope.replyWithError(reply);
		else scope.reply(reply[0], (reply[1] ?? {}) as nock.Body, reply[2]);
	}
	const body = method === 'POST' ? { file_base64: 'AAAA' } : undefined;
	return apiRequest.call(ctx(), { method, path: PATH[method], body, itemIndex: 1, ...extra });
}

/** The failure of a request, in the words of the document operations. */
const worded = async (promise: Promise<unknown>) =>
	inWords(
		await failureOf<ServiceError>(promise),
		MESSAGES.documentRequest({ project: 'Invoices', document_type: 'invoice' }),
	);

/** A context whose HTTP client answers each attempt with `answer` (which throws to fail it). */
function answeringContext(
	answer: (request: IHttpRequestOptions, attempt: number) => unknown,
	options: Parameters<typeof createContext>[0] = { params: {} },
) {
	const context = createContext(options);
	const sent: IHttpRequestOptions[] = [];
	context.helpers.httpRequest = (async (request: IHttpRequestOptions) => {
		sent.push(request);
		return await answer(request, sent.length);
	}) as IExecuteFunctions['helpers']['httpRequest'];
	return { ctx: context, sent };
}

/** Everything n8n could store of an error: its JSON, its cause's JSON and a deep inspection. */
const serialized = (error: Error & { toJSON?: () => unknown; cause?: unknown }) =>
	[
		JSON.stringify(error),
		JSON.stringify(error.toJSON?.() ?? null),
		JSON.stringify(error.cause ?? null),
		inspect(error, { depth: 20 }),
	].join('\n');

describe('what is sent again', () => {
	const reset = netError('socket hang up', 'ECONNRESET');
	it.each<[string, Method, Reply[], number[]]>([
		['a GET after 5xx answers, 1 s then 2 s later', 'GET', [[503], [500]], [1000, 2000]],
		['a 5xx after its Retry-After', 'GET', [[503, {}, { 'Retry-After': '3' }]], [3000]],
		['an upload the service answered with 500', 'POST', [[500]], [1000]],
		['an upload the service answered with 503', 'POST', [[503]], [1000]],
		['a GET a gateway answered with 502', 'GET', [[502, 'gateway']], [1000]],
		['a GET a gateway answered with 504', 'GET', [[504, 'gateway']], [1000]],
		['a GET whose connection broke', 'GET', [reset], [1000]],
		['an upload refused (ECONNREFUSED)', 'POST', [netError('connect', 'ECONNREFUSED')], [1000]],
		['an upload to no host (ENOTFOUND)', 'POST', [netError('getaddrinfo', 'ENOTFOUND')], [1000]],
	])('%s', async (_name, method, failures, waits) => {
		const ok = method === 'GET' ? { status: 'complete' } : { task_id: TASK };
		await expect(send(method, [...failures, [200, ok]])).resolves.toEqual(ok);
		expect(sleeps).toEqual(waits);
	});

	it('rebuilds a raw body for every attempt', async () => {
		const bodies: string[] = [];
		nock(BASE_URL)
			.post('/process_file', (body) => bodies.push(JSON.stringify(body)) > 0)
			.reply(500, { detail: 'x' })
			.post('/process_file', (body) => bodies.push(JSON.stringify(body)) > 0)
			.reply(200, { task_id: 't' });
		const body = () => Buffer.from('{"file_base64":"QQ=="}');
		await apiRequest.call(ctx(), { method: 'POST', path: '/process_file', body });
		expect(bodies).toEqual(['{"file_base64":"QQ=="}', '{"file_base64":"QQ=="}']);
	});
});

describe('the failure of each answer', () => {
	const FOUR = [1000, 2000, 4000];
	const gateway = (status: number) =>
		`A gateway in front of the Document Extraction Service answered ${status}; it may have received the document, so it was not sent again. Check the project's tasks before sending it again`;
	const broke =
		/^The connection to the Document Extraction Service broke off; it may have received the document, so it was not sent again/;
	const refused = netError('connect ECONNREFUSED', 'ECONNREFUSED');
	const reset = netError('read ECONNRESET', 'ECONNRESET');
	const list = [
		{ loc: ['body', 'document_type'], msg: 'field required' },
		{ loc: ['body', 'max_pages'], msg: 'ensure this value is greater than 0' },
	];

	it.each<[string, Reply[], Partial<ServiceError>, RegExp | string, RegExp]>([
		[
			'GET 404',
			[[404, { detail: 'Task not found' }]],
			{ kind: 'not_found', status: 404, detail: 'Task not found' },
			'Not found (404): Task not found',
			/Check the project, the document type and the task ID/,
		],
		[
			'POST 401',
			[[401, { detail: 'Invalid API key' }]],
			{ kind: 'refused', status: 401, detail: 'Invalid API key' },
			'The Document Extraction Service rejected the API key (401): Invalid API key. Check the API key in the credential.',
			/^Invalid API key\. Check the API key/,
		],
		[
			'POST 402',
			[[402, { detail: 'Subscription inactive' }]],
			{ kind: 'refused', status: 402 },
			/subscription is inactive \(402\): Subscription inactive\. Renew it/,
			/Renew the subscription/,
		],
		[
			'POST 422 with a field list',
			[[422, { detail: list }]],
			{ kind: 'refused', status: 422, detail: list },
			/refused the document as invalid \(422\): document_type: field required; max_pages/,
			/document_type: field required\nmax_pages: ensure this value is greater than 0\n/,
		],
		[
			'POST 400 with a detail object',
			[[400, { detail: { field: 'x' } }]],
			{ kind: 'refused', status: 400 },
			'The Document Extraction Service refused the document with status 400: {"field":"x"}',
			/^\{"field":"x"\}$/,
		],
		[
			'POST redirected (not followed)',
			[[301, '', { Location: 'https://api.example.com/process_file' }]],
			{ kind: 'refused', status: 301 },
			'The Document Extraction Service redirected the request (301) to https://api.example.com/process_file; set the Base URL in the credential to the address the service answers at',
			/^It points to https:\/\/api\.example\.com\/process_file\. Set the Base URL/,
		],
		[
			'GET failed four times (5xx)',
			[1, 2, 3, 4].map(() => [500, { detail: 'database unavailable' }] as Reply),
			{ kind: 'service_failed', status: 500, detail: 'database unavailable' },
			'The Document Extraction Service failed with a server error (500) after 4 attempts: database unavailable',
			/^database unavailable\. The request was retried/,
		],
		[
			'GET that got no answer four times',
			[reset, reset, reset, reset],
			{ kind: 'no_answer', status: null },
			'Could not reach the Document Extraction Service after 4 attempts: The connection was closed unexpectedly',
			/^The connection was closed unexpectedly \(ECONNRESET\)\. Check the Base URL in the credential \(http:\/\/127\.0\.0\.1:9\)/,
		],
		[
			'POST refused four times (it never left)',
			[refused, refused, refused, refused],
			{ kind: 'no_answer', status: null, detail: undefined },
			/^Could not reach the Document Extraction Service after 4 attempts: The connection was refused$/,
			/reachable from n8n/,
		],
		[
			'POST a gateway answered 502',
			[[502, 'Bad Gateway']],
			{ kind: 'may_have_arrived', status: 502, detail: undefined },
			gateway(502),
			/second task and a second charge\)\. Check the tasks of the project in the web dashboard, or wait for its task\.completed webhook, before you send it again\.$/,
		],
		[
			'POST a gateway answered 504',
			[[504, 'Gateway Timeout']],
			{ kind: 'may_have_arrived', status: 504, detail: undefined },
			gateway(504),
			/^A gateway answered 504\. The service may have received the document/,
		],
		[
			'POST whose connection broke (ECONNRESET)',
			[reset],
			{ kind: 'may_have_arrived', status: null, detail: undefined },
			broke,
			/^The connection was closed unexpectedly \(ECONNRESET\)\. .*second charge/,
		],
		[
			'POST whose connection broke (no code)',
			[netError('socket hang up.')],
			{ kind: 'may_have_arrived', status: null, detail: undefined },
			broke,
			/^socket hang up\. .*web dashboard/,
		],
	])('%s', async (name, replies, failure, message, description) => {
		const error = await worded(send(name.split(' ')[0] as Method, replies));
		expect(error).toMatchObject(failure);
		expect(error.message).toEqual(
			typeof message === 'string' ? message : expect.stringMatching(message),
		);
		expect(error.description).toMatch(description);
		expect(error.context.itemIndex).toBe(1);
		expect(error.httpCode).toBe(error.status === null ? null : String(error.status));
		expect(serialized(error)).not.toMatch(new RegExp(`${API_KEY}|authorization`, 'i'));
		// the failures that used up the attempts waited between them
		expect(sleeps).toEqual(replies.length === 4 ? FOUR : []);
	});

	it('refuses a credential before sending anything (invalid_input)', async () => {
		const check = async (credentials: Record<string, string>, message: RegExp) => {
			const context = createContext({ params: {}, credentials });
			const error = await failureOf(apiRequest.call(context, { method: 'GET', path: '/projects' }));
			expect(error.message).toMatch(message);
			expect(failureKind(error)).toBe('invalid_input');
		};
		await check({ apiKey: 'abc123', baseUrl: BASE_URL }, /^(?!.*abc123).*vnd_/);
		await check(
			{ apiKey: API_KEY, baseUrl: 'api.example.com' },
			/Base URL .* must start with http/,
		);
	});
});

describe('timeouts', () => {
	it('bounds an attempt by the wall clock: a request that never answers is aborted by its own signal', async () => {
		// n8n's plain httpRequest aborts a request on the abortSignal it is given, and only then.
		const { ctx: context } = answeringContext(
			async (request) =>
				await new Promise((_resolve, reject) =>
					(request.abortSignal as AbortSignal).addEventListener('abort', () =>
						reject(netError('aborted', 'ERR_CANCELED')),
					),
				),
		);
		const started = Date.now();
		const request = { method: 'GET' as const, path: PATH.GET, timeoutMs: 200, attempts: 1 };
		const error = await worded(apiRequest.call(context, request));
		expect(Date.now() - started).toBeLessThan(2000);
		expect(error.message).toBe(
			'The Document Extraction Service did not answer within 1 s (1 attempt)',
		);
		expect(error.description).toMatch(/^No complete answer within 1 s\. /);
	});

	it('an upload that gets no answer is not sent again: the service may have it', async () => {
		nock(BASE_URL).post(PATH.POST).delay(3000).reply(200, { task_id: TASK });
		const error = await worded(send('POST', [], { timeoutMs: 200 }));
		expect(error).toMatchObject({
			kind: 'may_have_arrived',
			description: expect.stringMatching(/^No complete answer within 1 s\. /),
		});
		expect(error.message).toMatch(
			/^The Document Extraction Service did not answer in time; it may have received the document, so it was not sent again/,
		);
		expect(sleeps).toEqual([]);
	});

	it('an upload gets 30 s and one more second for every 256 kB of body, a GET 30 s: one timer an attempt, cleared when it ends', async () => {
		const timers = jest.mocked(sleep);
		timers.mockClear();
		await send('POST', [[200, { task_id: TASK }]], { bodyBytes: 10 * 1024 * 1024 + 1 });
		await send('GET', [[200, { task_id: TASK, status: 'complete' }]]);
		// the attempt's time limit is the one sleep given a signal
		expect(timers.mock.calls.filter(([, signal]) => signal).map(([ms]) => ms)).toEqual([
			71_000, 30_000,
		]);
		const limits = timers.mock.calls.filter(([, signal]) => signal);
		expect(limits.every(([, signal]) => signal?.aborted)).toBe(true);
	});

	it('never lets a request outlast the deadline it is given', async () => {
		nock(BASE_URL).get(PATH.GET).delay(3000).reply(200, {});
		const started = Date.now();
		const error = await worded(send('GET', [], { deadline: Date.now() + 1300 }));
		expect(Date.now() - started).toBeLessThan(2500);
		expect(error.message).toMatch(/^The Document Extraction Service did not answer within 1 s/);
	});

	it('sends nothing when the deadline leaves no time (out_of_time)', async () => {
		const error = await worded(send('GET', [], { deadline: Date.now() + 100 }));
		expect(error).toMatchObject({ kind: 'out_of_time', status: null, detail: undefined });
		expect(error.message).toBe('No time was left to send the document before the wait ran out');
	});
});

describe("n8n 1.x's HTTP errors", () => {
	/** What n8n 1.x's request helper throws: its NodeApiError keeps the code as httpCode only. */
	const n8n1Error = (message: string, httpCode: string, clientMessage: string) =>
		Object.assign(new Error(message), { httpCode, messages: [clientMessage, clientMessage] });
	const refused = () =>
		n8n1Error('The service refused the connection', 'ECONNREFUSED', 'connect ECONNREFUSED');

	it('finds the network error code wherever the HTTP client put it', () => {
		expect(networkErrorCode(new Error('connect ECONNREFUSED 127.0.0.1:9'))).toBe('ECONNREFUSED');
		expect(networkErrorCode({ cause: { code: 'ENOTFOUND' } })).toBe('ENOTFOUND');
		expect(networkErrorCode(new Error('timeout of 100ms exceeded'))).toBe('ETIMEDOUT');
		expect(networkErrorCode(new Error('socket hang up'))).toBeUndefined();
		expect(networkErrorCode(refused())).toBe('ECONNREFUSED');
		expect(networkErrorCode(Object.assign(new Error('Bad gateway'), { httpCode: '502' }))).toBe(
			undefined,
		);
	});

	it('an upload that timed out is reported as a timeout and not sent again', async () => {
		const { ctx: context, sent } = answeringContext((request) => {
			throw n8n1Error('aborted', 'ECONNABORTED', `timeout of ${request.timeout}ms exceeded`);
		});
		const error = await worded(
			apiRequest.call(context, { method: 'POST', path: PATH.POST, body: { a: 1 } }),
		);
		expect(error.message).toMatch(/^The Document Extraction Service did not answer in time/);
		expect(sent).toHaveLength(1);
	});
});

describe('the API key never reaches an error (the failure of each answer: above)', () => {
	it('when the execution is stopped during a request', async () => {
		const controller = new AbortController();
		const { ctx: context } = answeringContext(
			(request) => {
				controller.abort();
				throw httpClientError(netError('canceled', 'ERR_CANCELED'), {
					...request,
					headers: { Authorization: `Bearer ${API_KEY}` },
				});
			},
			{ params: {}, signal: controller.signal },
		);
		const request = { method: 'GET' as const, path: PATH.GET, signal: controller.signal };
		const error = await worded(apiRequest.call(context, request));
		expect(error).toMatchObject({ kind: 'stopped', message: 'The execution was stopped' });
		expect(serialized(error)).not.toContain(API_KEY);
	});

	it('the raw client error of the test host does carry the key (so the checks above can fail)', () => {
		const headers = { Authorization: `Bearer ${API_KEY}` };
		expect(serialized(httpClientError(new Error('x'), { url: BASE_URL, headers }))).toContain(
			API_KEY,
		);
	});
});

describe('no secret the service echoes reaches an error, an item or a task', () => {
	const BEARER = `Bearer ${API_KEY}`;
	const html = `<html><body><h1>500</h1><p>Authorization: ${BEARER}</p></body></html>`;
	const field = [{ loc: ['header', 'authorization'], msg: `bad header "${BEARER}"` }];
	const secret = `whsec_${'ab'.repeat(32)}`;
	const odd = 'vnd_odd"<>tail';
	const echo = (text: string) => ({ detail: `Invalid or missing API key: ${text}` });
	const registration = (reply: unknown[], own = secret) => {
		nock(BASE_URL)
			.post(`/projects/${INVOICES}/webhooks`)
			.reply(422, reply[0] as nock.Body);
		const body = { url: 'https://n8n.example.com/hook', events: ['task.completed'], secret: own };
		return registerWebhook.call(ctx(), INVOICES, body);
	};

	it.each<[string, () => Promise<unknown>, string[]]>([
		['a 401 detail', () => send('POST', [[401, echo(BEARER)]]), [API_KEY]],
		['a 422 msg', () => send('POST', [[422, { detail: field }]]), [API_KEY]],
		[
			'a 500 HTML page',
			() =>
				send(
					'GET',
					[1, 2, 3, 4].map(() => [500, html] as Reply),
				),
			[API_KEY],
		],
		['a redirect', () => send('GET', [[302, '', { Location: `/?key=${API_KEY}` }]]), [API_KEY]],
		['the webhook secret', () => registration([{ detail: `bad secret ${secret}` }]), [secret]],
		[
			'the key without its vnd_, in upper case',
			() => send('POST', [[401, echo(`key ending ${API_KEY.slice(4).toUpperCase()}`)]]),
			[API_KEY.slice(4), API_KEY.slice(4).toUpperCase()],
		],
		[
			'the webhook secret without its whsec_, in upper case',
			() => registration([{ detail: `bad ${secret.slice(6).toUpperCase()}` }]),
			[secret.slice(6), secret.slice(6).toUpperCase()],
		],
		['an own secret', () => registration([{ detail: 'bad secret my own' }], 'my own'), ['my own']],
		[
			'the exact key, whatever it holds',
			() => {
				nock(BASE_URL)
					.get('/projects')
					.reply(401, echo(`Bearer ${odd}`));
				const context = createContext({
					params: {},
					credentials: { apiKey: odd, baseUrl: BASE_URL },
				});
				return apiRequest.call(context, { method: 'GET', path: '/projects' });
			},
			['<>tail'],
		],
		[
			'an unexpected answer',
			() => {
				nock(BASE_URL)
					.post('/process_file')
					.reply(200, { echo: { authorization: BEARER } });
				return submitDocument.call(ctx(), { file_base64: 'AAAA' });
			},
			[API_KEY],
		],
	])('%s', async (_name, request, hidden) => {
		const error = await worded(request());
		const item = JSON.stringify(errorDetail(error));
		for (const text of hidden) expect(`${serialized(error)}\n${item}`).not.toContain(text);
		expect(`${error.message} ${error.description} ${item}`).toContain('…');
	});

	it("nor an error of the node (a download, a task) nor a failed task's error", async () => {
		const download = nodeError(ctx(), 'download_failed', `The host said Authorization: ${BEARER}`);
		expect(serialized(download)).not.toContain(API_KEY);
		expect(download.message).toBe('The host said Authorization: Bearer …');
		nock(BASE_URL)
			.get(PATH.GET)
			.reply(200, { status: 'failed', error: `no ${API_KEY}` });
		expect(await getTask.call(ctx(), TASK)).toMatchObject({ error: 'no …' });
		nock(BASE_URL)
			.get(PATH.GET)
			.reply(200, { status: 'failed', error: `no ${API_KEY.slice(4)} ${secret.slice(6)}` });
		const task = await getTask.call(ctx(), TASK, undefined, { secrets: [secret] });
		expect(task).toMatchObject({ error: 'no … …' });
	});
});

it('closes the stream of every attempt, however the attempt ends', async () => {
	const opened: Readable[] = [];
	const { ctx: context } = answeringContext((request, attempt) => {
		// Refused before the body was read: the client never touches the stream.
		if (attempt < 3) throw httpClientError(netError('fetch failed', 'ECONNREFUSED'), request);
		return { statusCode: 503, headers: {}, body: { detail: 'busy' } };
	});
	const body = () => {
		const stream = new Readable({ read() {} });
		opened.push(stream);
		return stream;
	};
	await worded(apiRequest.call(context, { method: 'POST', path: PATH.POST, body }));
	expect(opened.map((stream) => stream.destroyed)).toEqual([true, true, true, true]);
});

it('sends nothing once the execution is stopped, even with a sleep that ignores the signal', async () => {
	const controller = new AbortController();
	controller.abort();
	const { ctx: context, sent } = answeringContext(() => ({}), {
		params: {},
		signal: controller.signal,
	});
	const request = { method: 'GET' as const, path: PATH.GET, signal: controller.signal };
	const error = await worded(apiRequest.call(context, request));
	expect(error.message).toBe('The execution was stopped');
	expect(sent).toHaveLength(0);
});

describe('reading an error', () => {
	const node = () => ctx().getNode();

	it('a failure is the NodeApiError n8n shows, with its kind where n8n stores it', () => {
		const error = new ServiceError(node(), { kind: 'not_found', status: 404, detail: 'gone' });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.name).toBe('NodeApiError');
		expect(JSON.parse(JSON.stringify(error)).context.kind).toBe('not_found');
	});

	it('only a 5xx, no answer, 429 or no time left may pass', () => {
		const kinds = [
			'refused',
			'not_found',
			'service_failed',
			'no_answer',
			'may_have_arrived',
			'rate_limited',
			'out_of_time',
			'stopped',
		] as const;
		const passing = kinds.filter((kind) => mayPass(new ServiceError(node(), { kind })));
		expect(passing).toEqual(['service_failed', 'no_answer', 'rate_limited', 'out_of_time']);
		expect(mayPass(new NodeApiError(node(), { status: 503 }))).toBe(false);
	});

	it('failureKind reads the kind an error carries, and calls any other error unexpected', () => {
		expect(failureKind(new Error('x'))).toBe('unexpected');
		expect(failureKind(new NodeOperationError(node(), 'x'))).toBe('unexpected');
		expect(failureKind(nodeError(ctx(), 'invalid_input', 'x'))).toBe('invalid_input');
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
		const stopped = inWords(new ServiceError(node(), { kind: 'stopped' }));
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

describe('task statuses', () => {
	it('ends a task only at complete or failed', () => {
		expect(isTerminal('complete')).toBe(true);
		expect(isTerminal('failed')).toBe(true);
		for (const running of ['queued', 'processing', 'ocr_in_progress', undefined, null]) {
			expect(isTerminal(running)).toBe(false);
		}
	});
});

describe('refusals carry their reason in the message', () => {
	it('a refused webhook registration names the reason, the URL n8n gave, and WEBHOOK_URL', async () => {
		const detail = [
			{ loc: ['body', 'url'], msg: 'URL scheme should be https', type: 'value_error' },
		];
		nock(BASE_URL).post(`/projects/${INVOICES}/webhooks`).reply(422, { detail });
		const url = 'http://user:pw@localhost:5678/webhook/abc/webhook?token=x';
		const registration = { url, events: ['task.completed'], secret: 'whsec_x' };
		const ctx = createContext({ params: {} });
		const failure = await failureOf(registerWebhook.call(ctx, INVOICES, registration));
		const error = inWords(failure, webhookRequest(INVOICES, url));
		expect(error.message).toBe(
			"The Document Extraction Service refused the webhook registration as invalid (422): url: URL scheme should be https. n8n gave the webhook URL http://localhost:5678/webhook/abc/webhook. The service needs an https address it can reach: set n8n's public address with the WEBHOOK_URL environment variable (for example WEBHOOK_URL=https://n8n.example.com/), restart n8n and publish again.",
		);
		expect(error).toMatchObject({ kind: 'refused', status: 422, detail });
	});
});
