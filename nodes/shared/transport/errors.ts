import type { GenericValue, IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CancelledError } from '../wait';
import { ERRORS } from '../messages';

/**
 * The failure model of the package. Every error the nodes throw, and every error item they
 * output under "On Error → Continue", carries the failure's kind: a documented, stable name a
 * workflow can branch on (never the message, which may be reworded). A thrown error keeps it in
 * its context (`error.context.kind`, stored with the execution and given to an error
 * workflow); an error item in its `kind` field. docs/reliability.md says what to do with each.
 */
export const FAILURE_KINDS = [
	/** The service answered 3xx or 4xx (other than 404 and 429): it did not take the request. */
	'refused',
	/** The service answered 404: the task, project or document type does not exist (or no longer). */
	'not_found',
	/** The service kept answering 429 until the time for the request ran out. Nothing was created. */
	'rate_limited',
	/** No answer: a GET, or a POST that provably never left, after the retries. */
	'no_answer',
	/** The service failed with a 5xx of its own, after the retries. */
	'service_failed',
	/**
	 * A POST that may have reached the service although no good answer came back (a gateway's
	 * 502/504, a connection broken after sending, no answer in time). It is never sent again.
	 */
	'may_have_arrived',
	/** The item's deadline (Max Wait, a lookup's budget) left no time to send the request (again). */
	'out_of_time',
	/** The execution was stopped. */
	'stopped',
	/** The task ended with status failed at the service. */
	'task_failed',
	/** The item or the node's settings are wrong: the message says what to change. */
	'invalid_input',
	/** The document could not be downloaded from its URL (or its address is not allowed). */
	'download_failed',
	/** Anything else: an error the package did not foresee. */
	'unexpected',
] as const;

export type FailureKind = (typeof FAILURE_KINDS)[number];

/** Failures that may pass: asking again later may succeed (5xx, no answer, 429, no time left). */
const PASSING: ReadonlySet<FailureKind> = new Set([
	'service_failed',
	'no_answer',
	'rate_limited',
	'out_of_time',
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
		this.context.kind = spec.kind;
	}
}

/** An error of the node that is not a request's: a NodeOperationError with its kind. */
export function nodeError(
	ctx: NodeContext,
	kind: FailureKind,
	message: string,
	options: { itemIndex?: number; description?: string } = {},
): NodeOperationError {
	const error = new NodeOperationError(ctx.getNode(), message, options);
	error.context.kind = kind;
	return error;
}

/** An error whose kind the package knows, before it becomes an n8n error. */
export class KindError extends Error {
	constructor(
		readonly kind: FailureKind,
		message: string,
		readonly description?: string,
	) {
		super(message);
		this.name = 'KindError';
	}
}

function isFailureKind(value: unknown): value is FailureKind {
	return (FAILURE_KINDS as readonly unknown[]).includes(value);
}

/** The kind of any error: the one it carries, stopped for a stop, else unexpected. */
export function failureKind(error: unknown): FailureKind {
	if (error instanceof ServiceError || error instanceof KindError) return error.kind;
	if (error instanceof CancelledError) return 'stopped';
	const context = (error as { context?: IDataObject } | undefined)?.context;
	return isFailureKind(context?.kind) ? context.kind : 'unexpected';
}

/** Whether asking again later may succeed: a 5xx, no answer, 429, or no time left. */
export function mayPass(error: unknown): boolean {
	return PASSING.has(failureKind(error));
}

/** The error of a stopped execution, for the item that was running. */
export function stoppedError(ctx: NodeContext, itemIndex: number | undefined): ServiceError {
	return new ServiceError(ctx.getNode(), { kind: 'stopped', message: ERRORS.stopped, itemIndex });
}

/**
 * The error as n8n wants it thrown, with its kind in its context: a NodeApiError or
 * NodeOperationError as is, a stop as a stopped error, a KindError with its kind, anything
 * else as a NodeOperationError with its message only (never the original, which may hold a
 * request with the API key).
 */
export function asNodeError(
	ctx: NodeContext,
	error: unknown,
	itemIndex: number | undefined,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.kind ??= failureKind(error);
		return error;
	}
	if (error instanceof CancelledError) return stoppedError(ctx, itemIndex);
	const message = (error as Error)?.message || String(error);
	return nodeError(ctx, failureKind(error), message, {
		itemIndex,
		description: error instanceof KindError ? error.description : undefined,
	});
}

/** What an error item carries: the message, the kind and what the service answered. */
export interface ErrorDetail {
	message: string;
	kind: FailureKind;
	/** The HTTP status of the answer, when there was one. */
	httpCode?: number;
	/** The service's `detail` as it sent it (a 422 field list stays a list). */
	detail?: IDataObject;
}

/** The message and kind of `error`, with the status and detail of the answer behind it. */
export function errorDetail(error: Error): ErrorDetail {
	const result: ErrorDetail = { message: error.message, kind: failureKind(error) };
	if (error instanceof ServiceError) {
		if (error.status !== null) result.httpCode = error.status;
		if (error.detail !== null && error.detail !== undefined) {
			result.detail = error.detail as IDataObject;
		}
	}
	return result;
}
