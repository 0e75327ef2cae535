import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { failedRunLines, MESSAGES } from '../../messages';
import { explain } from '../../../shared/explain';
import {
	asNodeError,
	errorDetail,
	type NodeContext,
	nodeError,
} from '../../../shared/transport/errors';
import { RequestSlots } from '../../../shared/transport/slots';
import type { ItemFile } from '../../input/inputFiles';
import { RunReport } from './hints';
import { readRunSettings } from './settings';

/**
 * The one item runner of the node. A run is made of units: an item, or one file of an item
 * when Files to Send picks several (each file is a document of its own, with its own output
 * item). Every unit runs side by side (within the run's request slots); outputs come back in
 * unit order, each paired with its input item. A failed unit is an error item under "On Error →
 * Continue", with its kind and its task_id; otherwise the first failure (in unit order) is
 * thrown once every unit under way has settled, and no unit sends anything after it.
 */

/** One unit of work: an item, or one of its files. */
export interface Unit {
	itemIndex: number;
	/** The file of the item this unit sends, when the item has several. */
	file?: ItemFile;
}

/** The error of a unit not started because another had already failed the run (none thrown). */
export const notStarted = (ctx: NodeContext) =>
	Object.assign(nodeError(ctx, 'unexpected', MESSAGES.notStarted), { notStarted: true });

const wasNotStarted = (error: Error) => (error as { notStarted?: boolean }).notStarted === true;

/**
 * What a run reads once and shares: the input items, "Continue On Fail", the execution's
 * cancel signal, the run's request slots (Max Concurrent Requests, read from the first item:
 * the one place they are made), the report for the hints after the run, the tasks submitted
 * so far, and whether the run must send nothing more.
 */
export class NodeRun {
	readonly items: INodeExecutionData[];

	readonly continueOnFail: boolean;

	/** The execution's cancel signal: a stopped execution ends every wait and request. */
	readonly signal?: AbortSignal;

	/** The run's request slots: every upload and status check of the run takes one. */
	readonly slots: RequestSlots;

	/** Input Source is URL (else a binary field): the same for every item. */
	readonly urlInput: boolean;

	/** Whether a failure has stopped the run: nothing more is sent. */
	halted = false;

	/** The task each unit's document became. */
	readonly tasks = new Map<Unit, string>();

	/** The task each item asks about (Get Status), by item index: its error item carries it. */
	readonly asked = new Map<number, string>();

	constructor(
		ctx: IExecuteFunctions,
		readonly report = new RunReport(),
	) {
		this.items = ctx.getInputData();
		this.continueOnFail = ctx.continueOnFail();
		this.signal = ctx.getExecutionCancelSignal?.();
		const { maxConcurrency, urlInput } = readRunSettings.call(ctx);
		this.slots = new RequestSlots(ctx, maxConcurrency, this.signal);
		this.urlInput = urlInput;
	}

	/** The one place that decides halting: without Continue On Fail a failure stops the run. */
	failed(): void {
		if (!this.continueOnFail) this.halted = true;
	}
}

/**
 * An output item paired with its input. It carries the downloaded document for a URL input
 * (binary field "data" with "Include Downloaded File"; null when it is not kept), else the
 * input's binary data when "Include Input Binary" is on.
 */
