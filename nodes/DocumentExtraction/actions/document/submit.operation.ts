import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	binaryPropertyField,
	documentTypeField,
	includeInputBinaryOption,
	maxConcurrencyOption,
	maxPagesOption,
	optionsCollection,
	projectLocator,
} from '../../descriptions';
import { getOptions, withInputBinary } from '../common/items.utils';
import { processSubmissions } from '../common/task.utils';

const properties: INodeProperties[] = [
	binaryPropertyField,
	projectLocator,
	documentTypeField,
	optionsCollection([includeInputBinaryOption, maxConcurrencyOption, maxPagesOption]),
];

const displayOptions = { show: { resource: ['document'], operation: ['submit'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return await processSubmissions.call(this, items, async (itemIndex, submit) => {
		const { taskId, fields } = await submit();
		const includeBinary = getOptions.call(this, itemIndex).includeInputBinary !== false;
		return withInputBinary(
			items[itemIndex],
			{ task_id: taskId, project: fields.project, document_type: fields.document_type },
			includeBinary,
			itemIndex,
		);
	});
}
