import type { IDataObject } from 'n8n-workflow';

import { type NodeContext, ServiceError } from './errors';
import {
	CHECK_BEFORE_RESENDING,
	describeStatus,
	RETRY_LATER_ADVICE,
	type RequestWording,
	SECOND_CHARGE,
	seconds,
} from '../messages';
import { inMessage } from './network';

/**
 * The failures of a request to the service, built where the request loop (request.ts) decides
 * them: each builder names its kind once.
 */

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

/**
 * The error of an answer that is not a success: a 404 finds nothing, any other 3xx or 4xx
 * (other than 429) refuses the request; a 5xx, after `attempts`, is a failure of the service.
 */
export function statusError(
	ctx: NodeContext,
	response: ErrorResponse,
	wording: RequestWording,
	attempts = 1,
): ServiceError {
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
	return new ServiceError(ctx.getNode(), {
		kind: status >= 500 ? 'service_failed' : status === 404 ? 'not_found' : 'refused',
		message,
		description,
		status,
		detail: detail ?? null,
		itemIndex: wording.itemIndex,
	});
}

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
): ServiceError {
	const advice = wording.rateLimitAdvice ?? RETRY_LATER_ADVICE;
	const upload =
		wording.method !== 'GET' ? ` ${wording.sending ?? 'the request'} was not sent` : '';
	const times = count === 1 ? 'once' : `${count} times`;
	const why = budgetEnded
		? `the node waits out rate limits for at most ${seconds(budgetMs)} s a request`
		: advice.timeRanOut;
	return new ServiceError(ctx.getNode(), {
		kind: 'rate_limited',
		message: `${
			count
				? `The Document Extraction Service kept rate-limiting the requests (429 Too Many Requests, ${times} in ${seconds(Date.now() - since)} s)`
				: 'The Document Extraction Service is rate-limiting the requests of this credential (429 Too Many Requests to other requests)'
		};${upload || ' it was given up'}. ${advice.message}`,
		description: `The service limits how many requests it takes per second, and it answered "429 Too Many Requests". The node waited as the service asked and slowed all its requests down, but ${why}. ${advice.description}`,
		status: 429,
		detail: 'Too Many Requests',
		itemIndex: wording.itemIndex,
	});
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
): ServiceError {
	const tries = `${attempts} attempt${attempts > 1 ? 's' : ''}`;
	return new ServiceError(ctx.getNode(), {
		kind: 'no_answer',
		message:
			timedOutAfterMs !== undefined
				? `The Document Extraction Service did not answer within ${seconds(timedOutAfterMs)} s (${tries})`
				: `Could not reach the Document Extraction Service after ${tries}: ${inMessage(reason)}`,
		description: `${reason}. Check the Base URL in the credential (${shownBaseUrl}) and that the service is reachable from n8n.`,
		status: null,
		detail: reason,
		itemIndex: wording.itemIndex,
	});
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
): ServiceError {
	const what = wording.sending ?? 'the request';
	const headline = {
		timeout: 'The Document Extraction Service did not answer in time',
		broken: 'The connection to the Document Extraction Service broke off',
		gateway: `A gateway in front of the Document Extraction Service answered ${status}`,
	}[how];
	return new ServiceError(ctx.getNode(), {
		kind: 'may_have_arrived',
		message: `${headline}; it may have received ${what}, so it was not sent again. Check the project's tasks before sending it again`,
		description: `${reason}. The service may have received ${what} and started work on it, so it was not sent again (sending it again ${SECOND_CHARGE}). ${CHECK_BEFORE_RESENDING}`,
		status: status ?? null,
		detail: reason,
		itemIndex: wording.itemIndex,
	});
}

/** The error of a request whose deadline left no time to send it (again). */
export function outOfTime(ctx: NodeContext, wording: RequestWording): ServiceError {
	return new ServiceError(ctx.getNode(), {
		kind: 'out_of_time',
		message: `No time was left to send ${wording.action ?? 'the request'} before the wait ran out`,
		itemIndex: wording.itemIndex,
	});
}
