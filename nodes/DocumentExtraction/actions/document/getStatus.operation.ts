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
import { isUuid } from '../../../shared/uuid';
import { MESSAGES, refusal } from '../../messages';
import { eachItem, type NodeRun, outputItem, runUnits, type Unit } from '../common/itemRunner';
import { readOptions } from '../common/settings';
import { fetchTask, shapeTask } from '../common/taskStatus';

const outputNotFoundOption: INodeProperties = {
	displayName: 'Output Unknown Tasks as Items',
	name: 'outputNotFoundAsItems',
	type: 'boolean',
	default: false,
	description:
		'Whether a task the service answers 404 for (never known, or no longer kept) is output as an item with status "not_found" and the error text, instead of failing the item. Useful when checking many stored task IDs, so that one forgotten task does not stop the others.',
};

const properties: INodeProperties[] = [
	taskIdField,
	outputField,
	optionsCollection([includeInputBinaryOption, maxConcurrencyOption, outputNotFoundOption]),
];

const displayOptions = { show: { resource: ['document'], operation: ['getStatus'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** Fetches each item's task, all items side by side within the run's request slots. */
export async function execute(
	this: IExecuteFunctions,
	run: NodeRun,
): Promise<INodeExecutionData[]> {
	const { items, report } = run;
	const worker = async ({ itemIndex }: Unit): Promise<INodeExecutionData> => {
		const options = readOptions.call(this, itemIndex);
		const taskId = String(this.getNodeParameter('taskId', itemIndex, '') ?? '').trim();
		if (!isUuid(taskId)) throw refusal(this, MESSAGES.notATaskId(taskId), itemIndex);
		run.asked.set(itemIndex, taskId);
		const includeInputBinary = options.includeInputBinary === true;
		let task: IDataObject;
		try {
			task = await fetchTask.call(this, run, taskId, itemIndex);
		} catch (error) {
			if (options.outputNotFoundAsItems === true && failureKind(error) === 'not_found') {
				const json = { task_id: taskId, status: 'not_found', error: (error as Error).message };
				return outputItem(items[itemIndex], itemIndex, json, { includeInputBinary });
			}
			throw asNodeError(this, error, itemIndex);
		}
		if (task.status === 'failed') report.failedTasks++;
		const output = this.getNodeParameter('output', itemIndex, 'result') as string;
		return outputItem(items[itemIndex], itemIndex, shapeTask(task, output), { includeInputBinary });
	};
	return await runUnits.call(this, run, eachItem, worker);
}
