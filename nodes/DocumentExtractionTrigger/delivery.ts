import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { MESSAGES } from './messages';

/** The documented fields of a task.completed delivery, in the order they are output. */
const DELIVERY_FIELDS = [
	'event',
	'task_id',
	'status',
	'result',
	'project_id',
	'document_type',
	'timestamp',
] as const;

export type StatusFilter = 'both' | 'complete' | 'failed';

/** The JSON object in the raw body, or undefined when the body is not a JSON object. */
export function parseDeliveryBody(rawBody: Buffer): IDataObject | undefined {
	let parsed: unknown;
	try {
		parsed = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return undefined;
	}
	return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
		? (parsed as IDataObject)
		: undefined;
}

/** The output item: the documented fields as delivered, then any further fields the service sent. */
export function deliveryItem(payload: IDataObject): IDataObject {
	const item: IDataObject = {};
	for (const field of DELIVERY_FIELDS) {
		if (field in payload) item[field] = payload[field];
	}
	for (const [key, value] of Object.entries(payload)) {
		if (!(key in item)) item[key] = value;
	}
	return item;
}

export function passesStatusFilter(status: unknown, filter: StatusFilter): boolean {
	if (filter === 'complete') return status === 'complete';
	if (filter === 'failed') return status === 'failed';
	return true;
}

/** What identifies one outcome of one task, or undefined when the delivery names no task. */
export function deliveryKey(payload: IDataObject): string | undefined {
	const { task_id: taskId, status } = payload;
	if (typeof taskId !== 'string' || taskId === '') return undefined;
	return `${taskId}|${typeof status === 'string' ? status : ''}`;
}

/**
 * How far a delivery's signed timestamp may lie from n8n's clock, by default: one hour, the time
 * the trigger remembers the deliveries it accepted. It covers the service's retries (the last
 * comes about 21 s after the first attempt, plus up to 10 s of waiting per attempt) and ordinary
 * clock skew many times over; and a copy within the hour is recognised as a duplicate by the
 * process that accepted it, so a replay is either a duplicate or too old.
 */
export const DEFAULT_TIMESTAMP_TOLERANCE_MINUTES = 60;

/** ISO 8601 date and time, with or without seconds, fraction and zone (Z or ±hh:mm / ±hhmm). */
const ISO_TIMESTAMP =
	/^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Milliseconds since the epoch of an ISO 8601 timestamp, or undefined when it is not one. A
 * timestamp without a zone is read as UTC, as the service gives its times.
 */
export function parseTimestamp(value: unknown): number | undefined {
	if (typeof value !== 'string') return undefined;
	const match = ISO_TIMESTAMP.exec(value.trim());
	if (!match) return undefined;
	const [year, month, day, hour, minute, second] = match
		.slice(1, 7)
		.map((part) => Number(part ?? 0));
	const fraction = match[7] ? Math.floor(Number(`0${match[7]}`) * 1000) : 0;
	const local = Date.UTC(year, month - 1, day, hour, minute, second, fraction);
	const date = new Date(local);
	// Date.UTC rolls impossible dates and times over (February 30th, 24:61); they are not timestamps
	if (
		date.getUTCFullYear() !== year ||
		date.getUTCMonth() !== month - 1 ||
		date.getUTCDate() !== day ||
		hour > 23 ||
		minute > 59 ||
		second > 59
	) {
		return undefined;
	}
	const zone = match[8] ?? 'Z';
	if (zone.toUpperCase() === 'Z') return local;
	const [, sign, hours, minutes] = /^([+-])(\d{2}):?(\d{2})$/.exec(zone) ?? [];
	if (Number(hours) > 23 || Number(minutes) > 59) return undefined;
	const offset = (Number(hours) * 60 + Number(minutes)) * (sign === '-' ? -1 : 1);
	return local - offset * 60_000;
}

type TimestampCheck =
	| { ok: true }
	| { ok: false; reason: 'missing' | 'unreadable' }
	| { ok: false; reason: 'too old' | 'in the future'; differenceMs: number };

/**
 * Checks a verified delivery's signed `timestamp` against n8n's clock: within `toleranceMs` either
 * way (inclusive) passes; a missing or unreadable one never does. A tolerance of 0 turns the
 * check off.
 */
export function checkTimestamp(
	timestamp: unknown,
	toleranceMs: number,
	now: number = Date.now(),
): TimestampCheck {
	if (toleranceMs <= 0) return { ok: true };
	if (timestamp === undefined || timestamp === null || timestamp === '') {
		return { ok: false, reason: 'missing' };
	}
	const time = parseTimestamp(timestamp);
	if (time === undefined) return { ok: false, reason: 'unreadable' };
	const differenceMs = now - time;
	if (differenceMs > toleranceMs) return { ok: false, reason: 'too old', differenceMs };
	if (-differenceMs > toleranceMs) return { ok: false, reason: 'in the future', differenceMs };
	return { ok: true };
}

/** A duration in words for answers and logs: seconds, minutes, hours or days. */
function duration(ms: number): string {
	const seconds = Math.round(Math.abs(ms) / 1000);
	if (seconds < 120) return `${seconds} s`;
	if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
	if (seconds < 172800) return `${Math.round(seconds / 3600)} h`;
	return `${Math.round(seconds / 86400)} days`;
}

/**
 * The answer to a delivery whose timestamp failed the check. Too old or too far ahead: 200 with
 * `ignored`, like a duplicate. The service retries any other status, and the same signed bytes
 * would be refused again on every retry; a replay is acknowledged and dropped. Missing or
 * unreadable: 400, like a body that is not JSON: the delivery does not have the documented form,
 * and a failed delivery in the service's log shows it.
 */
export function timestampAnswer(
	check: Exclude<TimestampCheck, { ok: true }>,
	toleranceMs: number,
): { status: number; body: IDataObject } {
	if (!('differenceMs' in check)) {
		return {
			status: 400,
			body: {
				error: MESSAGES.answers.noTimestamp(check.reason),
			},
		};
	}
	return {
		status: 200,
		body: {
			received: true,
			ignored: MESSAGES.answers.outsideTolerance(
				check.reason,
				duration(check.differenceMs),
				duration(toleranceMs),
			),
		},
	};
}

/** The timestamp tolerance of the trigger's options, in milliseconds (0: no check). */
export function timestampToleranceMs(options: IDataObject): number {
	const minutes = options.timestampTolerance;
	const value =
		typeof minutes === 'number' && Number.isFinite(minutes) && minutes >= 0
			? minutes
			: DEFAULT_TIMESTAMP_TOLERANCE_MINUTES;
	return value * 60_000;
}

/**
 * The answer that refuses a verified delivery whose signed timestamp is missing, unreadable or
 * outside the tolerance, or undefined when it passes. A refusal is logged (without the body).
 */
export function refuseByTimestamp(
	this: IWebhookFunctions,
	payload: IDataObject,
	options: IDataObject,
	now: number = Date.now(),
): { status: number; body: IDataObject } | undefined {
	const toleranceMs = timestampToleranceMs(options);
	const check = checkTimestamp(payload.timestamp, toleranceMs, now);
	if (check.ok) return undefined;
	const answer = timestampAnswer(check, toleranceMs);
	const reason = answer.body.error ?? answer.body.ignored;
	this.logger?.warn(MESSAGES.refusedLog(String(reason)), {
		workflowId: this.getWorkflow().id,
		node: this.getNode().name,
	});
	return answer;
}
