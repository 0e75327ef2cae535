import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	documentFields,
	keepInputFieldsOption,
	maxPagesOption,
	submissionOptions,
} from '../../descriptions';
import { optionsCollection } from '../../../shared/descriptions';
import type { NodeRun } from '../common/itemRunner';
import { documentOutput, processSubmissions } from '../common/submission';

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
	return await processSubmissions.call(this, run, async (unit, { submit }) => {
		const submission = await submit();
		const { fields } = submission.settings;
		return documentOutput(
			run,
			unit,
			{ task_id: submission.taskId, project: fields.project, document_type: fields.document_type },
			submission,
		);
	});
}
