import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	documentFields,
	keepInputFieldsOption,
	maxPagesOption,
	submissionOptions,
} from '../../descriptions';
import { optionsCollection } from '../../../shared/descriptions';
import { type NodeRun, runUnits } from '../common/itemRunner';
import {
	documentOutput,
	type DocumentUnit,
	documentUnits,
	sendDocument,
} from '../common/submission';

const properties: INodeProperties[] = [
	...documentFields,
	{
		displayName:
			'The result comes later, through the Document Extraction Trigger or Get Status. Record the task_id output here with your own context (for example in a Data Table) to find it again then.',
		name: 'submitNotice',
		type: 'notice',
		default: '',
	},
	optionsCollection([...submissionOptions, keepInputFieldsOption, maxPagesOption]),
];

const displayOptions = { show: { resource: ['document'], operation: ['submit'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/**
 * Sends each document and outputs its task_id at once. Each upload waits out 429 answers for
 * at most MAX_THROTTLED_MS (5 minutes) and has its own request timeout; the result comes later
 * (the trigger, or Get Status).
 */
export async function execute(
	this: IExecuteFunctions,
	run: NodeRun,
): Promise<INodeExecutionData[]> {
	const unitsOf = (itemIndex: number): DocumentUnit[] => documentUnits.call(this, run, itemIndex);
	const runDocuments = runUnits<DocumentUnit>;
	return await runDocuments.call(this, run, unitsOf, async (unit) => {
		const submission = await sendDocument.call(this, run, unit);
		const { project, document_type } = submission.settings.fields;
		const json = { task_id: submission.taskId, project, document_type };
		return documentOutput(run, unit, json, submission);
	});
}
