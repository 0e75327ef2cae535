import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	includeInputBinaryOption,
	maxConcurrencyOption,
	outputField,
	taskIdField,
} from '../../descriptions';
import { optionsCollection } from '../../../shared/descriptions';
import { getOptions, withInputBinary } from '../common/items.utils';
import { fetchTask, processTasks, readTaskId, shapeTask } from '../common/task.utils';

const properties: INodeProperties[] = [
	taskIdField,
	outputField,
	optionsCollection([includeInputBinaryOption, maxConcurrencyOption]),
];

const displayOptions = { show: { resource: ['document'], operation: ['getStatus'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return await processTasks.call(this, items, async (itemIndex, limiter) => {
		const taskId = readTaskId.call(this, itemIndex);
		const task = await fetchTask.call(this, taskId, itemIndex, limiter);
		const output = this.getNodeParameter('output', itemIndex, 'result') as string;
		const includeBinary = getOptions.call(this, itemIndex).includeInputBinary !== false;
		return withInputBinary(items[itemIndex], shapeTask(task, output), includeBinary, itemIndex);
	});
}
