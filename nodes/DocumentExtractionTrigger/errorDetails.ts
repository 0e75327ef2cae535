import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { worded } from '../shared/explain';
import { failureKind, failureOf } from '../shared/transport/errors';
import { getTask } from '../shared/transport/service';
import { MESSAGES } from './messages';

/** Adds a failed task's error from GET /task_status; never loses the delivery. */
export async function addErrorDetails(
	this: IWebhookFunctions,
	item: IDataObject,
	secret: string,
): Promise<void> {
	const taskId = String(item.task_id);
	let task: IDataObject | undefined;
	try {
		// Two attempts of 5 s, 15 s in all (429 waits included): the run starts in time.
		const limits = {
			attempts: 2,
			timeoutMs: 5_000,
			deadline: Date.now() + 15_000,
			secrets: [secret],
		};
		task = await getTask.call(this, taskId, undefined, limits);
	} catch (error) {
		// an answer without a task says no more than a task without an error
		if (failureKind(error) !== 'unexpected') {
			const { message } = worded(error as Error, { subject: `task ${taskId}` });
			item.errorDetailsUnavailable = MESSAGES.errorDetails.lookupFailed(message);
			const detail = failureOf(error)?.detail;
			if (detail !== undefined && detail !== null) item.errorLookupDetail = detail as IDataObject;
			return;
		}
	}
	const error = task?.error;
	if (typeof error === 'string' && error !== '') item.error = error;
	else item.errorDetailsUnavailable = MESSAGES.errorDetails.noError;
}
