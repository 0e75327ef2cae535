import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CancelledError } from './wait';

/**
 * What an error of the nodes means, asked in one place: whether it is transient or out of time,
 * what the service answered, how it reads as an error item, and how any error is thrown as n8n
 * wants it. The errors of a request to the service are built in requestErrors.ts.
 */

/** Anything that can say which node an error belongs to. */
export interface NodeContext {
	getNode(): INode;
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
/** Attaches the service's answer to `error`, for serviceAnswerOf. */
export function withAnswer<E extends Error>(error: E, answer: ServiceAnswer): E {
	serviceAnswers.set(error, answer);
	return error;
}

/** Failures worth asking again later: a 5xx, a timeout or a network error (never a 4xx). */
const transientErrors = new WeakSet<object>();

/** Whether `error` came from a request that failed for a passing reason (5xx, timeout, network). */
export function isTransientError(error: unknown): boolean {
	return typeof error === 'object' && error !== null && transientErrors.has(error);
}

/** Marks `error` as one worth asking again later. */
export function transient<E extends Error>(error: E): E {
	transientErrors.add(error);
	return error;
}

/** Errors of a request that had no time left to be sent before its deadline. */
const outOfTimeErrors = new WeakSet<object>();

/** Whether `error` says a request was not sent because its deadline left no time for it. */
export function isOutOfTime(error: unknown): boolean {
	return typeof error === 'object' && error !== null && outOfTimeErrors.has(error);
}

/** The error of a request whose deadline left no time to send it (again): transient, out of time. */
export function outOfTime(
	ctx: NodeContext,
	action: string | undefined,
	itemIndex: number | undefined,
): NodeOperationError {
	const error = new NodeOperationError(
		ctx.getNode(),
		`No time was left to send ${action ?? 'the request'} before the wait ran out`,
		{ itemIndex },
	);
	outOfTimeErrors.add(error);
	return transient(error);
}

/** The service's detail as a message carries it, and what it answered, for an error item. */
export interface ErrorDetail {
	message: string;
	/** The HTTP status of the service's answer, when there was one. */
	httpCode?: number;
	/** The service's `detail` as it sent it (a 422 field list stays a list). */
	detail?: IDataObject;
}

/** The message of `error` with the status and detail of the service's answer behind it. */
export function errorDetail(error: Error): ErrorDetail {
	const result: ErrorDetail = { message: error.message };
	const answer = serviceAnswerOf(error);
	if (answer) {
		if (answer.status !== null) result.httpCode = answer.status;
		if (answer.detail !== null && answer.detail !== undefined) {
			result.detail = answer.detail as IDataObject;
		}
	}
	return result;
}

/** The error of a stopped execution, for the item that was running. */
export function stoppedError(ctx: NodeContext, itemIndex: number | undefined): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), 'The execution was stopped', { itemIndex });
}

/**
 * The error as n8n wants it thrown: a NodeApiError or NodeOperationError as is, anything else
 * as a NodeOperationError with its message only (never the original, which may hold a request).
 */
export function asNodeError(
	ctx: NodeContext,
	error: unknown,
	itemIndex: number | undefined,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof CancelledError) return stoppedError(ctx, itemIndex);
	return new NodeOperationError(ctx.getNode(), (error as Error)?.message || String(error), {
		itemIndex,
	});
}
