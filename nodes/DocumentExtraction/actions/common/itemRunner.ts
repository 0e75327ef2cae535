import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { failedRunLines, MESSAGES } from '../../messages';
import { asNodeError, errorDetail } from '../../../shared/transport/errors';
import { RequestSlots } from '../../../shared/transport/slots';
import type { ItemFile } from '../../input/inputFiles';
import { RunReport } from './hints';
import { fileFields, fileLabel, withFile } from './perFile';

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

/** Thrown for a unit that was not started because another unit had already failed the run. */
export class NotStartedError extends Error {
	constructor() {
		super(MESSAGES.notStarted);
		this.name = 'NotStartedError';
	}
}

/**
 * What a run reads once and shares: the input items, "Continue On Fail", the execution's
 * cancel signal, the report for the hints after the run, the tasks submitted so far, and
 * whether the run must send nothing more.
 */
export class NodeRun {
	readonly items: INodeExecutionData[];

	readonly continueOnFail: boolean;

	/** The execution's cancel signal: a stopped execution ends every wait and request. */
	readonly signal?: AbortSignal;

	private stopped = false;

	private readonly tasks = new Map<Unit, string>();

	constructor(
		ctx: IExecuteFunctions,
		readonly report = new RunReport(),
	) {
		this.items = ctx.getInputData();
		this.continueOnFail = ctx.continueOnFail();
		this.signal = ctx.getExecutionCancelSignal?.();
	}

	/** Whether a failure has stopped the run: nothing more is sent. */
	get halted(): boolean {
		return this.stopped;
	}

	/** The one place that decides halting: without "Continue On Fail" a failure stops the run. */
	failed(): void {
		if (!this.continueOnFail) this.stopped = true;
	}

	/** Records the task a unit's document became. */
	submitted(unit: Unit, taskId: string): void {
		this.tasks.set(unit, taskId);
	}

	taskOf(unit: Unit): string | undefined {
		return this.tasks.get(unit);
	}

	/** The task each item asks about (Get Status), by item index: its error item carries it. */
	readonly asked = new Map<number, string>();

	/** The tasks of every unit but `except`, in unit order. */
	otherTasks(except: Unit): Array<{ itemIndex: number; taskId: string }> {
		return [...this.tasks]
			.filter(([unit]) => unit !== except)
			.map(([unit, taskId]) => ({ itemIndex: unit.itemIndex, taskId }))
			.sort((a, b) => a.itemIndex - b.itemIndex);
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
 * The JSON of an error item under "Continue On Fail": the message, the failure's kind, the
 * unit's task_id when it had one, and what the service answered (its HTTP status and its
 * detail as sent, so that a 422 field list can be read field by field).
 */
export function errorItemJson(error: Error, taskId: string | undefined): IDataObject {
	const { message, kind, httpCode, detail } = errorDetail(error);
	const json: IDataObject = { error: message, kind };
	if (taskId) json.task_id = taskId;
	if (httpCode !== undefined) json.httpCode = httpCode;
	if (detail !== undefined) json.detail = detail;
	return json;
}

type Settled<U> =
	| { unit: U; value: INodeExecutionData | INodeExecutionData[] }
	| { unit: U; error: Error };

const isRealFailure = <U>(entry: Settled<U>) =>
	'error' in entry && !(entry.error instanceof NotStartedError);

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
	const ownTask = run.taskOf(unit);
	if (ownTask) thrown.context.task_id = ownTask;
	if (unit.file) thrown.message = `${thrown.message} (${fileLabel(unit.file)})`;
	const lines = failedRunLines({
		ownTask:
			ownTask && !`${thrown.message}\n${thrown.description ?? ''}`.includes(ownTask)
				? ownTask
				: undefined,
		otherTasks: run.otherTasks(unit),
		notStarted: settled.filter((entry) => 'error' in entry && !isRealFailure(entry)).length,
	});
	if (lines.length) {
		thrown.description = [thrown.description, ...lines].filter(Boolean).join('\n');
	}
	return thrown;
}

export interface RunOptions {
	/** How many units run at once; all of them when not set. */
	concurrency?: number;
}

/**
 * Runs `work` for every unit of every item. `unitsOf` says what the units of an item are (the
 * item itself, or its files); when it throws, that is the item's failure.
 */
export async function runUnits<U extends Unit>(
	this: IExecuteFunctions,
	run: NodeRun,
	unitsOf: (itemIndex: number) => U[],
	work: (unit: U) => Promise<INodeExecutionData | INodeExecutionData[]>,
	{ concurrency }: RunOptions = {},
): Promise<INodeExecutionData[]> {
	const slots = concurrency === undefined ? undefined : new RequestSlots(concurrency);
	const planned = run.items.flatMap((_item, itemIndex): Array<U | { unit: U; error: Error }> => {
		try {
			return unitsOf(itemIndex);
		} catch (error) {
			run.failed();
			return [{ unit: { itemIndex } as U, error: error as Error }];
		}
	});
	const settled: Array<Settled<U>> = await Promise.all(
		planned.map(async (entry) => {
			if ('error' in entry) return entry;
			try {
				const value = slots ? await slots.run(async () => await work(entry)) : await work(entry);
				return { unit: entry, value };
			} catch (error) {
				run.failed();
				return { unit: entry, error: error as Error };
			}
		}),
	);

	const firstFailure = settled.findIndex(isRealFailure);
	if (firstFailure !== -1 && !run.continueOnFail) {
		throw runFailure(this, run, settled, firstFailure);
	}
	return settled.flatMap((entry) => {
		const { unit } = entry;
		const input = run.items[unit.itemIndex];
		if ('error' in entry) {
			const taskId = run.taskOf(unit);
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
	options?: RunOptions,
): Promise<INodeExecutionData[]> {
	return await runUnits.call(
		this,
		run,
		(itemIndex) => [{ itemIndex }],
		async ({ itemIndex }) => await work(itemIndex),
		options,
	);
}
