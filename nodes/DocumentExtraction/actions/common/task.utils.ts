import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { submissionBodyFactory, type SubmissionFields } from '../../helpers/binary';
import { readDocumentInput } from '../../helpers/documentInput';
import { ConcurrencyLimiter } from '../../helpers/limiter';
import { projectText } from '../../helpers/projects';
import { isUuid } from '../../helpers/uuid';
import { getTask, submitDocument } from '../../transport/service';
import { getOptions, numberOption, positiveNumberOption, processItems } from './items.utils';

/** A document the service accepted: its task id and the fields it was submitted with. */
export interface Submission {
	taskId: string;
	fields: SubmissionFields;
	/** The document downloaded from the Document URL (URL input source). */
	downloaded?: IBinaryData;
}

/**
 * The Max Concurrent Requests option (read from the first item): how many requests the
 * node has open at once, across all items.
 */
export function concurrencyOf(this: IExecuteFunctions): number {
	return positiveNumberOption.call(this, getOptions.call(this, 0), {
		name: 'maxConcurrency',
		label: 'Max Concurrent Requests',
		fallback: 5,
		itemIndex: 0,
	});
}

/** Reads and checks the Task ID field: a UUID, refused before any request otherwise. */
export function readTaskId(this: IExecuteFunctions, itemIndex: number): string {
	const taskId = String(this.getNodeParameter('taskId', itemIndex, '') ?? '').trim();
	if (!isUuid(taskId)) {
		throw new NodeOperationError(this.getNode(), `"${taskId}" is not a task ID`, {
			itemIndex,
			description:
				'A task ID is the UUID returned by Submit Document, for example 0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01. Map the task_id field of the submitting node into "Task ID".',
		});
	}
	return taskId;
}

/** GET /task_status for one task, within the run's request limit; the task always has its task_id. */
export async function fetchTask(
	this: IExecuteFunctions,
	taskId: string,
	itemIndex: number,
	limiter: ConcurrencyLimiter,
): Promise<IDataObject> {
	const task = await limiter.run(async () => await getTask.call(this, taskId, itemIndex));
	if (!task || typeof task !== 'object' || Array.isArray(task)) {
		throw new NodeOperationError(this.getNode(), `The service returned no task for ${taskId}`, {
			itemIndex,
			description: `Response: ${JSON.stringify(task)}`,
		});
	}
	return { task_id: taskId, ...(task as IDataObject) };
}

/** The output JSON for a task: its result fields when complete and "Result Only" is chosen, else the task. */
export function shapeTask(task: IDataObject, output: string): IDataObject {
	if (output === 'result' && task.status === 'complete') {
		const result = task.result;
		if (result && typeof result === 'object' && !Array.isArray(result))
			return { ...(result as IDataObject) };
		return { result: result ?? null };
	}
	return task;
}

/** Reads the item's document and submission fields and sends POST /process_file. */
export async function submitItem(
	this: IExecuteFunctions,
	itemIndex: number,
	limiter: ConcurrencyLimiter,
): Promise<Submission> {
	const project = projectText(
		this.getNodeParameter('project', itemIndex, undefined, { extractValue: true }),
	);
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
	const maxPages = numberOption.call(this, options, {
		name: 'maxPages',
		label: 'Max Pages',
		itemIndex,
		integer: true,
	});
	if (maxPages !== undefined) fields.max_pages = maxPages;

	const { source, downloaded } = await readDocumentInput.call(this, itemIndex, options);
	const body = submissionBodyFactory.call(this, source, fields);
	const response = (await limiter.run(
		async () => await submitDocument.call(this, body, fields, itemIndex),
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
	return { taskId, fields, downloaded };
}

/**
 * Runs `worker` for every item, all side by side, with one request limiter for the run
 * (Max Concurrent Requests). The worker calls `submit` when it is ready to send its document;
 * submitted task ids are kept so that a failure that stops the run names the tasks the other
 * items had already created.
 */
export async function processSubmissions(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	worker: (
		itemIndex: number,
		submit: () => Promise<Submission>,
		limiter: ConcurrencyLimiter,
	) => Promise<INodeExecutionData>,
): Promise<INodeExecutionData[]> {
	const limiter = new ConcurrencyLimiter(concurrencyOf.call(this));
	const submittedTasks = new Map<number, string>();
	return await processItems.call(
		this,
		items,
		async (itemIndex) =>
			await worker(
				itemIndex,
				async () => {
					const submission = await submitItem.call(this, itemIndex, limiter);
					submittedTasks.set(itemIndex, submission.taskId);
					return submission;
				},
				limiter,
			),
		{ submittedTasks },
	);
}

/** Runs `worker` for every item, all side by side, with one request limiter for the run. */
export async function processTasks(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	worker: (itemIndex: number, limiter: ConcurrencyLimiter) => Promise<INodeExecutionData>,
): Promise<INodeExecutionData[]> {
	const limiter = new ConcurrencyLimiter(concurrencyOf.call(this));
	return await processItems.call(
		this,
		items,
		async (itemIndex) => await worker(itemIndex, limiter),
	);
}
