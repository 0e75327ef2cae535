import type { IDataObject } from 'n8n-workflow';

/** The documented fields of a task.completed delivery, in the order they are output. */
export const DELIVERY_FIELDS = [
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
