import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	includeInputBinaryOption,
	maxConcurrencyOption,
	outputField,
	taskIdField,
} from '../../descriptions';
import { optionsCollection } from '../../../shared/descriptions';
import { asNodeError, failureKind } from '../../../shared/transport/errors';
import { RequestSlots } from '../../../shared/transport/slots';
import { type NodeRun, outputItem, runItems } from '../common/itemRunner';
import { readOptions, readRunSettings } from '../common/settings';
import { fetchTask, readTaskId, shapeTask } from '../common/taskStatus';

/** The status output for a task the service does not know (404) with "Output Unknown Tasks as Items". */
export const NOT_FOUND_STATUS = 'not_found';

const outputNotFoundOption: INodeProperties = {
	displayName: 'Output Unknown Tasks as Items',
	name: 'outputNotFoundAsItems',
	type: 'boolean',
	default: false,
	description: `Whether a task the service answers 404 for (never known, or no longer kept) is output as an item with status "${NOT_FOUND_STATUS}" and the error text, instead of failing the item. Useful when checking many stored task IDs, so that one forgotten task does not stop the others.`,
};

const properties: INodeProperties[] = [
	taskIdField,
	outputField,
	optionsCollection([includeInputBinaryOption, maxConcurrencyOption, outputNotFoundOption]),
];

const displayOptions = { show: { resource: ['document'], operation: ['getStatus'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
	this: IExecuteFunctions,
	run: NodeRun,
): Promise<INodeExecutionData[]> {
	const { items, signal, report } = run;
	// one set of request slots for the run; all items side by side
	const slots = new RequestSlots(readRunSettings.call(this).maxConcurrency);
	const worker = async (itemIndex: number): Promise<INodeExecutionData> => {
		const options = readOptions.call(this, itemIndex);
		const taskId = readTaskId.call(this, itemIndex);
		run.asked.set(itemIndex, taskId);
		const includeInputBinary = options.includeInputBinary === true;
		let task: IDataObject;
		try {
			task = await fetchTask.call(this, taskId, itemIndex, slots, { signal });
		} catch (error) {
			if (options.outputNotFoundAsItems === true && failureKind(error) === 'not_found') {
				const json = { task_id: taskId, status: NOT_FOUND_STATUS, error: (error as Error).message };
				return outputItem(items[itemIndex], itemIndex, json, { includeInputBinary });
			}
			throw asNodeError(this, error, itemIndex);
		}
		if (task.status === 'failed') report.failedTasks++;
		const output = this.getNodeParameter('output', itemIndex, 'result') as string;
		return outputItem(items[itemIndex], itemIndex, shapeTask(task, output), { includeInputBinary });
	};
	return await runItems.call(this, run, worker);
}
