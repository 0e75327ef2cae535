import type { GenericValue, IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

// The kinds a workflow branches on (never the message): `error.context.kind`, an error item's
// `kind`. docs/reliability.md says what to do with each.
const FAILURE_KINDS = [
	'refused', // 3xx or 4xx other than 404 and 429: the service did not take the request
	'not_found', // 404
	'rate_limited', // 429 until the time for the request ran out; nothing was created
	'no_answer', // a GET, or a POST that provably never left, after the retries
	'service_failed', // a 5xx of the service itself, after the retries
	'may_have_arrived', // a POST that may have reached the service; never sent again
	'out_of_time', // the deadline left no time to send the request (again)
	'stopped',
	'task_failed',
	'invalid_input', // the item or the settings are wrong: the message says what to change
	'download_failed',
	'unexpected',
] as const;

export type FailureKind = (typeof FAILURE_KINDS)[number];

const PASSING = new Set<FailureKind>([
	'service_failed',
	'no_answer',
	'rate_limited',
	'out_of_time',
]);

export type NodeContext = { getNode(): INode };

/** What the transport knows of a failure besides its kind: facts, never a sentence. */
interface FailureFacts {
	method?: string;
	attempts?: number;
	location?: string;
	// 429 answers in a row (0: held back by the pace alone), since when, and their budget
	throttled?: { count: number; sinceMs: number; budgetEnded: boolean; budgetMs: number };
	code?: string; // the network error code, when no answer came
	networkMessage?: string; // the HTTP client's message, when no answer came
	timedOutAfterMs?: number;
	baseUrl?: string;
	download?: boolean; // a download (not a request to the service) had no time left to start
	slots?: number; // the request slots of the run, when none came free in time
	response?: unknown;
}

export interface Failure {
	kind: FailureKind;
	status?: number | null; // null when no answer came
	detail?: unknown; // the service's own text as sent (a 422 field list stays a list)
	taskId?: string;
	facts?: FailureFacts;
	itemIndex?: number;
	secrets?: unknown[]; // exact secrets of the request: the credential's key, a webhook secret
}

/** Secrets as they appear in text: keys, webhook secrets, Authorization and Bearer values. */
const SECRET_LIKE =
	/(authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic)\s+)?|bearer\s+(?=\S{8})|vnd_|whsec_)[^\s"'<>,;]+/gi;

/** A text or JSON value the service or a download sent, each secret in it replaced by "…". */
export function redact<T>(value: T, secrets: unknown[] = []): T {
	if (typeof value === 'string') {
		// a secret in any case, with or without its public prefix (vnd_, whsec_)
		const hide = (text: string, secret: unknown) => {
			if (typeof secret !== 'string' || !secret) return text;
			const body = secret.replace(/^(vnd_|whsec_)/i, '');
			const forms = body.length >= 8 && body !== secret ? [secret, body] : [secret];
			const pattern = forms.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
			return text.replace(new RegExp(pattern.join('|'), 'gi'), '…');
		};
		return secrets.reduce(hide, value).replace(SECRET_LIKE, '$1…') as T;
	}
	if (!value || typeof value !== 'object') return value;
	const copy = Object.entries(value).map(([k, v]) => [redact(k, secrets), redact(v, secrets)]);
	return (Array.isArray(value) ? copy.map(([, v]) => v) : Object.fromEntries(copy)) as T;
}

/** A failed request, thrown without a sentence: the edge (`explain`) gives it its words. */
export class ServiceError extends NodeApiError {
	readonly kind: FailureKind;

	readonly status: number | null;

	/** The service's own text as sent (its `detail`, or the answer's text); none when it gave none. */
	readonly detail: unknown;

	readonly facts: FailureFacts;

	constructor(node: INode, given: Failure) {
		const failure = redact(given, given.secrets);
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

export function failureOf(error: unknown): ServiceError | undefined {
	const { kind, facts } = (error ?? {}) as Partial<ServiceError>;
	return isFailureKind(kind) && facts && typeof facts === 'object'
		? (error as ServiceError)
		: undefined;
}

export interface Answer {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

function detailOf(body: unknown): unknown {
	if (body && typeof body === 'object' && 'detail' in body) return (body as IDataObject).detail;
	return typeof body === 'string' ? body.trim() || undefined : undefined;
}

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
	const error = new NodeOperationError(ctx.getNode(), redact(message), redact(options));
	error.context.kind = kind;
	return error;
}

function isFailureKind(value: unknown): value is FailureKind {
	return (FAILURE_KINDS as readonly unknown[]).includes(value);
}

export function failureKind(error: unknown): FailureKind {
	const { kind, context } = (error ?? {}) as { kind?: unknown; context?: IDataObject };
	if (isFailureKind(kind)) return kind;
	return isFailureKind(context?.kind) ? context.kind : 'unexpected';
}

export const mayPass = (error: unknown): boolean => PASSING.has(failureKind(error));

/** Anything but an n8n error becomes one with its message only: the original may hold the key. */
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
	const description = (error as { description?: string })?.description;
	return nodeError(ctx, failureKind(error), message, { itemIndex, description });
}

/** What an error item carries: message, kind, and the HTTP status and `detail` as sent. */
export function errorDetail(error: Error) {
	const failure = failureOf(error);
	return {
		message: error.message,
		kind: failureKind(error),
		...(typeof failure?.status === 'number' ? { httpCode: failure.status } : {}),
		...(failure?.detail != null ? { detail: failure.detail as IDataObject } : {}),
	};
}
