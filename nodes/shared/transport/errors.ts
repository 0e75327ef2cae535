import type { GenericValue, IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CancelledError } from '../wait';

/**
 * The one error a request to the Document Extraction Service fails with. The transport decides
 * what a failure is, once, where it happens, and says it as `kind`; every caller reads `kind`
 * (never the message or the status) to decide what to do. Its messages are in messages.ts.
 */

/** What a failed request is. */
export type FailureKind =
	/** The service answered 3xx or 4xx (other than 429): it did not take the request. */
	| 'refused'
	/** The service failed with a 5xx of its own, after the retries. */
	| 'serviceFailed'
	/** No answer: a GET, or a POST that provably never left, after the retries. */
	| 'noAnswer'
	/**
	 * A POST that may have reached the service although no good answer came back (a gateway's
	 * 502/504, a connection broken after sending, no answer in time). It is never sent again.
	 */
	| 'mayHaveArrived'
	/** The service kept answering 429 until the time for the request ran out. */
	| 'rateLimited'
	/** The request's deadline (Max Wait, a lookup's budget) left no time to send it (again). */
	| 'outOfTime'
	/** The execution was stopped. */
	| 'stopped';

/** Failures that may pass: asking again later may succeed (5xx, no answer, 429, no time left). */
const PASSING: ReadonlySet<FailureKind> = new Set([
	'serviceFailed',
	'noAnswer',
	'rateLimited',
	'outOfTime',
]);

/** Anything that can say which node an error belongs to. */
export interface NodeContext {
	getNode(): INode;
}

export interface ServiceErrorSpec {
	kind: FailureKind;
	message: string;
	description?: string;
	/** The HTTP status of the service's (or a gateway's) answer; null when none came. */
	status?: number | null;
	/** The service's `detail` as sent (a 422 field list stays a list), or the network reason. */
	detail?: unknown;
	itemIndex?: number;
}

/**
 * A failed request to the service: a NodeApiError (n8n shows it as one, under that name) that
 * carries its kind, the HTTP status and the service's detail.
 */
export class ServiceError extends NodeApiError {
	readonly kind: FailureKind;

	/** The HTTP status of the answer behind the failure, or null when no answer came. */
	readonly status: number | null;

	/** The service's `detail` as it sent it, or the network reason; undefined when none. */
	readonly detail: unknown;

	constructor(node: INode, spec: ServiceErrorSpec) {
		const status = spec.status ?? null;
		const response: JsonObject = {};
		if (spec.detail !== undefined || spec.status !== undefined) {
			response.status = status;
			response.detail = (spec.detail ?? null) as GenericValue as JsonObject;
		}
		super(node, response, {
			message: spec.message,
			description: spec.description,
			httpCode: status === null ? undefined : String(status),
			itemIndex: spec.itemIndex,
		});
		// n8n's editor and stored executions know this error by its class name.
		this.name = 'NodeApiError';
		this.kind = spec.kind;
		this.status = status;
		this.detail = spec.detail;
	}
}

/** The kind of a failed request, or undefined for any other error. */
export function failureKind(error: unknown): FailureKind | undefined {
	return error instanceof ServiceError ? error.kind : undefined;
}

/** Whether asking again later may succeed: a 5xx, no answer, 429, or no time left. */
export function mayPass(error: unknown): boolean {
	const kind = failureKind(error);
	return kind !== undefined && PASSING.has(kind);
}

/** The error of a stopped execution, for the item that was running. */
export function stoppedError(ctx: NodeContext, itemIndex: number | undefined): ServiceError {
	return new ServiceError(ctx.getNode(), {
		kind: 'stopped',
		message: 'The execution was stopped',
		itemIndex,
	});
}

/**
 * The error as n8n wants it thrown: a NodeApiError or NodeOperationError as is, a stop as a
 * stopped error, anything else as a NodeOperationError with its message only (never the
 * original, which may hold a request with the API key).
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

/** The message of an error with the status and detail of the answer behind it, for an error item. */
export interface ErrorDetail {
	message: string;
	/** The HTTP status of the answer, when there was one. */
	httpCode?: number;
	/** The service's `detail` as it sent it (a 422 field list stays a list). */
	detail?: IDataObject;
}

/** The message of `error` with the status and detail of the answer behind it. */
export function errorDetail(error: Error): ErrorDetail {
	const result: ErrorDetail = { message: error.message };
	if (error instanceof ServiceError) {
		if (error.status !== null) result.httpCode = error.status;
		if (error.detail !== null && error.detail !== undefined) {
			result.detail = error.detail as IDataObject;
		}
	}
	return result;
}
