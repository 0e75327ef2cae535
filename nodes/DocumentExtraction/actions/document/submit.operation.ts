import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { documentFields, maxPagesOption, submissionOptions } from '../../descriptions';
import { optionsCollection } from '../../../shared/descriptions';
import { outputItem } from '../common/itemRunner';
import type { RunReport } from '../common/hints';
import { processSubmissions } from '../common/submission';

const keepInputFieldsOption: INodeProperties = {
	displayName: 'Keep Input Fields',
	name: 'keepInputFields',
	type: 'boolean',
	default: false,
	description:
		'Whether to output the input item’s fields (your own context: customer, email, record ID…) together with task_id, so that the next node can record the pair, for example in a Data Table the Document Extraction Trigger’s workflow looks the task up in',
};

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

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	report?: RunReport,
): Promise<INodeExecutionData[]> {
	return await processSubmissions.call(
		this,
		items,
		async (itemIndex, { options, submit }) => {
			const { taskId, settings, downloaded } = await submit();
			const { fields, includeInputBinary } = settings;
			const context = options.keepInputFields === true ? items[itemIndex].json : {};
			return outputItem(
				items[itemIndex],
				itemIndex,
				{
					...context,
					task_id: taskId,
					project: fields.project,
					document_type: fields.document_type,
				},
				{ includeInputBinary, downloaded },
			);
		},
		report,
	);
}