export function outputItem(
	input: INodeExecutionData,
	itemIndex: number,
	json: IDataObject,
	{
		includeInputBinary,
		downloaded,
	}: { includeInputBinary: boolean; downloaded?: IBinaryData | null },
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
 * The JSON of an error item under "Continue On Fail": the message, the failure's kind, the
 * unit's task_id when it had one, and what the service answered (errorDetail).
 */
function errorItemJson(error: Error, taskId: string | undefined): IDataObject {
	const { message, kind, ...answer } = errorDetail(error);
	return { error: message, kind, ...(taskId ? { task_id: taskId } : {}), ...answer };
}

type Settled<U> =
	| { unit: U; value: INodeExecutionData | INodeExecutionData[] }
	| { unit: U; error: Error };

const isRealFailure = <U>(entry: Settled<U>) => 'error' in entry && !wasNotStarted(entry.error);

/**
 * The error thrown for a run that fails: n8n's error for the unit (asNodeError), with its kind
 * and task in its context, its file named in the message, and the tasks of the run in its
 * description, so that nothing already sent is lost.
 */
function runFailure<U extends Unit>(
	ctx: IExecuteFunctions,
	run: NodeRun,
	settled: Array<Settled<U>>,
	failedAt: number,
): Error {
	const { unit, error } = settled[failedAt] as { unit: U; error: Error };
	const thrown = asNodeError(ctx, error, unit.itemIndex);
	const ownTask = run.tasks.get(unit);
	if (ownTask) thrown.context.task_id = ownTask;
	// the file named: `"invoice.pdf" in attachment_0`, or the field alone
	const { file } = unit;
	if (file) thrown.message += ` (${file.fileName ? `"${file.fileName}" in ` : ''}${file.field})`;
	const lines = failedRunLines({
		ownTask:
			ownTask && !`${thrown.message}\n${thrown.description ?? ''}`.includes(ownTask)
				? ownTask
				: undefined,
		otherTasks: [...run.tasks]
			.filter(([other]) => other !== unit)
			.map(([other, taskId]) => ({ itemIndex: other.itemIndex, taskId }))
			.sort((a, b) => a.itemIndex - b.itemIndex),
		notStarted: settled.filter((entry) => 'error' in entry && !isRealFailure(entry)).length,
	});
	if (lines.length) {
		thrown.description = [thrown.description, ...lines].filter(Boolean).join('\n');
	}
	return thrown;
}

function fileFields(file: ItemFile): { binaryField: string; fileName: string | null } {
	return { binaryField: file.field, fileName: file.fileName ?? null };
}

/**
 * A file's output item: its file named first in the JSON (no field of the result replaces
 * them), and of the input's binary data (passed on with "Include Input Binary") only its own file.
 */
function withFile(
	output: INodeExecutionData,
	input: INodeExecutionData,
	file: ItemFile,
): INodeExecutionData {
	const fields = fileFields(file);
	const item: INodeExecutionData = { ...output, json: { ...fields, ...output.json, ...fields } };
	if (output.binary && output.binary === input.binary) {
		item.binary = { [file.field]: input.binary[file.field] };
	}
	return item;
}

/**
 * Runs `work` for every unit of every item, side by side (the run's slots bound the requests),
 * or one at a time. `unitsOf` gives the units of an item; when it throws, the item has failed.
 */
export async function runUnits<U extends Unit>(
	this: IExecuteFunctions,
	run: NodeRun,
	unitsOf: (itemIndex: number) => U[],
	work: (unit: U) => Promise<INodeExecutionData | INodeExecutionData[]>,
	{ oneAtATime = false } = {},
): Promise<INodeExecutionData[]> {
	const planned = run.items.flatMap((_item, itemIndex): Array<U | { unit: U; error: Error }> => {
		try {
			return unitsOf(itemIndex);
		} catch (error) {
			run.failed();
			return [{ unit: { itemIndex } as U, error: error as Error }];
		}
	});
	const settle = async (entry: U | { unit: U; error: Error }): Promise<Settled<U>> => {
		if ('error' in entry) return entry;
		try {
			return { unit: entry, value: await work(entry) };
		} catch (error) {
			run.failed();
			return { unit: entry, error: explain(error as Error) };
		}
	};
	const settled: Array<Settled<U>> = [];
	if (oneAtATime) for (const entry of planned) settled.push(await settle(entry));
	else settled.push(...(await Promise.all(planned.map(settle))));

	const firstFailure = settled.findIndex(isRealFailure);
	if (firstFailure !== -1 && !run.continueOnFail) {
		throw runFailure(this, run, settled, firstFailure);
	}
	return settled.flatMap((entry) => {
		const { unit } = entry;
		const input = run.items[unit.itemIndex];
		if ('error' in entry) {
			const taskId = run.tasks.get(unit);
			run.report.errorItems.push(taskId !== undefined);
			const json = errorItemJson(entry.error, taskId ?? run.asked.get(unit.itemIndex));
			return [
				{
					json: unit.file ? { ...fileFields(unit.file), ...json } : json,
					pairedItem: { item: unit.itemIndex },
				},
			];
		}
		const outputs = Array.isArray(entry.value) ? entry.value : [entry.value];
		return unit.file ? outputs.map((output) => withFile(output, input, unit.file!)) : outputs;
	});
}

/** Runs `work` once for every item: the runner of the operations with one unit per item. */
export async function runItems(
	this: IExecuteFunctions,
	run: NodeRun,
	work: (itemIndex: number) => Promise<INodeExecutionData | INodeExecutionData[]>,
	options?: { oneAtATime?: boolean },
): Promise<INodeExecutionData[]> {
	const unitsOf = (itemIndex: number) => [{ itemIndex }];
	return await runUnits.call(
		this,
		run,
		unitsOf,
		async (unit) => await work(unit.itemIndex),
		options,
	);
}
