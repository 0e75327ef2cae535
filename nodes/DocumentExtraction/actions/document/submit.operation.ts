import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	getDocumentSource,
	submissionBodyFactory,
	type SubmissionFields,
} from '../../helpers/binary';
import { projectLocator, projectValue } from '../../helpers/projects';
import { RequestLimiter } from '../../helpers/utils';
import { apiRequest } from '../../transport';
import {
	binaryPropertyField,
	documentTypeField,
	getOptions,
	optionsCollection,
	includeInputBinaryOption,
	maxConcurrencyOption,
	maxPagesOption,
	positiveNumberOption,
	processItems,
	withInputBinary,
} from '../common';

const properties: INodeProperties[] = [
	binaryPropertyField,
	projectLocator,
	documentTypeField,
	optionsCollection([includeInputBinaryOption, maxConcurrencyOption, maxPagesOption]),
];

const displayOptions = { show: { resource: ['document'], operation: ['submit'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export interface Submission {
	taskId: string;
	fields: SubmissionFields;
}

/** Reads the item's document and submission fields and sends POST /process_file. */
async function submitItem(
	this: IExecuteFunctions,
	itemIndex: number,
	limiter: RequestLimiter,
): Promise<Submission> {
	const binaryPropertyName = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
	const project = projectValue(this.getNodeParameter('project', itemIndex));
	const documentType = String(this.getNodeParameter('documentType', itemIndex, '')).trim();
	const options = getOptions.call(this, itemIndex);
	if (!project) {
		throw new NodeOperationError(this.getNode(), 'No project selected', {
			itemIndex,
			description: 'Pick a project from the list, or enter its ID or name.',
		});
	}
	if (!documentType) {
		throw new NodeOperationError(this.getNode(), 'No document type given', {
			itemIndex,
			description: 'Choose the document type to extract, for example invoice.',
		});
	}
	const fields: SubmissionFields = { project, document_type: documentType };
	if (options.maxPages !== undefined && options.maxPages !== null && options.maxPages !== '') {
		const maxPages = positiveNumberOption.call(
			this,
			options,
			'maxPages',
			'Max Pages',
			1,
			itemIndex,
		);
		if (!Number.isInteger(maxPages)) {
			throw new NodeOperationError(this.getNode(), 'Max Pages must be a whole number', {
				itemIndex,
				description: `Got ${maxPages}. Enter a whole number of pages, 1 or more.`,
			});
		}
		fields.max_pages = maxPages;
	}

	const source = await getDocumentSource.call(this, itemIndex, binaryPropertyName);
	const response = (await limiter.run(
		async () =>
			await apiRequest.call(this, {
				method: 'POST',
				path: '/process_file',
				body: submissionBodyFactory.call(this, source, fields),
				itemIndex,
				subject: `project "${project}" or document type "${documentType}"`,
			}),
	)) as IDataObject | undefined;
	const taskId = response?.task_id;
	if (typeof taskId !== 'string' || !taskId) {
		throw new NodeOperationError(
			this.getNode(),
			'The service accepted the document but returned no task_id',
			{
				itemIndex,
				description: `Response: ${JSON.stringify(response)}`,
			},
		);
	}
	return { taskId, fields };
}

export function concurrencyOf(this: IExecuteFunctions): number {
	return positiveNumberOption.call(
		this,
		getOptions.call(this, 0),
		'maxConcurrency',
		'Max Concurrent Requests',
		5,
		0,
	);
}

/**
 * Runs `worker` for every item, all side by side, with one request limiter for the run. The
 * worker calls `submit` when it is ready to send its document; submitted task ids are kept so
 * that a failure that stops the run names the tasks the other items had already created.
 */
export async function processSubmissions(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	worker: (
		itemIndex: number,
		submit: () => Promise<Submission>,
		limiter: RequestLimiter,
	) => Promise<INodeExecutionData>,
): Promise<INodeExecutionData[]> {
	const limiter = new RequestLimiter(concurrencyOf.call(this));
	const submitted = new Map<number, string>();
	return await processItems.call(
		this,
		items,
		items.length,
		async (itemIndex) =>
			await worker(
				itemIndex,
				async () => {
					const submission = await submitItem.call(this, itemIndex, limiter);
					submitted.set(itemIndex, submission.taskId);
					return submission;
				},
				limiter,
			),
		submitted,
	);
}

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
