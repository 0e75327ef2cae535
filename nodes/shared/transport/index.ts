import type {
	GenericValue,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { assertApiKeyFormat } from '../../../credentials/DocumentExtractionApi.credentials';
import { displayBaseUrl, readBaseUrl } from '../baseUrl';
import { attemptSignal, CancelledError, throwIfCancelled, wait } from '../wait';
import { PaceDeadlineError, type Pacer, pacerFor, throttleBackoffMs } from './pacer';

export const CREDENTIAL_TYPE = 'documentExtractionApi';

/** Waits before the 2nd, 3rd and 4th attempt of a request that met a 5xx or a network error. */
export const RETRY_DELAYS_MS = [1000, 2000, 4000];

/** A Retry-After longer than this is shortened to it, so a run never hangs on one header. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * How long any request may take before it is given up, by the wall clock: from connecting
 * to the last byte of the answer. A service that trickles its answer cannot stretch it.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** No attempt is sent with less time than this left before its deadline. */
export const MIN_ATTEMPT_TIMEOUT_MS = 500;

/**
 * How long one request waits out 429 answers, from its first attempt, unless its deadline
 * (Max Wait for Submit and Wait) says otherwise.
 */
export const MAX_THROTTLED_MS = 5 * 60_000;

/** An upload gets REQUEST_TIMEOUT_MS plus one second for every this many bytes of body. */
export const UPLOAD_BYTES_PER_SECOND = 256 * 1024;

/** Network errors that prove a request never reached the service, so that resending it is safe. */
export const NOT_SENT_CODES = [
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'ENETUNREACH',
	'EHOSTUNREACH',
];

const TIMEOUT_CODES = ['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT'];

/** The timeout of a request whose body has `bytes` bytes: longer for larger uploads. */
export function requestTimeoutMs(bytes = 0): number {
	return REQUEST_TIMEOUT_MS + Math.ceil(Math.max(bytes, 0) / UPLOAD_BYTES_PER_SECOND) * 1000;
}

export type ApiContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

type RawBody = Buffer | string | { pipe: unknown };

/** A request body: JSON data, or a factory for a raw JSON body, called again for each attempt. */
export type RequestBody = IDataObject | (() => Promise<RawBody> | RawBody);

export interface ApiRequestOptions {
	method: IHttpRequestMethods;
	/** Path below the base URL, starting with a slash. */
	path: string;
	body?: RequestBody;
	itemIndex?: number;
	/** What the request was about, for the 404 message, e.g. "task 1234" or "project 'Invoices'". */
	subject?: string;
	/** Size of the body in bytes, for the timeout of an upload. */
	bodyBytes?: number;
	/** What a POST sends, for the message when it may have arrived, e.g. "the document". */
	sending?: string;
	/** How many attempts at most; 4 (one and three retries) unless set. */
	attempts?: number;
	/** Epoch milliseconds by which the request, its retries and waits must be over. */
	deadline?: number;
	/** Overrides the timeout of each attempt. */
	timeoutMs?: number;
	/** How long 429 answers may be waited out (MAX_THROTTLED_MS unless set); within `deadline`. */
	throttleBudgetMs?: number;
	/** What the request does, for messages: "the webhook registration"; "the request" unless set. */
	action?: string;
	/** A sentence added to the message of a 4xx answer: what to check. */
	refusalAdvice?: string;
}

/**
 * When a failed request is sent again. One rule for every request to the service:
 * - 429: always, also an upload: the service refused to take the request, so it has no task
 *   for it. It is sent again after Retry-After (seconds or an HTTP date), else after an
 *   exponential back-off with jitter, and every request of the credential slows down (see
 *   pacer.ts). Waits for 429s do not use up the attempts below; they end with the request's
 *   deadline, or after MAX_THROTTLED_MS.
 * - 500, 503 and the other 5xx the service itself sends: it failed, so the request is sent again
 *   after 1, 2 and 4 s (or its Retry-After), as the spec recommends; four attempts in all.
 * - 502 and 504: a gateway answered, and the service behind it may have received the request
 *   already. A GET is sent again like a 5xx. An upload is not: sending it again could create a
 *   second task and a second charge. It fails like a connection broken after sending.
 * - No answer (timeout, broken connection): a GET is sent again like a 5xx; a POST only when
 *   it provably never left (connection refused, host not found: NOT_SENT_CODES).
 * - Any other 4xx: never; the answer says what to fix.
 */
export const GATEWAY_STATUSES = [502, 504];

/** Failures worth asking again later: a 5xx, a timeout or a network error (never a 4xx). */
const transientErrors = new WeakSet<object>();

/** Whether `error` came from a request that failed for a passing reason (5xx, timeout, network). */
export function isTransientError(error: unknown): boolean {
	return typeof error === 'object' && error !== null && transientErrors.has(error);
}

function transient<E extends Error>(error: E): E {
	transientErrors.add(error);
	return error;
}

/** What the service answered, for an error that came from one of its answers. */
export interface ServiceAnswer {
	/** The HTTP status, or null when no answer came. */
	status: number | null;
	/** The `detail` of the answer as the service sent it (a 422 field list stays a list). */
	detail: unknown;
}

const serviceAnswers = new WeakMap<object, ServiceAnswer>();

/** The status and detail of the service's answer behind `error`, if it came from one. */
export function serviceAnswerOf(error: unknown): ServiceAnswer | undefined {
	return typeof error === 'object' && error !== null ? serviceAnswers.get(error) : undefined;
}

function withAnswer<E extends Error>(error: E, answer: ServiceAnswer): E {
	serviceAnswers.set(error, answer);
	return error;
}

/** Errors of a request that had no time left to be sent before its deadline. */
const outOfTimeErrors = new WeakSet<object>();

/** Whether `error` says a request was not sent because its deadline left no time for it. */
export function isOutOfTime(error: unknown): boolean {
	return typeof error === 'object' && error !== null && outOfTimeErrors.has(error);
}

const isNetworkCode = (value: unknown): value is string =>
	typeof value === 'string' && /^E[A-Z_]+$|^UND_ERR/.test(value);

/**
 * The network error code (ECONNREFUSED, ECONNRESET, ...) of an HTTP client error, if any.
 * n8n 2.x keeps the client's error (with its `code`) as the cause of the error its request
 * helper throws; n8n 1.x keeps only the code, as the error's `httpCode`.
 */
export function networkErrorCode(error: unknown): string | undefined {
	const seen = new Set<unknown>();
	const queue: unknown[] = [error];
	while (queue.length) {
		const current = queue.shift();
		if (!current || typeof current !== 'object' || seen.has(current)) continue;
		seen.add(current);
		const { code, httpCode, cause, errorResponse, reason, context } = current as IDataObject;
		if (isNetworkCode(code)) return code;
		if (isNetworkCode(httpCode)) return httpCode;
		queue.push(cause, errorResponse, reason, context);
	}
	const message = error instanceof Error ? error.message : '';
	const named = /\b(E[A-Z]{3,}(?:_[A-Z]+)*)\b/.exec(message);
	if (named) return named[1];
	if (/timeout|timed out/i.test(message)) return 'ETIMEDOUT';
	return undefined;
}

const NETWORK_REASONS: Record<string, string> = {
	ECONNREFUSED: 'The connection was refused (ECONNREFUSED)',
	ENOTFOUND: 'The host name was not found (ENOTFOUND)',
	EAI_AGAIN: 'The host name could not be looked up (EAI_AGAIN)',
	ENETUNREACH: 'The network is unreachable (ENETUNREACH)',
	EHOSTUNREACH: 'The host is unreachable (EHOSTUNREACH)',
	ECONNRESET: 'The connection was closed unexpectedly (ECONNRESET)',
	EPIPE: 'The connection was closed while sending (EPIPE)',
};

/**
 * A reason for an error message, without the network error code: n8n replaces any message that
 * names one (ECONNRESET, ...) with its own generic text. The description keeps the code.
 */
function inMessage(reason: string): string {
	return reason
		.replace(/\s*\((?:E[A-Z_]+|UND_ERR\w*)\)/g, '')
		.replace(/\b(?:E[A-Z]{3,}(?:_[A-Z]+)*)\b/g, 'network error');
}

/** A short, plain reason for a network failure, without n8n's generic advice. */
function networkReason(code: string | undefined, failure: unknown): string {
	if (code && NETWORK_REASONS[code]) return NETWORK_REASONS[code];
	const message = (failure instanceof Error ? failure.message : '').replace(/[.\s]+$/, '');
	return message || (code ? `Network error (${code})` : 'Network error');
}

function isStream(body: unknown): body is { destroy: () => void; destroyed?: boolean } {
	return !!body && typeof (body as { destroy?: unknown }).destroy === 'function';
}

/** Closes a streamed body once its attempt is over, however it ended. */
function closeBody(body: unknown): void {
	if (isStream(body) && body.destroyed !== true) body.destroy();
}

interface FullResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/** The credential as the requests of one run use it: read and checked once per run. */
interface RunCredential {
	baseUrl: string;
	authorization: string;
	pacer: Pacer;
}

/**
 * The credential of each run (each node context), read once. Reading a credential is costly in
 * n8n (a database read and a decryption each time), so the requests of a run share one read.
 * A credential that fails the checks is remembered as its error message, which every request
 * of the run then reports for its own item.
 */
const runCredentials = new WeakMap<object, Promise<RunCredential | { refused: string }>>();

async function readCredential(ctx: ApiContext): Promise<RunCredential | { refused: string }> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	try {
		const apiKey = assertApiKeyFormat(credentials.apiKey);
		const baseUrl = readBaseUrl(credentials);
		return {
			baseUrl,
			authorization: `Bearer ${apiKey}`,
			pacer: pacerFor(baseUrl, credentials.apiKey),
		};
	} catch (error) {
		return { refused: (error as Error).message };
	}
}

