import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { worded } from '../../../shared/explain';
import { getTask } from '../../../shared/transport/service';
import { MESSAGES } from '../../messages';
import type { NodeRun } from './itemRunner';

/** GET /task_status in the run's request slots, ahead of uploads; no slot in time: out_of_time. */
export async function fetchTask(
	this: IExecuteFunctions,
	run: NodeRun,
	taskId: string,
	itemIndex: number,
	deadline?: number,
): Promise<IDataObject> {
	let slot = false;
	try {
		slot = await run.slots.take({ priority: 'high', deadline, itemIndex });
		return await getTask.call(this, taskId, itemIndex, { deadline, signal: run.signal });
	} catch (error) {
		throw worded(error, MESSAGES.taskRequest(taskId));
	} finally {
		if (slot) run.slots.release();
	}
}

/** The output JSON of a task: its result fields when complete with "Result Only", else the task. */
export function shapeTask(task: IDataObject, output: string): IDataObject {
	if (output !== 'result' || task.status !== 'complete') return task;
	const result = task.result;
	if (result && typeof result === 'object' && !Array.isArray(result)) {
		return { ...(result as IDataObject) };
	}
	return { result: result ?? null };
}
