import type { IDataObject } from 'n8n-workflow';

import { type NodeContext, ServiceError } from './errors';
import { describeStatus, FAILURES, RETRY_LATER_ADVICE, type RequestWording } from '../messages';
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
	const { message, description } = FAILURES.rateLimited({
		count,
		sinceMs: Date.now() - since,
		upload: wording.method !== 'GET' ? (wording.sending ?? 'the request') : undefined,
		why: budgetEnded ? FAILURES.rateLimitBudget(budgetMs) : advice.timeRanOut,
		advice,
	});
	return new ServiceError(ctx.getNode(), {
		kind: 'rate_limited',
		message,
		description,
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
	const { message, description } = FAILURES.noAnswer({
		reason,
		shownReason: inMessage(reason),
		timedOutAfterMs,
		attempts,
		shownBaseUrl,
	});
	return new ServiceError(ctx.getNode(), {
		kind: 'no_answer',
		message,
		description,
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
	const { message, description } = FAILURES.mayHaveArrived(how, what, reason, status);
	return new ServiceError(ctx.getNode(), {
		kind: 'may_have_arrived',
		message,
		description,
		status: status ?? null,
		detail: reason,
		itemIndex: wording.itemIndex,
	});
}

/** The error of a request whose deadline left no time to send it (again). */
export function outOfTime(ctx: NodeContext, wording: RequestWording): ServiceError {
	return new ServiceError(ctx.getNode(), {
		kind: 'out_of_time',
		message: FAILURES.outOfTime(wording.action ?? 'the request'),
		itemIndex: wording.itemIndex,
	});
}