function runCredential(ctx: ApiContext): Promise<RunCredential | { refused: string }> {
	let credential = runCredentials.get(ctx);
	if (!credential) {
		credential = readCredential(ctx);
		runCredentials.set(ctx, credential);
	}
	return credential;
}

function cancelSignal(ctx: ApiContext): AbortSignal | undefined {
	const withSignal = ctx as Partial<IExecuteFunctions>;
	return typeof withSignal.getExecutionCancelSignal === 'function'
		? withSignal.getExecutionCancelSignal()
		: undefined;
}

/** Milliseconds asked for by a Retry-After header (seconds or an HTTP date), if any. */
export function parseRetryAfter(header: unknown, now = Date.now()): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	const seconds = Number(value);
	const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
	if (!Number.isFinite(ms)) return undefined;
	return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

function detailOf(body: unknown): unknown {
	if (body && typeof body === 'object' && 'detail' in body) return (body as IDataObject).detail;
	if (typeof body === 'string' && body.trim() !== '') return body.trim();
	return undefined;
}

/** Renders a 422 detail list (`[{loc, msg}]`) as readable `field: message` lines. */
export function formatValidationDetail(detail: unknown): string {
	if (Array.isArray(detail)) {
		return detail
			.map((entry) => {
				if (entry && typeof entry === 'object') {
					const { loc, msg, message } = entry as IDataObject;
					const path = Array.isArray(loc)
						? loc.filter((part) => part !== 'body').join('.')
						: typeof loc === 'string'
							? loc
							: '';
					const text = String(msg ?? message ?? JSON.stringify(entry));
					return path ? `${path}: ${text}` : text;
				}
				return String(entry);
			})
			.join('\n');
	}
	if (detail && typeof detail === 'object') return JSON.stringify(detail);
	return detail === undefined ? '' : String(detail);
}

