import type { GenericValue, IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

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

/**
 * What the transport knows of a failure besides its kind, status and detail: the facts a
 * message is made of at the edge (shared/messages.ts `explain`). No sentence is kept here.
 */
interface FailureFacts {
	/** The request's method: a POST that was not sent is worded apart. */
	method?: string;
	/** Attempts made (5xx, no answer). */
	attempts?: number;
	/** The Location of a redirect. */
	location?: string;
	/** 429 answers in a row (0: held back by the pace alone), since when, and their budget. */
	throttled?: { count: number; sinceMs: number; budgetEnded: boolean; budgetMs: number };
	/** Why no answer came (the network's reason, a timeout, a gateway's status). */
	reason?: string;
	/** The attempt's timeout, when it ran out. */
	timedOutAfterMs?: number;
	/** How a POST may have arrived. */
	how?: 'timeout' | 'broken' | 'gateway';
	/** The Base URL as shown. */
	baseUrl?: string;
	/** A download (not a request to the service) had no time left to start. */
	download?: boolean;
	/** The request slots of the run, when none came free in time. */
	slots?: number;
	/** An answer that lacks what was asked for. */
	response?: unknown;
}

export interface Failure {
	kind: FailureKind;
	/** The HTTP status of the answer behind the failure; null when none came. */
	status?: number | null;
	/** The service's `detail` as sent (a 422 field list stays a list), or the network reason. */
	detail?: unknown;
	/** The task the failure is about, when there is one. */
	taskId?: string;
	facts?: FailureFacts;
	itemIndex?: number;
}

/**
 * A failed request to the service: a NodeApiError (n8n shows it as one, under that name) that
 * carries its kind, the HTTP status, the service's detail, its task and the facts of the
 * failure. The transport throws it without a sentence; the edge (`explain`) gives it its words.
 */
export class ServiceError extends NodeApiError {
	readonly kind: FailureKind;

	/** The HTTP status of the answer behind the failure, or null when no answer came. */
	readonly status: number | null;

	/** The service's `detail` as it sent it, or the network reason; undefined when none. */
	readonly detail: unknown;

	readonly facts: FailureFacts;

	constructor(node: INode, failure: Failure) {
		const status = failure.status ?? null;
		const response: JsonObject = {};
		if (failure.detail !== undefined || failure.status !== undefined) {
			response.status = status;
			response.detail = (failure.detail ?? null) as GenericValue as JsonObject;
		}
		super(node, response, {
			message: failure.kind,
			httpCode: status === null ? undefined : String(status),
			itemIndex: failure.itemIndex,
		});
		// n8n's editor and stored executions know this error by its class name.
		this.name = 'NodeApiError';
		this.kind = failure.kind;
		this.status = status;
		this.detail = failure.detail;
		this.facts = failure.facts ?? {};
		this.context.kind = failure.kind;
		if (failure.taskId) this.context.task_id = failure.taskId;
	}
}

/** The failure of the transport an error is, or undefined for any other error. */
export function failureOf(error: unknown): ServiceError | undefined {
	const { kind, facts } = (error ?? {}) as Partial<ServiceError>;
	return isFailureKind(kind) && facts && typeof facts === 'object'
		? (error as ServiceError)
		: undefined;
}

/** An answer of the service, as far as its error is concerned. */
export interface Answer {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

function detailOf(body: unknown): unknown {
	if (body && typeof body === 'object' && 'detail' in body) return (body as IDataObject).detail;
	if (typeof body === 'string' && body.trim() !== '') return body.trim();
	return undefined;
}

/** The kind of an answer that is not a success: 5xx failed, 404 finds nothing, else refused. */
export function statusFailure(
	{ statusCode: status, body, headers }: Answer,
	attempts = 1,
): Failure {
	const location = headers?.location;
	return {
		kind: status >= 500 ? 'service_failed' : status === 404 ? 'not_found' : 'refused',
		status,
		detail: detailOf(body) ?? null,
		facts: { attempts, location: Array.isArray(location) ? location[0] : location },
	};
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

function isFailureKind(value: unknown): value is FailureKind {
	return (FAILURE_KINDS as readonly unknown[]).includes(value);
}

/** The kind of any error: the one it carries (a stop carries 'stopped'), else unexpected. */
export function failureKind(error: unknown): FailureKind {
	const { kind, context } = (error ?? {}) as { kind?: unknown; context?: IDataObject };
	if (isFailureKind(kind)) return kind;
	return isFailureKind(context?.kind) ? context.kind : 'unexpected';
}

/** Whether asking again later may succeed: a 5xx, no answer, 429, or no time left. */
export function mayPass(error: unknown): boolean {
	return PASSING.has(failureKind(error));
}

/**
 * The error as n8n wants it thrown, with its kind in its context: a NodeApiError or
 * NodeOperationError as is, a stop as a NodeApiError, anything else as a
 * NodeOperationError with its message only (never the original, which may hold a request with
 * the API key).
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
	const message = (error as Error)?.message || String(error);
	if (failureKind(error) === 'stopped') {
		const stopped = new ServiceError(ctx.getNode(), { kind: 'stopped', itemIndex });
		stopped.message = message;
		return stopped;
	}
	return nodeError(ctx, failureKind(error), message, {
		itemIndex,
		description: (error as { description?: string })?.description,
	});
}

/**
 * What an error item carries: the message and kind of `error`, with the HTTP status and the
 * service's `detail` of the answer behind it, as sent (a 422 field list stays a list).
 */
export function errorDetail(error: Error) {
	const failure = failureOf(error);
	return {
		message: error.message,
		kind: failureKind(error),
		...(typeof failure?.status === 'number' ? { httpCode: failure.status } : {}),
		...(failure?.detail != null ? { detail: failure.detail as IDataObject } : {}),
	};
}
