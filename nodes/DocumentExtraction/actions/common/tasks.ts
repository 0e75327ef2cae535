import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readDocumentInput } from '../../helpers/documentInput';
import { documentFingerprint, submissionMemory } from '../../helpers/submissionMemory';
import { submissionBodyFactory } from '../../helpers/requestBody';
import type { RateLimitAdvice } from '../../../shared/requestErrors';
import { asNodeError } from '../../../shared/errors';
import { MIN_ATTEMPT_TIMEOUT_MS } from '../../../shared/transport/request';
import { getTask, submitDocument, type RequestLimits } from '../../../shared/transport/service';
import { isUuid } from '../../../shared/uuid';
import { NotStartedError, processItems } from './itemRunner';
import { RequestSlots } from './requestSlots';
import {
	readOptions,
	readRunSettings,
	readSubmissionSettings,
	type SubmissionSettings,
} from './settings';

/** What a rate-limit error of the document operations advises: their options. */
export const RATE_LIMIT_ADVICE: RateLimitAdvice = {
	message: 'Lower Max Concurrent Requests or send fewer items per run',
	description:
		'Lower "Max Concurrent Requests", send fewer items per run (for example with Loop Over Items and a Wait node), raise "Max Wait" (Submit and Wait), or ask the service for a higher rate limit.',
	timeRanOut: 'the time the request had (Max Wait for Submit and Wait) ran out',
};

/** A document the service accepted: its task id and the settings it was submitted with. */
export interface Submission {
	taskId: string;
	settings: SubmissionSettings;
	/**
	 * The document downloaded from the Document URL (URL input source), when it is to be
	 * output ("Include Downloaded File"); null for a URL input whose file is not kept, so that
	 * it is not held in memory while the item waits.
	 */
	downloaded?: IBinaryData | null;
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
 * Reads the item's document and sends POST /process_file with the item's settings. When `halt`
 * is stopped by the time a request slot is free, nothing is sent (NotStartedError).
 */
export async function submitItem(
	this: IExecuteFunctions,
	itemIndex: number,
	settings: SubmissionSettings,
	slots: RequestSlots,
	halt: { stopped: boolean } = { stopped: false },
	throttleBudgetMs?: number,
): Promise<Submission> {
	const { fields, source } = settings;
	// A binary field is checked before a request slot is taken, so that a missing file fails
	// the item at once. A download shares the slot of the upload that sends it: a file is
	// fetched only when it can be sent at once, so with a limit of k no more than k files are
	// open or held for sending.
	const fromBinary = source.urlInput
		? undefined
		: await readDocumentInput.call(this, itemIndex, source);
	// A document an earlier try of this node already delivered is not sent again (Retry On Fail).
	const memory = submissionMemory.call(
		this,
		itemIndex,
		fields,
		documentFingerprint(
			fromBinary?.source,
			source.urlInput ? String(source.documentUrl ?? '').trim() : undefined,
		),
	);
	const earlierTask = memory.recall();
	if (earlierTask !== undefined) {
		return {
			taskId: earlierTask,
			settings,
			downloaded: !source.urlInput
				? undefined
				: settings.includeDownloadedFile
					? ((await readDocumentInput.call(this, itemIndex, source)).downloaded ?? null)
					: null,
		};
	}
	// A run stopped by an earlier failure downloads nothing more.
	if (halt.stopped) throw new NotStartedError();
	const { response, downloaded } = await slots.run(async () => {
		if (halt.stopped) throw new NotStartedError();
		const input = fromBinary ?? (await readDocumentInput.call(this, itemIndex, source));
		const body = submissionBodyFactory.call(this, input.source, fields);
		let answer: IDataObject | undefined;
		try {
			answer = (await submitDocument.call(this, body, fields, itemIndex, input.source.bodyBytes, {
				throttleBudgetMs,
				rateLimitAdvice: RATE_LIMIT_ADVICE,
			})) as IDataObject | undefined;
		} catch (error) {
			memory.failed(error);
			throw asNodeError(this, error, itemIndex);
		}
		if (typeof answer?.task_id === 'string' && answer.task_id) memory.accepted(answer.task_id);
		return {
			response: answer,
			downloaded: input.downloaded && (settings.includeDownloadedFile ? input.downloaded : null),
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
	return { taskId, settings, downloaded };
}

/** What the worker of a document operation gets for its item. */
export interface SubmissionWork {
	/** The item's Options collection, read once. */
	options: IDataObject;
	/**
	 * Reads the item's document settings and sends its document; 429 answers are waited out for
	 * `throttleBudgetMs` at most.
	 */
	submit: (throttleBudgetMs?: number) => Promise<Submission>;
	/** The run's request slots (Max Concurrent Requests). */
	slots: RequestSlots;
}

/**
 * Runs `worker` for every item, all side by side, with the run's settings read once and one set
 * of request slots for the run (Max Concurrent Requests). The worker calls `submit` when it is
 * ready to send its document; submitted task ids are kept so that a failure that stops the run
 * names the tasks the items had already created. Without "Continue On Fail", no document is
 * sent after the first failure; the items already submitted finish first.
 */
export async function processSubmissions(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	worker: (itemIndex: number, work: SubmissionWork) => Promise<INodeExecutionData>,
): Promise<INodeExecutionData[]> {
	const run = readRunSettings.call(this);
	const slots = new RequestSlots(run.maxConcurrency);
	const submittedTasks = new Map<number, string>();
	const halt = { stopped: false };
	return await processItems.call(
		this,
		items,
		async (itemIndex) => {
			const options = readOptions.call(this, itemIndex);
			const submit = async (throttleBudgetMs?: number) => {
				const settings = readSubmissionSettings.call(this, itemIndex, options, run);
				const submission = await submitItem.call(
					this,
					itemIndex,
					settings,
					slots,
					halt,
					throttleBudgetMs,
				);
				submittedTasks.set(itemIndex, submission.taskId);
				return submission;
			};
			return await worker(itemIndex, { options, submit, slots });
		},
		{ submittedTasks, halt },
	);
}

/**
 * Runs `worker` for every item, all side by side, with one set of request slots for the run;
 * the worker gets the item's Options collection, read once.
 */
export async function processTasks(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	worker: (
		itemIndex: number,
		options: IDataObject,
		slots: RequestSlots,
	) => Promise<INodeExecutionData>,
): Promise<INodeExecutionData[]> {
	const slots = new RequestSlots(readRunSettings.call(this).maxConcurrency);
	return await processItems.call(
		this,
		items,
		async (itemIndex) => await worker(itemIndex, readOptions.call(this, itemIndex), slots),
	);
}