/** The longest part of a message taken from the service's detail. */
const MAX_DETAIL_IN_MESSAGE = 400;

/** The service's detail on one line, for an error message: several lines joined by "; ". */
export function detailForMessage(detail: unknown): string {
	const text = formatValidationDetail(detail)
		.split('\n')
		.map((line) => line.trim())
		.filter(Boolean)
		.join('; ');
	return text.length > MAX_DETAIL_IN_MESSAGE
		? `${text.slice(0, MAX_DETAIL_IN_MESSAGE - 1)}…`
		: text;
}

/** ": detail" for a message, or '' without a detail. */
const withDetail = (detail: unknown) => {
	const text = detailForMessage(detail);
	return text ? `: ${text.replace(/[.\s]+$/, '')}` : '';
};

function describeStatus(
	status: number,
	detail: unknown,
	options: ApiRequestOptions,
	location?: string,
	attempts = 1,
) {
	const { subject } = options;
	const action = options.action ?? 'the request';
	const detailText = formatValidationDetail(detail);
	const advice =
		status >= 400 && status < 500 && options.refusalAdvice ? ` ${options.refusalAdvice}` : '';
	switch (status) {
		case 401:
			return {
				message: `The Document Extraction Service rejected the API key (401)${withDetail(detail)}. Check the API key in the credential.${advice}`,
				description: `${detailText ? detailText + '. ' : ''}Check the API key in the Document Extraction API credential: it must be a valid, active vnd_… key from the web dashboard.${advice}`,
			};
		case 402:
			return {
				message: `The Document Extraction subscription is inactive (402)${withDetail(detail)}. Renew it in the web dashboard.${advice}`,
				description: `${detailText ? detailText + '. ' : ''}Renew the subscription in the web dashboard or contact support, then run the workflow again.${advice}`,
			};
		case 404:
			return {
				message: `Not found (404): ${detailForMessage(detail) || `${subject ?? 'the requested resource'} does not exist`}${advice}`,
				description: `The service could not find ${subject ?? 'what was asked for'}. Check the project, the document type and the task ID: they must exist in the account the API key belongs to.${advice}`,
			};
		case 422:
			return {
				message: `The Document Extraction Service refused ${action} as invalid (422)${withDetail(detail)}${advice ? `.${advice}` : ''}`,
				description: `The Document Extraction Service refused ${action} as invalid (422):\n${detailText || 'Validation failed.'}\nFix the fields named above and run again.${advice}`,
			};
		default:
			if (status >= 300 && status < 400) {
				return {
					message: `The Document Extraction Service redirected the request (${status})${location ? ` to ${location}` : ''}; set the Base URL in the credential to the address the service answers at`,
					description: `${location ? `It points to ${location}. ` : ''}Set the Base URL in the credential to the address the service answers at directly (for example https:// instead of http://).`,
				};
			}
			if (status >= 500) {
				return {
					message: `The Document Extraction Service failed with a server error (${status})${attempts > 1 ? ` after ${attempts} attempts` : ''}${withDetail(detail)}`,
					description: `${detailText ? detailText + '. ' : ''}${attempts > 1 ? 'The request was retried. ' : ''}Try again later; if it persists, contact support.`,
				};
			}
			return {
				message: `The Document Extraction Service refused ${action} with status ${status}${withDetail(detail)}${advice ? `.${advice}` : ''}`,
				description: `${detailText || 'No detail was given.'}${advice}`,
			};
	}
}

