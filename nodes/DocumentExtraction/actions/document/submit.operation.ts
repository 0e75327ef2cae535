import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { documentFields, documentOptions } from '../../descriptions';
import type { NodeRun } from '../common/itemRunner';
import { documentOutput, documentUnits, runDocuments, sendDocument } from '../common/submission';

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
	const unitsOf = (itemIndex: number) => documentUnits.call(this, run, itemIndex);
	return await runDocuments.call(this, run, unitsOf, async (unit) => {
		const submission = await sendDocument.call(this, run, unit);
		const { project, document_type } = submission.settings.fields;
		const json = { task_id: submission.taskId, project, document_type };
		return documentOutput(run, unit, submission, json);
	});
}
