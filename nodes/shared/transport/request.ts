import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';

import { displayBaseUrl } from '../baseUrl';
import { attemptSignal, throwIfCancelled, wait } from '../wait';
import { type ApiContext, runCredential } from './runCredential';
import {
	type Answer,
	asNodeError,
	type Failure,
	nodeError,
	ServiceError,
	statusFailure,
} from './errors';
import { isTimeoutCode, networkErrorCode, provablyNotSent } from './network';
import { parseRetryAfter, throttleBackoffMs } from './pacer';
import { latestStart, MIN_ATTEMPT_TIMEOUT_MS } from './deadline';

/** Waits before the 2nd, 3rd and 4th attempt of a request that met a 5xx or a network error. */
const RETRY_DELAYS_MS = [1000, 2000, 4000];

/**
 * How long any request may take before it is given up, by the wall clock: from connecting
 * to the last byte of the answer. A service that trickles its answer cannot stretch it.
 */
const REQUEST_TIMEOUT_MS = 30_000;

/** How long one request waits out 429 answers, unless its deadline (Max Wait) says otherwise. */
const MAX_THROTTLED_MS = 5 * 60_000;

/** An upload gets REQUEST_TIMEOUT_MS plus one second for every this many bytes of body. */
const UPLOAD_BYTES_PER_SECOND = 256 * 1024;

/** The timeout of a request whose body has `bytes` bytes: longer for larger uploads. */
function requestTimeoutMs(bytes = 0): number {
	return REQUEST_TIMEOUT_MS + Math.ceil(Math.max(bytes, 0) / UPLOAD_BYTES_PER_SECOND) * 1000;
}

type RawBody = Buffer | string | { pipe: unknown };

/** A request body: JSON data, or a factory for a raw JSON body, called again for each attempt. */
export type RequestBody = IDataObject | (() => Promise<RawBody> | RawBody);