function apiError(
	ctx: ApiContext,
	response: FullResponse,
	options: ApiRequestOptions,
	attempts = 1,
) {
	const { statusCode: status, body } = response;
	const detail = detailOf(body);
	const location = response.headers?.location;
	const { message, description } = describeStatus(
		status,
		detail,
		options,
		Array.isArray(location) ? location[0] : location,
		attempts,
	);
	const errorResponse: JsonObject = {
		status,
		detail: (detail ?? null) as GenericValue as JsonObject,
	};
	return withAnswer(
		new NodeApiError(ctx.getNode(), errorResponse, {
			message,
			description,
			httpCode: String(status),
			itemIndex: options.itemIndex,
		}),
		{ status, detail: detail ?? null },
	);
}

/**
 * The error as n8n wants it thrown: a NodeApiError or NodeOperationError as is, anything else
 * as a NodeOperationError with its message only (never the original, which may hold a request).
 */
export function asNodeError(
	ctx: ApiContext,
	error: unknown,
	itemIndex: number | undefined,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof CancelledError) return cancelled(ctx, itemIndex);
	return new NodeOperationError(ctx.getNode(), (error as Error)?.message || String(error), {
		itemIndex,
	});
}

function cancelled(ctx: ApiContext, itemIndex: number | undefined): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), 'The execution was stopped', { itemIndex });
}

const seconds = (ms: number) => Math.max(1, Math.round(ms / 1000));

/** The error of a request whose deadline left no time to send it (again). */
function outOfTime(ctx: ApiContext, options: ApiRequestOptions): NodeOperationError {
	const error = new NodeOperationError(
		ctx.getNode(),
		`No time was left to send ${options.action ?? 'the request'} before the wait ran out`,
		{ itemIndex: options.itemIndex },
	);
	outOfTimeErrors.add(error);
	return transient(error);
}

