import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { DOCUMENT_RATE_LIMIT_ADVICE, ERRORS } from '../../../shared/messages';
import { nodeError } from '../../../shared/transport/errors';
import { getTask } from '../../../shared/transport/service';
import type { RequestSlots } from '../../../shared/transport/slots';
import { isUuid } from '../../../shared/uuid';

/**
 * Reading tasks: the Task ID field, a task's status within the run's request slots, and the
 * output a task becomes.
 */

/** Reads and checks the Task ID field: a UUID, refused before any request otherwise. */
export function readTaskId(this: IExecuteFunctions, itemIndex: number): string {
	const taskId = String(this.getNodeParameter('taskId', itemIndex, '') ?? '').trim();
	if (!isUuid(taskId)) {
		throw nodeError(this, 'invalid_input', ERRORS.notATaskId(taskId), {
			itemIndex,
			description: ERRORS.taskIdFormat,
		});
	}
	return taskId;
}

/** When a status check must be over, and the execution's cancel signal. */
export interface CheckLimits {
	/** Epoch milliseconds by which the check must be over (Max Wait); none unless set. */
	deadline?: number;
	signal?: AbortSignal;
}

/**
 * GET /task_status for one task, within the run's request limit; the task always has its
 * task_id. Status checks go before uploads waiting for a slot. With a deadline, a slot that
 * does not come free while there is still time to ask ends the check (kind out_of_time).
 */
export async function fetchTask(
	this: IExecuteFunctions,
	taskId: string,
	itemIndex: number,
	slots: RequestSlots,
	{ deadline, signal }: CheckLimits = {},
): Promise<IDataObject> {
	const task = await slots.run(
		async () =>
			await getTask.call(this, taskId, itemIndex, {
				rateLimitAdvice: DOCUMENT_RATE_LIMIT_ADVICE,
				deadline,
				signal,
			}),
		signal,
		{ priority: 'high', deadline },
	);
	if (!task || typeof task !== 'object' || Array.isArray(task)) {
		throw nodeError(this, 'unexpected', ERRORS.noTask(taskId), {
			itemIndex,
			description: `Response: ${JSON.stringify(task)}`,
		});
	}
	return { task_id: taskId, ...(task as IDataObject) };
}

/** The output JSON for a task: its result fields when complete and "Result Only" is chosen, else the task. */
export function shapeTask(task: IDataObject, output: string): IDataObject {
	if (output === 'result' && task.status === 'complete') {
		const result = task.result;
		if (result && typeof result === 'object' && !Array.isArray(result))
			return { ...(result as IDataObject) };
		return { result: result ?? null };
	}
	return task;
}
