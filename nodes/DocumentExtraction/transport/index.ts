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
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { assertApiKeyFormat } from '../../../credentials/DocumentExtractionApi.credentials';

export const CREDENTIAL_TYPE = 'documentExtractionApi';

/** Waits before the 2nd, 3rd and 4th attempt of a request that met a 5xx or a network error. */
export const RETRY_DELAYS_MS = [1000, 2000, 4000];

/** A Retry-After longer than this is shortened to it, so a run never hangs on one header. */
export const MAX_RETRY_AFTER_MS = 60_000;

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
}

interface FullResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/** Normalises the credential's base URL: trims it and drops trailing slashes. */
export function normalizeBaseUrl(raw: unknown): string {
	const value = typeof raw === 'string' ? raw.trim().replace(/\/+$/, '') : '';
	if (!/^https?:\/\/[^/\s]+/i.test(value)) {
		throw new Error(
			`The Base URL of the Document Extraction API credential must start with http:// or https:// (got "${String(raw ?? '')}"). ` +
				'Enter the address of the service, for example https://api.example.com.',
		);
	}
	return value;
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
					message: `The Document Extraction Service failed with a server error (${status}) after ${RETRY_DELAYS_MS.length + 1} attempts`,
					description: `${detailText ? detailText + '. ' : ''}The request was retried after ${RETRY_DELAYS_MS.map((ms) => ms / 1000).join(', ')} s. Try again later; if it persists, contact support.`,
				};
			}
			return {
				message: `The Document Extraction Service answered with status ${status}`,
				description: detailText || 'No detail was given.',
			};
	}
}

function apiError(ctx: ApiContext, response: FullResponse, options: ApiRequestOptions) {
	const { statusCode: status, body } = response;
	const detail = detailOf(body);
	const location = response.headers?.location;
	const { message, description } = describeStatus(
		status,
		detail,
		options.subject,
		Array.isArray(location) ? location[0] : location,
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

function isCancelled(signal: AbortSignal | undefined): boolean {
	return signal?.aborted === true;
}

/**
 * Sends one request to the Document Extraction Service through n8n's authenticated request
 * helper. This is the only place that sends requests to the service (`service.ts` names the
 * calls): it retries 5xx answers (after 1, 2 and 4 s, or the server's Retry-After) and network
 * errors (after 1, 2 and 4 s), never retries a 4xx, and turns every failure into a
 * NodeApiError carrying the service's `detail` and what to do about it.
 */
export async function apiRequest<T = unknown>(
	this: ApiContext,
	options: ApiRequestOptions,
): Promise<T> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	let baseUrl: string;
	try {
		assertApiKeyFormat(credentials.apiKey);
		baseUrl = normalizeBaseUrl(credentials.baseUrl);
	} catch (error) {
		throw new NodeOperationError(this.getNode(), (error as Error).message, {
			itemIndex: options.itemIndex,
		});
	}

	const signal = cancelSignal(this);
	for (let attempt = 0; ; attempt++) {
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
		};
		if (typeof options.body === 'function') {
			request.body = (await options.body()) as IHttpRequestOptions['body'];
			request.headers = { ...request.headers, 'Content-Type': 'application/json' };
		} else if (options.body !== undefined) {
			request.body = options.body;
		}

		let response: FullResponse;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				request,
			)) as FullResponse;
		} catch (error) {
			if (isCancelled(signal)) {
				throw new NodeOperationError(this.getNode(), error as Error, {
					itemIndex: options.itemIndex,
				});
			}
			if (attempt < RETRY_DELAYS_MS.length) {
				await sleep(RETRY_DELAYS_MS[attempt], signal);
				continue;
			}
			const reason = (error as Error).message || 'network error';
			throw new NodeApiError(
				this.getNode(),
				{ status: null, detail: reason },
				{
					message: `Could not reach the Document Extraction Service after ${RETRY_DELAYS_MS.length + 1} attempts`,
					description: `${reason}. Check the Base URL in the credential (${baseUrl}) and that the service is reachable from n8n.`,
					itemIndex: options.itemIndex,
				},
			);
		}

		const status = response.statusCode;
		if (status >= 200 && status < 300) return response.body as T;
		if (status >= 500 && attempt < RETRY_DELAYS_MS.length) {
			const wait = parseRetryAfter(response.headers?.['retry-after']) ?? RETRY_DELAYS_MS[attempt];
			await sleep(wait, signal);
			continue;
		}
		throw apiError(this, response, options);
	}
}
