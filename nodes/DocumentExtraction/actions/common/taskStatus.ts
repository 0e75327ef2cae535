import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { explain } from '../../../shared/explain';
import { getTask } from '../../../shared/transport/service';
import { MESSAGES } from '../../messages';
import type { NodeRun } from './itemRunner';

/** Reading tasks, the code Get Status and Submit and Wait share. */

/**
 * GET /task_status for one task, within the run's request slots (status checks go before
 * uploads waiting for one); the task always has its task_id. With a deadline, a slot that does
 * not come free while there is still time to ask ends the check (kind out_of_time).
 */
export async function fetchTask(
	this: IExecuteFunctions,
	run: NodeRun,
	taskId: string,
	itemIndex: number,
	deadline?: number,
): Promise<IDataObject> {
	const { signal } = run;
	try {
		return await run.slots.run(
			async () => await getTask.call(this, taskId, itemIndex, { deadline, signal }),
			{ priority: 'high', deadline, itemIndex },
		);
	} catch (error) {
		throw explain(error, MESSAGES.taskRequest(taskId));
	}
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