export interface ApiRequestOptions {
	method: IHttpRequestMethods;
	/** Path below the base URL, starting with a slash. */
	path: string;
	body?: RequestBody;
	/** Size of the body in bytes, for the timeout of an upload. */
	bodyBytes?: number;
	/** The item the request is for, named by its error. */
	itemIndex?: number;
	/** The task the request is about, carried by its error. */
	taskId?: string;
	/** How many attempts at most; 4 (one and three retries) unless set. */
	attempts?: number;
	/** Epoch milliseconds by which the request, its retries and waits must be over. */
	deadline?: number;
	/** Overrides the timeout of each attempt. */
	timeoutMs?: number;
	/** How long 429 answers may be waited out (MAX_THROTTLED_MS unless set); within `deadline`. */
	throttleBudgetMs?: number;
	/** The execution's cancel signal: a stopped execution ends the request and its waits at once. */
	signal?: AbortSignal;
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
 *   it provably never left (connection refused, host not found: network.ts).
 * - Any other 4xx: never; the answer says what to fix.
 */
const GATEWAY_STATUSES = [502, 504];

/** Closes a streamed body once its attempt is over, however it ended. */
function closeBody(body: unknown): void {
	const stream = body as { destroy?: () => void; destroyed?: boolean } | undefined;
	if (typeof stream?.destroy === 'function' && stream.destroyed !== true) stream.destroy();
}

/**
 * Sends one request to the Document Extraction Service. This is the only place that sends
 * requests to the service (`service.ts` names the calls). The credential is read and checked
 * once per run (the API key's format and the Base URL, as the credential's own authenticate
 * step checks them), and each request goes through n8n's plain request helper with the key in
 * its Authorization header: n8n's authenticated helper would read and decrypt the credential
 * again for every request, and it replaces a request's abort signal with the execution's, which
 * would undo the wall-clock timeout below. Every attempt has a wall-clock timeout (longer for
 * uploads, in proportion to their size), and no attempt starts with less than
 * MIN_ATTEMPT_TIMEOUT_MS left before the deadline. Every attempt waits for the credential's pace
 * (pacer.ts). Which failures are sent again is written down at GATEWAY_STATUSES. Every failure
 * is decided here, once, and thrown as a ServiceError of its kind (errors.ts) with the facts
 * its message is made of at the edge, and never the request (with the API key) that was sent.
 */
export async function apiRequest<T = unknown>(
	this: ApiContext,
	options: ApiRequestOptions,
): Promise<T> {
	const credential = await runCredential(this);
	if ('refused' in credential) {
		throw nodeError(this, 'invalid_input', credential.refused, { itemIndex: options.itemIndex });
	}
	const { baseUrl, authorization, pacer } = credential;
	const { signal } = options;
	const attempts = Math.max(1, options.attempts ?? RETRY_DELAYS_MS.length + 1);
	const timeoutMs = options.timeoutMs ?? requestTimeoutMs(options.bodyBytes);
	const isGet = options.method === 'GET';
	const { itemIndex } = options;
	const started = Date.now();
	const deadline = options.deadline ?? Infinity;
	const throttleBudgetMs = options.throttleBudgetMs ?? MAX_THROTTLED_MS;
	const throttleDeadline = Math.min(deadline, started + throttleBudgetMs);
	const fail = (failure: Failure) =>
		new ServiceError(this.getNode(), {
			...failure,
			facts: { method: options.method, ...failure.facts },
			itemIndex,
			...(options.taskId ? { taskId: options.taskId } : {}),
		});
	let lastError: ServiceError | undefined;
	let failures = 0; // 5xx answers and network errors: they use up `attempts`
	let throttled = 0; // 429 answers in a row: they do not

	try {
		for (;;) {
			throwIfCancelled(signal);
			// The pace holds requests back only after 429s: this one cannot start in its time.
			if (!(await pacer.acquire(signal, latestStart(throttleDeadline)))) {
				const budgetEnded = throttleDeadline < deadline;
				const sinceMs = Date.now() - started;
				throw fail({
					kind: 'rate_limited',
					status: 429,
					detail: 'Too Many Requests',
					facts: {
						throttled: { count: throttled, sinceMs, budgetEnded, budgetMs: throttleBudgetMs },
					},
				});
			}
			const remaining = deadline - Date.now();
			if (remaining < MIN_ATTEMPT_TIMEOUT_MS) throw lastError ?? fail({ kind: 'out_of_time' });
			// A GET ends with the deadline. An upload, once started, keeps its whole timeout: cut
			// short, it could leave a task at the service whose task_id never came back. One
			// timer bounds the whole attempt, however slowly the answer comes.
			const attemptTimeout = isGet ? Math.min(timeoutMs, remaining) : timeoutMs;
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
				abortSignal: clock.signal,
			};
			if (typeof options.body === 'function') {
				request.body = (await options.body()) as IHttpRequestOptions['body'];
				request.headers = { ...request.headers, 'Content-Type': 'application/json' };
			} else if (options.body !== undefined) {
				request.body = options.body;
			}

			let response: Answer | undefined;
			let failure: unknown;
			try {
				response = (await this.helpers.httpRequest(request)) as Answer;
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
				const facts = {
					code,
					networkMessage: failure instanceof Error ? failure.message : undefined,
					timedOutAfterMs: clock.timedOut() || isTimeoutCode(code) ? attemptTimeout : undefined,
				};
				if (!isGet && !provablyNotSent(code)) {
					throw fail({ kind: 'may_have_arrived', status: null, facts });
				}
				const more = { attempts: failures, baseUrl: displayBaseUrl(baseUrl) };
				lastError = fail({ kind: 'no_answer', status: null, facts: { ...facts, ...more } });
			} else {
				const status = response.statusCode;
				pacer.onAccepted();
				if (status >= 200 && status < 300) return response.body as T;
				if (status < 500) throw fail(statusFailure(response));
				if (!isGet && GATEWAY_STATUSES.includes(status)) {
					throw fail({ kind: 'may_have_arrived', status });
				}
				lastError = fail(statusFailure(response, failures));
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
