import type { GenericValue, IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { type NodeContext, transient, withAnswer } from './errors';
import { inMessage } from './networkErrors';

/**
 * The errors of a request to the Document Extraction Service, with messages that carry the cause
 * and the fix (n8n shows only a message in places). The transport builds them; what they mean is
 * asked in errors.ts.
 */

/** What a request was about, for its messages. */
export interface RequestWording {
	/** The HTTP method: a POST that may have arrived is worded apart. */
	method: string;
	itemIndex?: number;
	/** What the request was about, for the 404 message, e.g. "task 1234" or "project 'Invoices'". */
	subject?: string;
	/** What a POST sends, for the message when it may have arrived, e.g. "the document". */
	sending?: string;
	/** What the request does, for messages: "the webhook registration"; "the request" unless set. */
	action?: string;
	/** A sentence added to the message of a 4xx answer: what to check. */
	refusalAdvice?: string;
	/** What to change when the service kept rate-limiting: the options of the caller. */
	rateLimitAdvice?: RateLimitAdvice;
}

/**
 * What a rate-limit error tells the user to change. The operation that sends the request says
 * it, naming its own options; a caller without such options gets RETRY_LATER_ADVICE.
 */
export interface RateLimitAdvice {
	/** The end of the message, after "it was given up." */
	message: string;
	/** The end of the description: what to change. */
	description: string;
	/** Why waiting ended when the request's own time ran out (not the rate-limit budget). */
	timeRanOut: string;
}

/** The rate-limit advice for a request whose caller has no options to change. */
export const RETRY_LATER_ADVICE: RateLimitAdvice = {
	message: 'Try again later',
	description: 'Try again later, or ask the service for a higher rate limit.',
	timeRanOut: 'the time the request had ran out',
};
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
	wording: RequestWording,
	location?: string,
	attempts = 1,
) {
	const { subject } = wording;
	const action = wording.action ?? 'the request';
	const detailText = formatValidationDetail(detail);
	const advice =
		status >= 400 && status < 500 && wording.refusalAdvice ? ` ${wording.refusalAdvice}` : '';
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

/** An answer of the service, as far as its error is concerned. */
export interface ErrorResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

function detailOf(body: unknown): unknown {
	if (body && typeof body === 'object' && 'detail' in body) return (body as IDataObject).detail;
	if (typeof body === 'string' && body.trim() !== '') return body.trim();
	return undefined;
}

/** The error of an answer that is not a success (3xx, 4xx, 5xx other than 429), after `attempts`. */
export function statusError(
	ctx: NodeContext,
	response: ErrorResponse,
	wording: RequestWording,
	attempts = 1,
): NodeApiError {
	const { statusCode: status, body } = response;
	const detail = detailOf(body);
	const location = response.headers?.location;
	const { message, description } = describeStatus(
		status,
		detail,
		wording,
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
			itemIndex: wording.itemIndex,
		}),
		{ status, detail: detail ?? null },
	);
}

/** Whole seconds for a message, at least 1. */
export const seconds = (ms: number) => Math.max(1, Math.round(ms / 1000));
/** How a request's 429 answers ended: how many, since when, and whether their own budget ran out. */
export interface Throttling {
	/** 429 answers in a row; 0 when the request could not even start for the pace. */
	count: number;
	since: number;
	/** The rate-limit budget ended, not the request's own time. */
	budgetEnded: boolean;
	/** The rate-limit budget in milliseconds. */
	budgetMs: number;
}

/** The error of a request the service kept answering with 429 until its time ran out. */
export function rateLimited(
	ctx: NodeContext,
	wording: RequestWording,
	{ count, since, budgetEnded, budgetMs }: Throttling,
): NodeApiError {
	const advice = wording.rateLimitAdvice ?? RETRY_LATER_ADVICE;
	const upload =
		wording.method !== 'GET' ? ` ${wording.sending ?? 'the request'} was not sent` : '';
	const times = count === 1 ? 'once' : `${count} times`;
	const why = budgetEnded
		? `the node waits out rate limits for at most ${seconds(budgetMs)} s a request`
		: advice.timeRanOut;
	const error = new NodeApiError(
		ctx.getNode(),
		{ status: 429, detail: 'Too Many Requests' },
		{
			message: `${
				count
					? `The Document Extraction Service kept rate-limiting the requests (429 Too Many Requests, ${times} in ${seconds(Date.now() - since)} s)`
					: 'The Document Extraction Service is rate-limiting the requests of this credential (429 Too Many Requests to other requests)'
			};${upload || ' it was given up'}. ${advice.message}`,
			description: `The service limits how many requests it takes per second, and it answered "429 Too Many Requests". The node waited as the service asked and slowed all its requests down, but ${why}. ${advice.description}`,
			httpCode: '429',
			itemIndex: wording.itemIndex,
		},
	);
	return transient(withAnswer(error, { status: 429, detail: 'Too Many Requests' }));
}

/** The error of a request that got no answer, after `attempts` (a GET, or a POST never sent). */
export function noAnswer(
	ctx: NodeContext,
	wording: RequestWording,
	{
		reason,
		timedOutAfterMs,
		attempts,
		shownBaseUrl,
	}: { reason: string; timedOutAfterMs?: number; attempts: number; shownBaseUrl: string },
): NodeApiError {
	const tries = `${attempts} attempt${attempts > 1 ? 's' : ''}`;
	return transient(
		withAnswer(
			new NodeApiError(
				ctx.getNode(),
				{ status: null, detail: reason },
				{
					message:
						timedOutAfterMs !== undefined
							? `The Document Extraction Service did not answer within ${seconds(timedOutAfterMs)} s (${tries})`
							: `Could not reach the Document Extraction Service after ${tries}: ${inMessage(reason)}`,
					description: `${reason}. Check the Base URL in the credential (${shownBaseUrl}) and that the service is reachable from n8n.`,
					itemIndex: wording.itemIndex,
				},
			),
			{ status: null, detail: reason },
		),
	);
}

/**
 * The error of a POST that may have reached the service although no good answer came back:
 * it is not sent again, and the message says what to check before sending it again.
 */
export function mayHaveArrived(
	ctx: NodeContext,
	wording: RequestWording,
	reason: string,
	how: 'timeout' | 'broken' | 'gateway',
	status?: number,
): NodeApiError {
	const what = wording.sending ?? 'the request';
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
				itemIndex: wording.itemIndex,
			},
		),
		{ status: status ?? null, detail: reason },
	);
}
