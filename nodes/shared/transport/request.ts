import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';

import { displayBaseUrl } from '../credential';
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

/** Waits before the 2nd, 3rd and 4th attempt after a 5xx or a network error. */
const RETRY_DELAYS_MS = [1000, 2000, 4000];

/** An attempt's wall-clock limit, connect to last byte: a trickling answer cannot stretch it. */
const REQUEST_TIMEOUT_MS = 30_000;

/** How long 429 answers may be waited out, within the deadline. */
const MAX_THROTTLED_MS = 5 * 60_000;

/** An upload gets one more second for every this many bytes of body. */
const UPLOAD_BYTES_PER_SECOND = 256 * 1024;

type RawBody = Buffer | string | { pipe: unknown };

/** A request body: JSON data, or a factory for a raw JSON body, called again for each attempt. */
export type RequestBody = IDataObject | (() => Promise<RawBody> | RawBody);

export interface ApiRequestOptions {
	method: IHttpRequestMethods;
	path: string;
	body?: RequestBody;
	bodyBytes?: number;
	itemIndex?: number;
	taskId?: string;
	/** 4 (one and three retries) unless set. */
	attempts?: number;
	/** Epoch milliseconds by which the request, its retries and waits must be over. */
	deadline?: number;
	timeoutMs?: number;
	signal?: AbortSignal;
	/** Secrets besides the key that no text of the answer may repeat (a trigger's webhook secret). */
	secrets?: string[];
}

// Sent again: a 429 always, free of attempts; a 5xx after 1, 2, 4 s; after a gateway's 502 or 504,
// or no answer, a GET too, an upload never (a second charge) unless it never left.
const GATEWAY_STATUSES = [502, 504];

/** The exact secrets of a request: the key, a webhook secret it sends, those the caller names. */
export const secretsOf = (authorization: string, options: ApiRequestOptions) => [
	authorization.replace(/^Bearer /, ''),
	(options.body as IDataObject)?.secret,
	...(options.secrets ?? []),
];

/** Every request to the service (not n8n's authenticated helper: it would decrypt the credential
 * each time and replace the attempt's abort signal). No failure keeps the request, with the key. */
export async function apiRequest<T = unknown>(
	this: ApiContext,
	options: ApiRequestOptions,
): Promise<T> {
	const credential = await runCredential(this);
	if ('refused' in credential) {
		throw nodeError(this, 'invalid_input', credential.refused, { itemIndex: options.itemIndex });
	}
	const { baseUrl, authorization, pacer } = credential;
	const { signal, itemIndex } = options;
	const attempts = Math.max(1, options.attempts ?? RETRY_DELAYS_MS.length + 1);
	const bytes = Math.max(options.bodyBytes ?? 0, 0);
	const timeoutMs =
		options.timeoutMs ?? REQUEST_TIMEOUT_MS + Math.ceil(bytes / UPLOAD_BYTES_PER_SECOND) * 1000;
	const isGet = options.method === 'GET';
	const started = Date.now();
	const deadline = options.deadline ?? Infinity;
	const throttleDeadline = Math.min(deadline, started + MAX_THROTTLED_MS);
	const fail = (failure: Failure) =>
		new ServiceError(this.getNode(), {
			...failure,
			facts: { method: options.method, ...failure.facts },
			itemIndex,
			...(options.taskId ? { taskId: options.taskId } : {}),
			secrets: secretsOf(authorization, options),
		});
	let lastError: ServiceError | undefined;
	let failures = 0; // 5xx answers and network errors: they use up `attempts`
	let throttled = 0; // 429 answers in a row: they do not
	let lastThrottle: Answer | undefined;

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
					detail: lastThrottle && statusFailure(lastThrottle).detail,
					facts: {
						throttled: { count: throttled, sinceMs, budgetEnded, budgetMs: MAX_THROTTLED_MS },
					},
				});
			}
			const remaining = deadline - Date.now();
			if (remaining < MIN_ATTEMPT_TIMEOUT_MS) throw lastError ?? fail({ kind: 'out_of_time' });
			// An upload keeps its whole timeout: cut short, its task_id could be lost.
			const attemptTimeout = isGet ? Math.min(timeoutMs, remaining) : timeoutMs;
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
			};
			if (typeof options.body === 'function') {
				request.body = (await options.body()) as IHttpRequestOptions['body'];
				request.headers = { ...request.headers, 'Content-Type': 'application/json' };
			} else if (options.body !== undefined) {
				request.body = options.body;
			}

			const clock = attemptSignal(signal, attemptTimeout);
			request.abortSignal = clock.signal;
			let response: Answer | undefined;
			let failure: unknown;
			try {
				response = (await this.helpers.httpRequest(request)) as Answer;
			} catch (error) {
				failure = error;
			} finally {
				clock.dispose();
				const stream = request.body as { destroy?: () => void; destroyed?: boolean } | undefined;
				if (typeof stream?.destroy === 'function' && stream.destroyed !== true) stream.destroy();
			}
			throwIfCancelled(signal);

			if (response?.statusCode === 429) {
				throttled++;
				lastThrottle = response;
				// Retry-After is a floor: a 0 or a date past must not turn into a burst of requests
				const asked = parseRetryAfter(response.headers?.['retry-after']) ?? 0;
				pacer.onThrottled(Math.max(asked, throttleBackoffMs(throttled)));
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
				delay = Math.max(parseRetryAfter(response.headers?.['retry-after']) ?? 0, delay);
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
