/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import nock from 'nock';

import { explain } from '../../../../../nodes/shared/explain';
import { MESSAGES } from '../../../../../nodes/DocumentExtraction/messages';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../../../helpers/sleep').workflowWithFakeSleep(),
);

import { sleeps as sleepCalls } from '../../../helpers/sleep';

import { parseRetryAfter } from '../../../../../nodes/shared/transport/pacer';
import { apiRequest } from '../../../../../nodes/shared/transport/request';
import {
	API_KEY,
	BASE_URL,
	createContext,
	failureOf,
	useOfflineNock,
} from '../../../helpers/context';

const ctx = (credentials?: Record<string, string>) => createContext({ params: {}, credentials });

const FIELDS = { project: 'Invoices', document_type: 'invoice' };
useOfflineNock();

/** The failure of a request, in the words of the document operations. */
const worded = async <E = Error & { description?: string | null; httpCode?: string | null }>(
	promise: Promise<unknown>,
) => explain(await failureOf<E>(promise), MESSAGES.documentRequest(FIELDS));
beforeEach(() => {
	sleepCalls.length = 0;
});
afterEach(() => expect(nock.pendingMocks()).toEqual([]));

describe('apiRequest', () => {
	it('sends the Bearer key from the credential and returns the JSON body', async () => {
		nock(BASE_URL, { reqheaders: { authorization: `Bearer ${API_KEY}` } })
			.get('/projects')
			.reply(200, { projects: [] });
		await expect(apiRequest.call(ctx(), { method: 'GET', path: '/projects' })).resolves.toEqual({
			projects: [],
		});
	});

	it('tolerates a trailing slash in the base URL', async () => {
		nock(BASE_URL).get('/projects').reply(200, []);
		await expect(
			apiRequest.call(ctx({ apiKey: API_KEY, baseUrl: `${BASE_URL}//` }), {
				method: 'GET',
				path: '/projects',
			}),
		).resolves.toEqual([]);
	});

	it('refuses a key without the vnd_ prefix before sending anything', async () => {
		const scope = nock(BASE_URL).get('/projects').reply(200, []);
		const error = await worded(
			apiRequest.call(ctx({ apiKey: 'sk_live_secret123', baseUrl: BASE_URL }), {
				method: 'GET',
				path: '/projects',
			}),
		);
		expect(error.message).toContain('vnd_');
		expect(error.message).toContain('web dashboard');
		expect(error.message).not.toContain('sk_live_secret123');
		expect(scope.isDone()).toBe(false);
		nock.cleanAll();
	});

	it('refuses a base URL that is not http(s)', async () => {
		const error = await worded(
			apiRequest.call(ctx({ apiKey: API_KEY, baseUrl: 'api.example.com' }), {
				method: 'GET',
				path: '/projects',
			}),
		);
		expect(error.message).toMatch(/Base URL .* must start with http/);
	});

	it('retries a 5xx twice and then succeeds, waiting 1 s then 2 s', async () => {
		nock(BASE_URL).get('/projects').times(2).reply(503, { detail: 'busy' });
		nock(BASE_URL)
			.get('/projects')
			.reply(200, { projects: ['ok'] });
		await expect(apiRequest.call(ctx(), { method: 'GET', path: '/projects' })).resolves.toEqual({
			projects: ['ok'],
		});
		expect(sleepCalls).toEqual([1000, 2000]);
	});

	it('gives up after four 5xx answers with a clear error carrying the detail', async () => {
		nock(BASE_URL).get('/projects').times(4).reply(500, { detail: 'database unavailable' });
		const error = await worded(apiRequest.call(ctx(), { method: 'GET', path: '/projects' }));
		expect(sleepCalls).toEqual([1000, 2000, 4000]);
		expect(error.message).toMatch(/server error \(500\) after 4 attempts/);
		expect(error.description).toContain('database unavailable');
		expect(error.httpCode).toBe('500');
	});

	it('honours Retry-After on a 5xx', async () => {
		nock(BASE_URL).get('/projects').reply(503, { detail: 'later' }, { 'Retry-After': '3' });
		nock(BASE_URL).get('/projects').reply(200, []);
		await apiRequest.call(ctx(), { method: 'GET', path: '/projects' });
		expect(sleepCalls).toEqual([3000]);
	});

	it('retries network errors', async () => {
		nock(BASE_URL)
			.get('/projects')
			.replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
		nock(BASE_URL).get('/projects').reply(200, []);
		await expect(apiRequest.call(ctx(), { method: 'GET', path: '/projects' })).resolves.toEqual([]);
		expect(sleepCalls).toEqual([1000]);
	});

	it('reports an unreachable service after four network failures', async () => {
		nock(BASE_URL).get('/projects').times(4).replyWithError('connect ECONNREFUSED');
		const error = await worded(apiRequest.call(ctx(), { method: 'GET', path: '/projects' }));
		expect(error.message).toMatch(
			/Could not reach the Document Extraction Service after 4 attempts/,
		);
		expect(error.description).toContain(BASE_URL);
	});

	it.each([
		[401, 'Invalid API key', /rejected the API key \(401\)/, /Check the API key/],
		[402, 'Subscription inactive', /subscription is inactive \(402\)/, /Renew the subscription/],
		[
			404,
			"Project 'Nope' not found",
			/Not found \(404\): Project 'Nope' not found/,
			/Check the project/,
		],
	])('maps %i without retrying', async (status, detail, message, hint) => {
		nock(BASE_URL).post('/process_file').once().reply(status, { detail });
		const error = await worded(
			apiRequest.call(ctx(), {
				method: 'POST',
				path: '/process_file',
				body: { a: 1 },
				itemIndex: 3,
			}),
		);
		expect(sleepCalls).toEqual([]);
		expect(error.message).toMatch(message);
		expect(`${error.message} ${error.description}`).toMatch(hint);
		expect(`${error.message} ${error.description}`).toContain(detail);
		expect(error.httpCode).toBe(String(status));
		expect((error as unknown as { context: { itemIndex: number } }).context.itemIndex).toBe(3);
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});

	it('reports a redirect instead of following it, naming the address to use', async () => {
		const scope = nock(BASE_URL)
			.post('/process_file')
			.reply(301, '', { Location: 'https://api.example.com/process_file' });
		const other = nock('https://api.example.com').post('/process_file').reply(200, {});
		const error = await worded(
			apiRequest.call(ctx(), { method: 'POST', path: '/process_file', body: { a: 1 } }),
		);
		expect(scope.isDone()).toBe(true);
		expect(other.isDone()).toBe(false);
		expect(error.message).toBe(
			'The Document Extraction Service redirected the request (301) to https://api.example.com/process_file; set the Base URL in the credential to the address the service answers at',
		);
		expect(error.description).toContain('https://api.example.com/process_file');
		expect(error.description).toContain('Base URL');
		expect(sleepCalls).toEqual([]);
		nock.cleanAll();
	});

	it('renders a 422 detail list as field: message lines', async () => {
		nock(BASE_URL)
			.post('/process_file')
			.reply(422, {
				detail: [
					{ loc: ['body', 'document_type'], msg: 'field required', type: 'value_error.missing' },
					{ loc: ['body', 'max_pages'], msg: 'ensure this value is greater than 0' },
				],
			});
		const error = await worded(
			apiRequest.call(ctx(), { method: 'POST', path: '/process_file', body: { a: 1 } }),
		);
		expect(error.message).toMatch(/invalid \(422\)/);
		expect(error.description).toContain('document_type: field required');
		expect(error.description).toContain('max_pages: ensure this value is greater than 0');
		expect(sleepCalls).toEqual([]);
	});

	it('rebuilds a raw body for every attempt', async () => {
		const bodies: string[] = [];
		nock(BASE_URL)
			.post('/process_file', (body) => {
				bodies.push(JSON.stringify(body));
				return true;
			})
			.reply(500, { detail: 'x' });
		nock(BASE_URL)
			.post('/process_file', (body) => {
				bodies.push(JSON.stringify(body));
				return true;
			})
			.reply(200, { task_id: 't' });
		let built = 0;
		await apiRequest.call(ctx(), {
			method: 'POST',
			path: '/process_file',
			body: () => {
				built++;
				return Buffer.from('{"file_base64":"QQ=="}');
			},
		});
		expect(built).toBe(2);
		expect(bodies).toEqual(['{"file_base64":"QQ=="}', '{"file_base64":"QQ=="}']);
	});
});

describe('parseRetryAfter', () => {
	it('parses Retry-After as seconds or a date and caps it', () => {
		expect(parseRetryAfter('2')).toBe(2000);
		expect(parseRetryAfter(undefined)).toBeUndefined();
		expect(parseRetryAfter('soon')).toBeUndefined();
		expect(parseRetryAfter('100000')).toBe(60000);
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
	});
});
