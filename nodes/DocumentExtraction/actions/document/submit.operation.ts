import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { documentFields, documentOptions } from '../../descriptions';
import type { NodeRun } from '../common/itemRunner';
import { submitDocuments } from '../common/submission';

const properties: INodeProperties[] = [
	...documentFields,
	{
		displayName:
			'The result comes later, through the Document Extraction Trigger or Get Status. Record the task_id output here with your own context (for example in a Data Table) to find it again then.',
		name: 'submitNotice',
		type: 'notice',
		default: '',
	},
	documentOptions(),
];

const displayOptions = { show: { resource: ['document'], operation: ['submit'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** Sends each document and outputs its task_id at once; the result comes later. */
export async function execute(
	this: IExecuteFunctions,
	run: NodeRun,
): Promise<INodeExecutionData[]> {
	return await submitDocuments.call(this, run, async (_unit, send) => {
		const { taskId, settings } = await send();
		const { project, document_type } = settings.fields;
		return { task_id: taskId, project, document_type };
	});
}
