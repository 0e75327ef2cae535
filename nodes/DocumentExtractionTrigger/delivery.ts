import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { MESSAGES } from './messages';
import { MAX_ENTRIES, rememberedSince } from './recentDeliveries';

/** The documented fields of a task.completed delivery, in the order they are output. */
const DELIVERY_FIELDS = [
	'event',
	'task_id',
	'status',
	'result',
	'project_id',
	'document_type',
	'timestamp',
];

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

/** The output item: the documented fields first, then any others the service sent. */
export function deliveryItem(payload: IDataObject): IDataObject {
	const item: IDataObject = {};
	for (const field of [...DELIVERY_FIELDS, ...Object.keys(payload)]) {
		if (field in payload) item[field] = payload[field];
	}
	return item;
}

/** Only a finished task's status passes, and of those what the Status option picks. */
export const passesStatusFilter = (status: unknown, filter: unknown) =>
	(status === 'complete' || status === 'failed') &&
	((filter !== 'complete' && filter !== 'failed') || status === filter);

/** The hour deliveries are remembered: a replay is a duplicate or too old; retries fit easily. */
export const DEFAULT_TIMESTAMP_TOLERANCE_MINUTES = 60;

/** ISO 8601 date and time, with or without seconds, fraction and zone (Z or ±hh:mm / ±hhmm). */
const ISO_TIMESTAMP =
	/^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|([+-])(\d{2}):?(\d{2}))?$/i;

/** Epoch milliseconds of an ISO 8601 timestamp (UTC without a zone, as the service writes them). */
function parseTimestamp(value: unknown): number | undefined {
	const match = typeof value === 'string' ? ISO_TIMESTAMP.exec(value.trim()) : null;
	if (!match) return undefined;
	const number = (part?: string) => Number(part ?? 0);
	const [year, month, day, hour, minute, second] = match.slice(1, 7).map(number);
	const [offsetHours, offsetMinutes] = match.slice(10, 12).map(number);
	const fraction = match[7] ? Math.floor(Number(`0${match[7]}`) * 1000) : 0;
	const local = Date.UTC(year, month - 1, day, hour, minute, second, fraction);
	const date = new Date(local);
	// Date.UTC rolls impossible dates and times over (February 30th, 24:61)
	const rolledOver =
		date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day;
	if (rolledOver || hour > 23 || minute > 59 || second > 59) return undefined;
	if (offsetHours > 23 || offsetMinutes > 59) return undefined;
	const offset = (offsetHours * 60 + offsetMinutes) * (match[9] === '-' ? -1 : 1);
	return local - offset * 60_000;
}

function duration(ms: number): string {
	const seconds = Math.round(Math.abs(ms) / 1000);
	if (seconds < 120) return `${seconds} s`;
	if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
	if (seconds < 172800) return `${Math.round(seconds / 3600)} h`;
	return `${Math.round(seconds / 86400)} days`;
}

/**
 * The answer to a delivery whose signed timestamp is missing or unreadable (400), or outside the
 * tolerance or the memory (200 with `ignored`: the service would retry any other status).
 */
function timestampAnswer(
	timestamp: unknown,
	options: IDataObject,
): { status: number; body: IDataObject } | undefined {
	const minutes = options.timestampTolerance;
	const toleranceMs =
		(typeof minutes === 'number' && Number.isFinite(minutes) && minutes >= 0
			? minutes
			: DEFAULT_TIMESTAMP_TOLERANCE_MINUTES) * 60_000;
	if (toleranceMs === 0) return undefined;
	const missing = timestamp === undefined || timestamp === null || timestamp === '';
	const time = parseTimestamp(timestamp);
	if (time === undefined) {
		const error = MESSAGES.answers.noTimestamp(missing ? 'missing' : 'unreadable');
		return { status: 400, body: { error } };
	}
	const differenceMs = Date.now() - time;
	const forgotten = time <= rememberedSince();
	if (!forgotten && Math.abs(differenceMs) <= toleranceMs) return undefined;
	const reason = differenceMs > 0 ? 'too old' : 'in the future';
	const ignored = forgotten
		? MESSAGES.answers.forgotten(duration(differenceMs), MAX_ENTRIES.toLocaleString('en'))
		: MESSAGES.answers.outsideTolerance(reason, duration(differenceMs), duration(toleranceMs));
	return { status: 200, body: { received: true, ignored } };
}

/** The refusal is logged, without the body. */
export function refuseByTimestamp(
	this: IWebhookFunctions,
	payload: IDataObject,
	options: IDataObject,
): { status: number; body: IDataObject } | undefined {
	const answer = timestampAnswer(payload.timestamp, options);
	if (answer) {
		const reason = String(answer.body.error ?? answer.body.ignored);
		this.logger?.warn(MESSAGES.refusedLog(reason), {
			workflowId: this.getWorkflow().id,
			node: this.getNode().name,
		});
	}
	return answer;
}
