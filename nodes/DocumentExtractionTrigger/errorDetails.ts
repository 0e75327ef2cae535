import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { ServiceError } from '../shared/transport/errors';
import { getTask, lookupLimits } from '../shared/transport/service';
import { MESSAGES } from './messages';

/** The error message of a failed task, looked up at the service for its delivery's item. */

/**
 * Adds the error message of a failed task from GET /task_status; never loses the delivery.
 * The lookup's own deadline (lookupLimits: LOOKUP_BUDGET_MS) ends it whatever the service
 * answers (slowly, 429 with a long Retry-After, or not at all), so the run starts in time.
 */
export async function addErrorDetails(this: IWebhookFunctions, item: IDataObject): Promise<void> {
	const taskId = item.task_id;
	if (typeof taskId !== 'string' || taskId === '') {
		item.errorDetailsUnavailable = MESSAGES.errorDetails.noTaskId;
		return;
	}
	try {
		const task = (await getTask.call(this, taskId, undefined, lookupLimits())) as
			| IDataObject
			| undefined;
		const error = task && typeof task === 'object' ? task.error : undefined;
		if (typeof error === 'string' && error !== '') {
			item.error = error;
		} else {
			item.errorDetailsUnavailable = MESSAGES.errorDetails.noError;
		}
	} catch (error) {
		item.errorDetailsUnavailable = MESSAGES.errorDetails.lookupFailed((error as Error).message);
		const detail = error instanceof ServiceError ? error.detail : undefined;
		if (detail !== undefined && detail !== null) item.errorLookupDetail = detail as IDataObject;
	}
}
