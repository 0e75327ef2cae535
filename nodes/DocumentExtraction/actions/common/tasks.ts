import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isUrlInput, readDocumentInput } from '../../helpers/documentInput';
import { submissionBodyFactory, type SubmissionFields } from '../../helpers/requestBody';
import { projectText } from '../../../shared/projects';
import type { RateLimitAdvice } from '../../../shared/requestErrors';
import { MIN_ATTEMPT_TIMEOUT_MS } from '../../../shared/transport/request';
import { getTask, submitDocument, type RequestLimits } from '../../../shared/transport/service';
import { isUuid } from '../../../shared/uuid';
import {
	getOptions,
	NotStartedError,
	numberOption,
	numberOptionOr,
	processItems,
} from './itemRunner';
import { RequestSlots } from './requestSlots';

/** What a rate-limit error of the document operations advises: their options. */
export const RATE_LIMIT_ADVICE: RateLimitAdvice = {
	message: 'Lower Max Concurrent Requests or send fewer items per run',
	description:
		'Lower "Max Concurrent Requests", send fewer items per run (for example with Loop Over Items and a Wait node), raise "Max Wait" (Submit and Wait), or ask the service for a higher rate limit.',
	timeRanOut: 'the time the request had (Max Wait for Submit and Wait) ran out',
};

/** A document the service accepted: its task id and the fields it was submitted with. */
export interface Submission {
	taskId: string;
	fields: SubmissionFields;
	/**
	 * The document downloaded from the Document URL (URL input source), when it is to be
	 * output ("Include Downloaded File"); null for a URL input whose file is not kept, so that
	 * it is not held in memory while the item waits.
	 */
	downloaded?: IBinaryData | null;
}

/**
 * The Max Concurrent Requests option (read from the first item): how many requests the
 * node has open at once, across all items.
 */
export function concurrencyOf(this: IExecuteFunctions): number {
	return numberOptionOr.call(this, getOptions.call(this, 0), {
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

/**
 * GET /task_status for one task, within the run's request limit; the task always has its
 * task_id. Status checks go before uploads waiting for a slot. With a deadline, a slot that
 * does not come free while there is still time to ask ends the check (SlotDeadlineError).
 */
export async function fetchTask(
	this: IExecuteFunctions,
	taskId: string,
	itemIndex: number,
	slots: RequestSlots,
	limits: RequestLimits = {},
): Promise<IDataObject> {
	const grantBy =
		limits.deadline === undefined ? undefined : limits.deadline - MIN_ATTEMPT_TIMEOUT_MS;
	const task = await slots.run(
		async () =>
			await getTask.call(this, taskId, itemIndex, {
				rateLimitAdvice: RATE_LIMIT_ADVICE,
				...limits,
			}),
		this.getExecutionCancelSignal(),
		{ priority: 'high', grantBy },
	);
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

/**
 * Reads the item's document and submission fields and sends POST /process_file. When `halt`
 * is stopped by the time a request slot is free, nothing is sent (NotStartedError).
 */
export async function submitItem(
	this: IExecuteFunctions,
	itemIndex: number,
	slots: RequestSlots,
	halt: { stopped: boolean } = { stopped: false },
	throttleBudgetMs?: number,
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

	// A run stopped by an earlier failure downloads nothing more.
	if (halt.stopped) throw new NotStartedError();
	// A binary field is checked before a request slot is taken, so that a missing file fails
	// the item at once. A download shares the slot of the upload that sends it: a file is
	// fetched only when it can be sent at once, so with a limit of k no more than k files are
	// open or held for sending.
	const fromBinary = isUrlInput.call(this, itemIndex)
		? undefined
		: await readDocumentInput.call(this, itemIndex, options);
	const { response, downloaded } = await slots.run(async () => {
		if (halt.stopped) throw new NotStartedError();
		const input = fromBinary ?? (await readDocumentInput.call(this, itemIndex, options));
		const body = submissionBodyFactory.call(this, input.source, fields);
		return {
			response: (await submitDocument.call(this, body, fields, itemIndex, input.source.bodyBytes, {
				throttleBudgetMs,
				rateLimitAdvice: RATE_LIMIT_ADVICE,
			})) as IDataObject | undefined,
			downloaded:
				input.downloaded && (options.includeDownloadedFile === true ? input.downloaded : null),
		};
	}, this.getExecutionCancelSignal());
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
 * Runs `worker` for every item, all side by side, with one set of request slots for the run
 * (Max Concurrent Requests). The worker calls `submit` when it is ready to send its document;
 * submitted task ids are kept so that a failure that stops the run names the tasks the items
 * had already created. Without "Continue On Fail", no document is sent after the first
 * failure; the items already submitted finish first.
 */
export async function processSubmissions(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	worker: (
		itemIndex: number,
		/** Sends the item's document; 429 answers are waited out for `throttleBudgetMs` at most. */
		submit: (throttleBudgetMs?: number) => Promise<Submission>,
		slots: RequestSlots,
	) => Promise<INodeExecutionData>,
): Promise<INodeExecutionData[]> {
	const slots = new RequestSlots(concurrencyOf.call(this));
	const submittedTasks = new Map<number, string>();
	const halt = { stopped: false };
	return await processItems.call(
		this,
		items,
		async (itemIndex) =>
			await worker(
				itemIndex,
				async (throttleBudgetMs?: number) => {
					const submission = await submitItem.call(this, itemIndex, slots, halt, throttleBudgetMs);
					submittedTasks.set(itemIndex, submission.taskId);
					return submission;
				},
				slots,
			),
		{ submittedTasks, halt },
	);
}

/** Runs `worker` for every item, all side by side, with one set of request slots for the run. */
export async function processTasks(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	worker: (itemIndex: number, slots: RequestSlots) => Promise<INodeExecutionData>,
): Promise<INodeExecutionData[]> {
	const slots = new RequestSlots(concurrencyOf.call(this));
	return await processItems.call(this, items, async (itemIndex) => await worker(itemIndex, slots));
}
