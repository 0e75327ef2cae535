import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { errorDetail } from '../../../shared/transport/errors';
import type { RunReport } from './hints';
import { RequestSlots } from './requestSlots';

type ItemError = Error & { description?: string | null };

export interface ProcessItemsOptions {
	/** How many items run at once; all of them when not set. */
	concurrency?: number;
	/** Task ids submitted so far, by item index, to name in a failure that stops the run. */
	submittedTasks?: Map<number, string>;
	/**
	 * Set to stopped when an item fails without "Continue On Fail": the run will fail, so the
	 * workers start no new submissions (they throw a NotStartedError instead).
	 */
	halt?: { stopped: boolean };
	/** Where the run's error items are recorded, for the hints after the run. */
	report?: RunReport;
}

/** What every worker gets besides its item index: read once per run and passed down. */
export interface ItemRun {
	/** The execution's cancel signal: a stopped execution ends every wait and request. */
	signal?: AbortSignal;
}

/** Thrown for an item that was not started because another item had already failed the run. */
export class NotStartedError extends Error {
	constructor() {
		super('Not submitted: another item had already failed');
		this.name = 'NotStartedError';
	}
}

/** What an output item carries besides its JSON. */
export interface OutputBinary {
	/** Whether the input item's binary data is passed through ("Include Input Binary"). */
	includeInputBinary: boolean;
	/**
	 * For a URL input: the downloaded document, output as binary field "data" ("Include
	 * Downloaded File"), or null when it is not kept. Undefined for any other input.
	 */
	downloaded?: IBinaryData | null;
}

/**
 * An output item paired with its input. It carries the downloaded document for a URL input
 * (when kept), else the input's binary data when "Include Input Binary" is on.
 */
export function outputItem(
	input: INodeExecutionData,
	itemIndex: number,
	json: IDataObject,
	{ includeInputBinary, downloaded }: OutputBinary,
): INodeExecutionData {
	const output: INodeExecutionData = { json, pairedItem: { item: itemIndex } };
	if (downloaded !== undefined) {
		if (downloaded) output.binary = { data: downloaded };
	} else if (includeInputBinary && input.binary) {
		output.binary = input.binary;
	}
	return output;
}

/**
 * The JSON of an error item under "Continue On Fail": the message, the item's task_id when it
 * had one, and what the service answered (its HTTP status and its detail as sent, so that a
 * 422 field list can be read field by field).
 */
export function errorItemJson(error: Error, taskId: string | undefined): IDataObject {
	const { message, httpCode, detail } = errorDetail(error);
	const json: IDataObject = { error: message };
	if (taskId) json.task_id = taskId;
	if (httpCode !== undefined) json.httpCode = httpCode;
	if (detail !== undefined) json.detail = detail;
	return json;
}

/**
 * The item runner of every operation. Runs `worker` for every input item (`concurrency` at a
 * time, or all side by side) and returns the output items in input order, each paired with
 * its input. With "Continue On Fail" a failed item becomes an error item carrying its task_id.
 * Otherwise the first failure stops new submissions (through `halt`), and once the items
 * already under way have settled, the first failure (by item order) is thrown, naming the
 * item's own task and the tasks other items had submitted.
 */
export async function processItems(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	worker: (itemIndex: number, run: ItemRun) => Promise<INodeExecutionData | INodeExecutionData[]>,
	{ concurrency, submittedTasks, halt, report }: ProcessItemsOptions = {},
): Promise<INodeExecutionData[]> {
	const slots = concurrency === undefined ? undefined : new RequestSlots(concurrency);
	const continueOnFail = this.continueOnFail();
	const run: ItemRun = { signal: this.getExecutionCancelSignal?.() };
	const settled = await Promise.all(
		items.map(async (_item, itemIndex) => {
			try {
				const value = slots
					? await slots.run(async () => await worker(itemIndex, run))
					: await worker(itemIndex, run);
				return { ok: true as const, value };
			} catch (error) {
				if (!continueOnFail && halt) halt.stopped = true;
				return { ok: false as const, error: error as ItemError };
			}
		}),
	);

	const isReal = (entry: (typeof settled)[number]) =>
		!entry.ok && !(entry.error instanceof NotStartedError);
	const firstFailure = settled.findIndex(isReal);
	if (firstFailure !== -1 && !continueOnFail) {
		const { error } = settled[firstFailure] as { error: ItemError };
		const thrown =
			error instanceof NodeOperationError || error instanceof NodeApiError
				? error
				: new NodeOperationError(this.getNode(), error, { itemIndex: firstFailure });
		const lines: string[] = [];
		const ownTask = submittedTasks?.get(firstFailure);
		if (ownTask && !`${thrown.message}\n${thrown.description ?? ''}`.includes(ownTask)) {
			lines.push(`This item's task: ${ownTask} (fetch it with Get Status).`);
		}
		const others = [...(submittedTasks ?? [])]
			.filter(([index]) => index !== firstFailure)
			.sort(([a], [b]) => a - b);
		if (others.length) {
			const list = others.map(([index, taskId]) => `item ${index}: ${taskId}`).join(', ');
			lines.push(
				`Tasks submitted for other items in this run (fetch them with Get Status): ${list}`,
			);
		}
		const notStarted = settled.filter(
			(entry) => !entry.ok && entry.error instanceof NotStartedError,
		).length;
		if (notStarted) {
			lines.push(
				`${notStarted} item${notStarted === 1 ? ' was' : 's were'} not submitted because of this failure.`,
			);
		}
		if (lines.length) {
			thrown.description = [thrown.description, ...lines].filter(Boolean).join('\n');
		}
		throw thrown;
	}

	return settled.flatMap((entry, itemIndex) => {
		if (entry.ok) return entry.value;
		const taskId = submittedTasks?.get(itemIndex);
		report?.errorItems.push(taskId !== undefined);
		return [{ json: errorItemJson(entry.error, taskId), pairedItem: { item: itemIndex } }];
	});
}
