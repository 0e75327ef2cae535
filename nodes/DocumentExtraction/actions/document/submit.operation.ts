import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { documentFields, maxPagesOption, submissionOptions } from '../../descriptions';
import { optionsCollection } from '../../../shared/descriptions';
import { documentOutput } from '../../helpers/documentInput';
import { getOptions } from '../common/items.utils';
import { processSubmissions } from '../common/task.utils';

const properties: INodeProperties[] = [
	...documentFields,
	optionsCollection([...submissionOptions, maxPagesOption]),
];

const displayOptions = { show: { resource: ['document'], operation: ['submit'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return await processSubmissions.call(this, items, async (itemIndex, submit) => {
		const { taskId, fields, downloaded } = await submit();
		return documentOutput(
			items[itemIndex],
			{ task_id: taskId, project: fields.project, document_type: fields.document_type },
			itemIndex,
			getOptions.call(this, itemIndex),
			downloaded,
		);
	});
}
