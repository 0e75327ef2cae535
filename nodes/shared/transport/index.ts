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
import { CancelledError, throwIfCancelled, wait } from '../wait';

export const CREDENTIAL_TYPE = 'documentExtractionApi';

/** Waits before the 2nd, 3rd and 4th attempt of a request that met a 5xx or a network error. */
export const RETRY_DELAYS_MS = [1000, 2000, 4000];

/** A Retry-After longer than this is shortened to it, so a run never hangs on one header. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** How long any request may take before it is given up: connecting, sending and answering. */
export const REQUEST_TIMEOUT_MS = 30_000;

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
}

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

function describeStatus(
	status: number,
	detail: unknown,
	subject: string | undefined,
	location?: string,
	attempts = 1,
) {
	const detailText = formatValidationDetail(detail);
	switch (status) {
		case 401:
			return {
				message: 'The Document Extraction Service rejected the API key (401)',
				description: `${detailText ? detailText + '. ' : ''}Check the API key in the Document Extraction API credential: it must be a valid, active vnd_… key from the web dashboard.`,
			};
		case 402:
			return {
				message: 'The Document Extraction subscription is inactive (402)',
				description: `${detailText ? detailText + '. ' : ''}Renew the subscription in the web dashboard or contact support, then run the workflow again.`,
			};
		case 404:
			return {
				message: `Not found (404): ${detailText || `${subject ?? 'the requested resource'} does not exist`}`,
				description: `The service could not find ${subject ?? 'what was asked for'}. Check the project, the document type and the task ID: they must exist in the account the API key belongs to.`,
			};
		case 422:
			return {
				message: 'The Document Extraction Service refused the request as invalid (422)',
				description: `${detailText || 'Validation failed.'}\nFix the fields named above and run again.`,
			};
		default:
			if (status >= 300 && status < 400) {
				return {
					message: `The Document Extraction Service redirected the request (${status})`,
					description: `${location ? `It points to ${location}. ` : ''}Set the Base URL in the credential to the address the service answers at directly (for example https:// instead of http://).`,
				};
			}
			if (status >= 500) {
				return {
					message: `The Document Extraction Service failed with a server error (${status})${attempts > 1 ? ` after ${attempts} attempts` : ''}`,
					description: `${detailText ? detailText + '. ' : ''}${attempts > 1 ? 'The request was retried. ' : ''}Try again later; if it persists, contact support.`,
				};
			}
			return {
				message: `The Document Extraction Service answered with status ${status}`,
				description: detailText || 'No detail was given.',
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
		options.subject,
		Array.isArray(location) ? location[0] : location,
		attempts,
	);
	const errorResponse: JsonObject = {
		status,
		detail: (detail ?? null) as GenericValue as JsonObject,
	};
	return new NodeApiError(ctx.getNode(), errorResponse, {
		message,
		description,
		httpCode: String(status),
		itemIndex: options.itemIndex,
	});
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

/**
 * Sends one request to the Document Extraction Service through n8n's authenticated request
 * helper. This is the only place that sends requests to the service (`service.ts` names the
 * calls). Every attempt has a timeout (longer for uploads, in proportion to their size).
 * A 5xx answer is retried after 1, 2 and 4 s (or the server's Retry-After); a GET is also
 * retried after a timeout or a network error; a POST only when the request provably never
 * reached the service (connection refused, DNS failure). A 4xx is never retried. Every
 * failure becomes a NodeApiError carrying the service's `detail` and what to do about it,
 * and never the request (with the API key) that was sent.
 */
export async function apiRequest<T = unknown>(
	this: ApiContext,
	options: ApiRequestOptions,
): Promise<T> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	let baseUrl: string;
	try {
		assertApiKeyFormat(credentials.apiKey);
		baseUrl = readBaseUrl(credentials);
	} catch (error) {
		throw new NodeOperationError(this.getNode(), (error as Error).message, {
			itemIndex: options.itemIndex,
		});
	}

	const signal = cancelSignal(this);
	const attempts = Math.max(1, options.attempts ?? RETRY_DELAYS_MS.length + 1);
	const timeoutMs = options.timeoutMs ?? requestTimeoutMs(options.bodyBytes);
	const safeToResend = options.method === 'GET';
	const { itemIndex } = options;
	let lastError: NodeApiError | undefined;
	const remaining = () =>
		options.deadline === undefined ? Infinity : options.deadline - Date.now();

	try {
		for (let attempt = 0; ; attempt++) {
			throwIfCancelled(signal);
			const attemptTimeout = Math.max(1, Math.min(timeoutMs, remaining()));
			const request: IHttpRequestOptions = {
				method: options.method,
				url: `${baseUrl}${options.path}`,
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				headers: { Accept: 'application/json' },
				// Following redirects makes the HTTP client keep every chunk of a streamed body in
				// memory, to resend it; a redirect is reported instead, naming the address to use.
				disableFollowRedirect: true,
				timeout: attemptTimeout,
			};
			if (signal) request.abortSignal = signal;
			if (typeof options.body === 'function') {
				request.body = (await options.body()) as IHttpRequestOptions['body'];
				request.headers = { ...request.headers, 'Content-Type': 'application/json' };
			} else if (options.body !== undefined) {
				request.body = options.body;
			}

			let response: FullResponse | undefined;
			let failure: unknown;
			try {
				response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					CREDENTIAL_TYPE,
					request,
				)) as FullResponse;
			} catch (error) {
				failure = error;
			} finally {
				closeBody(request.body);
			}
			throwIfCancelled(signal);

			let delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)];
			if (response === undefined) {
				// The original error is left behind: it holds the request, with the API key.
				const code = networkErrorCode(failure);
				const timedOut = code !== undefined && TIMEOUT_CODES.includes(code);
				const reason = timedOut
					? `No answer within ${Math.round(attemptTimeout / 1000)} s`
					: networkReason(code, failure);
				if (!safeToResend && !(code !== undefined && NOT_SENT_CODES.includes(code))) {
					const what = options.sending ?? 'the request';
					throw new NodeApiError(
						this.getNode(),
						{ status: null, detail: reason },
						{
							message: timedOut
								? `The Document Extraction Service did not answer in time; it may have received ${what}`
								: `The connection to the Document Extraction Service broke off; it may have received ${what}`,
							description: `${reason}. The service may have received ${what} and started work on it, so it was not sent again (sending it again could create a second task and a second charge). Check the tasks of the project in the web dashboard, or wait for its task.completed webhook, before you send it again.`,
							itemIndex,
						},
					);
				}
				lastError = transient(
					new NodeApiError(
						this.getNode(),
						{ status: null, detail: reason },
						{
							message: timedOut
								? `The Document Extraction Service did not answer within ${Math.round(attemptTimeout / 1000)} s (${attempt + 1} attempt${attempt ? 's' : ''})`
								: `Could not reach the Document Extraction Service after ${attempt + 1} attempt${attempt ? 's' : ''}`,
							description: `${reason}. Check the Base URL in the credential (${displayBaseUrl(baseUrl)}) and that the service is reachable from n8n.`,
							itemIndex,
						},
					),
				);
			} else {
				const status = response.statusCode;
				if (status >= 200 && status < 300) return response.body as T;
				if (status < 500) throw apiError(this, response, options);
				lastError = transient(apiError(this, response, options, attempt + 1));
				delay = parseRetryAfter(response.headers?.['retry-after']) ?? delay;
			}
			if (attempt + 1 >= attempts || delay >= remaining()) throw lastError;
			await wait(delay, signal);
		}
	} catch (error) {
		throw asNodeError(this, error, itemIndex);
	}
}