/** The error of a request the service kept answering with 429 until its time ran out. */
function rateLimited(
	ctx: ApiContext,
	options: ApiRequestOptions,
	throttled: number,
	since: number,
	budgetEnded: boolean,
): NodeApiError {
	const upload =
		options.method !== 'GET' ? ` ${options.sending ?? 'the request'} was not sent` : '';
	const times = throttled === 1 ? 'once' : `${throttled} times`;
	const why = budgetEnded
		? `the node waits out rate limits for at most ${seconds(options.throttleBudgetMs ?? MAX_THROTTLED_MS)} s a request`
		: 'the time the request had (Max Wait for Submit and Wait) ran out';
	const error = new NodeApiError(
		ctx.getNode(),
		{ status: 429, detail: 'Too Many Requests' },
		{
			message: `${
				throttled
					? `The Document Extraction Service kept rate-limiting the requests (429 Too Many Requests, ${times} in ${seconds(Date.now() - since)} s)`
					: 'The Document Extraction Service is rate-limiting the requests of this credential (429 Too Many Requests to other requests)'
			};${upload || ' it was given up'}. Lower Max Concurrent Requests or send fewer items per run`,
			description: `The service limits how many requests it takes per second, and it answered "429 Too Many Requests". The node waited as the service asked and slowed all its requests down, but ${why}. Lower "Max Concurrent Requests", send fewer items per run (for example with Loop Over Items and a Wait node), raise "Max Wait" (Submit and Wait), or ask the service for a higher rate limit.`,
			httpCode: '429',
			itemIndex: options.itemIndex,
		},
	);
	return transient(withAnswer(error, { status: 429, detail: 'Too Many Requests' }));
}

/**
 * Sends one request to the Document Extraction Service. This is the only place that sends
 * requests to the service (`service.ts` names the calls). The credential is read and checked
 * once per run (the API key's format, the Base URL), like the credential's own authenticate
 * step does, and each request goes through n8n's plain request helper with the key in its
 * Authorization header: n8n's authenticated helper would read and decrypt the credential again
 * for every request, and it replaces a request's abort signal with the execution's, which would
 * undo the wall-clock timeout below. Every attempt has a wall-clock timeout (longer for uploads,
 * in proportion to their size), and no attempt starts with less than MIN_ATTEMPT_TIMEOUT_MS left
 * before the deadline. Every attempt waits for the credential's pace (pacer.ts). Which failures
 * are sent again is written down at GATEWAY_STATUSES. Every failure becomes a NodeApiError whose
 * message carries the service's `detail`, and never the request (with the API key) that was sent.
 */
