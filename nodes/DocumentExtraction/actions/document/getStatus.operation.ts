import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { isUuid, RequestLimiter } from '../../helpers/utils';
import { apiRequest } from '../../transport';
import {
	getOptions,
	optionsCollection,
	includeInputBinaryOption,
	maxConcurrencyOption,
	outputField,
	processItems,
	withInputBinary,
} from '../common';
import { concurrencyOf } from './submit.operation';

const properties: INodeProperties[] = [
	{
		displayName: 'Task ID',
		name: 'taskId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01',
		description: 'The task_id returned when the document was submitted',
	},
	outputField,
	optionsCollection([includeInputBinaryOption, maxConcurrencyOption]),
];

const displayOptions = { show: { resource: ['document'], operation: ['getStatus'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** Reads and checks the Task ID field: a UUID, refused before any request otherwise. */
export function readTaskId(this: IExecuteFunctions, itemIndex: number): string {
	const taskId = String(this.getNodeParameter('taskId', itemIndex, '') ?? '').trim();
	if (!isUuid(taskId)) {
		throw new NodeOperationError(this.getNode(), `"${taskId}" is not a task ID`, {
			itemIndex,
			description:
				'A task ID is the UUID returned by Submit Document, for example 0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01. Map the task_id field of the submitting node into "Task ID".',
		});
	}
	return taskId;
}

export async function fetchTask(
	this: IExecuteFunctions,
	taskId: string,
	itemIndex: number,
	limiter: RequestLimiter,
): Promise<IDataObject> {
	const task = await limiter.run(
		async () =>
			await apiRequest.call(this, {
				method: 'GET',
				path: `/task_status/${encodeURIComponent(taskId)}`,
				itemIndex,
				subject: `task ${taskId}`,
			}),
	);
	if (!task || typeof task !== 'object' || Array.isArray(task)) {
		throw new NodeOperationError(this.getNode(), `The service returned no task for ${taskId}`, {
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

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const limiter = new RequestLimiter(concurrencyOf.call(this));
	return await processItems.call(this, items, items.length, async (itemIndex) => {
		const taskId = readTaskId.call(this, itemIndex);
		const task = await fetchTask.call(this, taskId, itemIndex, limiter);
		const output = this.getNodeParameter('output', itemIndex, 'result') as string;
		const includeBinary = getOptions.call(this, itemIndex).includeInputBinary !== false;
		return withInputBinary(items[itemIndex], shapeTask(task, output), includeBinary, itemIndex);
	});
}