export async function apiRequest<T = unknown>(
	this: ApiContext,
	options: ApiRequestOptions,
): Promise<T> {
	const credential = await runCredential(this);
	if ('refused' in credential) {
		throw new NodeOperationError(this.getNode(), credential.refused, {
			itemIndex: options.itemIndex,
		});
	}
	const { baseUrl, authorization, pacer } = credential;

	const signal = cancelSignal(this);
	const attempts = Math.max(1, options.attempts ?? RETRY_DELAYS_MS.length + 1);
	const timeoutMs = options.timeoutMs ?? requestTimeoutMs(options.bodyBytes);
	const isGet = options.method === 'GET';
	const { itemIndex } = options;
	const started = Date.now();
	const deadline = options.deadline ?? Infinity;
	const throttleDeadline = Math.min(
		deadline,
		started + (options.throttleBudgetMs ?? MAX_THROTTLED_MS),
	);
	let lastError: NodeApiError | undefined;
	let failures = 0; // 5xx answers and network errors: they use up `attempts`
	let throttled = 0; // 429 answers in a row: they do not

	try {
		for (;;) {
			throwIfCancelled(signal);
			try {
				await pacer.acquire(signal, throttleDeadline - MIN_ATTEMPT_TIMEOUT_MS);
			} catch (error) {
				// The pace holds requests back only after 429s: this one cannot start in its time.
				if (error instanceof PaceDeadlineError) {
					throw rateLimited(this, options, throttled, started, throttleDeadline < deadline);
				}
				throw asNodeError(this, error, itemIndex);
			}
			const remaining = deadline - Date.now();
			if (remaining < MIN_ATTEMPT_TIMEOUT_MS) throw lastError ?? outOfTime(this, options);
			const attemptTimeout = Math.min(timeoutMs, remaining);
			// The helper's own timeout only bounds the wait between two chunks; this one bounds
			// the whole attempt, however slowly the answer comes.
			const clock = attemptSignal(signal, attemptTimeout);
			const request: IHttpRequestOptions = {
				method: options.method,
				url: `${baseUrl}${options.path}`,
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				headers: { Accept: 'application/json', Authorization: authorization },
				// Following redirects makes the HTTP client keep every chunk of a streamed body in
				// memory, to resend it; a redirect is reported instead, naming the address to use.
				disableFollowRedirect: true,
				timeout: attemptTimeout,
				abortSignal: clock.signal,
			};
			if (typeof options.body === 'function') {
				request.body = (await options.body()) as IHttpRequestOptions['body'];
				request.headers = { ...request.headers, 'Content-Type': 'application/json' };
			} else if (options.body !== undefined) {
				request.body = options.body;
			}

			let response: FullResponse | undefined;
			let failure: unknown;
			try {
				response = (await this.helpers.httpRequest(request)) as FullResponse;
			} catch (error) {
				failure = error;
			} finally {
				clock.dispose();
				closeBody(request.body);
			}
			throwIfCancelled(signal);

			if (response?.statusCode === 429) {
				throttled++;
				const asked = parseRetryAfter(response.headers?.['retry-after']);
				pacer.onThrottled(asked ?? throttleBackoffMs(throttled));
				continue;
			}
			throttled = 0;
			let delay = RETRY_DELAYS_MS[Math.min(failures, RETRY_DELAYS_MS.length - 1)];
			failures++;
			if (response === undefined) {
				// The original error is left behind: it holds the request, with the API key.
				const code = networkErrorCode(failure);
				const timedOut = clock.timedOut() || (code !== undefined && TIMEOUT_CODES.includes(code));
				const reason = timedOut
					? `No complete answer within ${seconds(attemptTimeout)} s`
					: networkReason(code, failure);
				if (!isGet && !(code !== undefined && NOT_SENT_CODES.includes(code))) {
					throw mayHaveArrived(this, options, reason, timedOut ? 'timeout' : 'broken');
				}
				lastError = transient(
					withAnswer(
						new NodeApiError(
							this.getNode(),
							{ status: null, detail: reason },
							{
								message: timedOut
									? `The Document Extraction Service did not answer within ${seconds(attemptTimeout)} s (${failures} attempt${failures > 1 ? 's' : ''})`
									: `Could not reach the Document Extraction Service after ${failures} attempt${failures > 1 ? 's' : ''}: ${inMessage(reason)}`,
								description: `${reason}. Check the Base URL in the credential (${displayBaseUrl(baseUrl)}) and that the service is reachable from n8n.`,
								itemIndex,
							},
						),
						{ status: null, detail: reason },
					),
				);
			} else {
				const status = response.statusCode;
				pacer.onAccepted();
				if (status >= 200 && status < 300) return response.body as T;
				if (status < 500) throw apiError(this, response, options);
				if (!isGet && GATEWAY_STATUSES.includes(status)) {
					throw mayHaveArrived(this, options, `A gateway answered ${status}`, 'gateway', status);
				}
				lastError = transient(apiError(this, response, options, failures));
				delay = parseRetryAfter(response.headers?.['retry-after']) ?? delay;
			}
			if (failures >= attempts || delay + MIN_ATTEMPT_TIMEOUT_MS > deadline - Date.now()) {
				throw lastError;
			}
			await wait(delay, signal);
		}
	} catch (error) {
		throw asNodeError(this, error, itemIndex);
	}
}

/**
 * The error of a POST that may have reached the service although no good answer came back:
 * it is not sent again, and the message says what to check before sending it again.
 */
function mayHaveArrived(
	ctx: ApiContext,
	options: ApiRequestOptions,
	reason: string,
	how: 'timeout' | 'broken' | 'gateway',
	status?: number,
): NodeApiError {
	const what = options.sending ?? 'the request';
	const headline = {
		timeout: 'The Document Extraction Service did not answer in time',
		broken: 'The connection to the Document Extraction Service broke off',
		gateway: `A gateway in front of the Document Extraction Service answered ${status}`,
	}[how];
	return withAnswer(
		new NodeApiError(
			ctx.getNode(),
			{ status: status ?? null, detail: reason },
			{
				message: `${headline}; it may have received ${what}, so it was not sent again. Check the project's tasks before sending it again`,
				description: `${reason}. The service may have received ${what} and started work on it, so it was not sent again (sending it again could create a second task and a second charge). Check the tasks of the project in the web dashboard, or wait for its task.completed webhook, before you send it again.`,
				httpCode: status === undefined ? undefined : String(status),
				itemIndex: options.itemIndex,
			},
		),
		{ status: status ?? null, detail: reason },
	);
}
