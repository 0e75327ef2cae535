import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { failedRunLines, MESSAGES } from '../../messages';
import {
	asNodeError,
	errorDetail,
	type NodeContext,
	nodeError,
} from '../../../shared/transport/errors';
import { RequestSlots } from '../../../shared/transport/slots';
import type { ItemFile } from '../../input/inputFiles';
import { RunReport } from './hints';
import { numberOption, readOptions } from './settings';
import { DEFAULT_MAX_CONCURRENCY } from '../../constants';

// Units (an item, or each of its files) run side by side, output in unit order. A failed unit is
// an error item under "On Error → Continue"; else the first failure is thrown once all settle.

export interface Unit {
	itemIndex: number;
	/** The file of the item this unit sends, when the item has several. */
	file?: ItemFile;
}

/** The error of a unit not started because another had already failed the run (none thrown). */
export const notStarted = (ctx: NodeContext) =>
	Object.assign(nodeError(ctx, 'unexpected', MESSAGES.notStarted), { notStarted: true });

/** What a run reads once and shares; its request slots are made here only. */
export class NodeRun {
	readonly items: INodeExecutionData[];
	readonly continueOnFail: boolean;
	readonly signal?: AbortSignal;
	readonly slots: RequestSlots;
	readonly urlInput: boolean;
	/** A failure stopped the run: nothing more is sent. */
	halted = false;
	/** The task each unit's document became. */
	readonly tasks = new Map<Unit, string>();
	/** The task each item asks about (Get Status): its error item carries it. */
	readonly asked = new Map<number, string>();
	readonly report = new RunReport();

	constructor(ctx: IExecuteFunctions) {
		this.items = ctx.getInputData();
		this.continueOnFail = ctx.continueOnFail();
		this.signal = ctx.getExecutionCancelSignal?.();
		// Max Concurrent Requests and Input Source hold for the whole run: read from the first item
		const maxConcurrency = numberOption.call(ctx, readOptions.call(ctx, 0), {
			name: 'maxConcurrency',
			label: 'Max Concurrent Requests',
			itemIndex: 0,
		});
		this.urlInput = ctx.getNodeParameter('inputSource', 0, 'binary') === 'url';
		this.slots = new RequestSlots(ctx, maxConcurrency ?? DEFAULT_MAX_CONCURRENCY, this.signal);
	}

	failed(): void {
		if (!this.continueOnFail) this.halted = true;
	}
}

/** An output item paired with its input: the downloaded file (null: not kept), or the input's binary. */
export function outputItem(
	input: INodeExecutionData,
	itemIndex: number,
	json: IDataObject,
	kept: { includeInputBinary: boolean; downloaded?: IBinaryData | null },
): INodeExecutionData {
	const output: INodeExecutionData = { json, pairedItem: { item: itemIndex } };
	if (kept.downloaded !== undefined) {
		if (kept.downloaded) output.binary = { data: kept.downloaded };
	} else if (kept.includeInputBinary && input.binary) {
		output.binary = input.binary;
	}
	return output;
}

type Settled<U> =
	| { unit: U; value: INodeExecutionData | INodeExecutionData[] }
	| { unit: U; error: Error };

const isRealFailure = <U>(entry: Settled<U>) =>
	'error' in entry && (entry.error as { notStarted?: boolean }).notStarted !== true;

/** The error of a failed run: the unit's, naming its file, and the run's tasks so nothing sent is lost. */
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
	const { file } = unit;
	if (file) thrown.message += ` (${file.fileName ? `"${file.fileName}" in ` : ''}${file.field})`;
	const named = ownTask && `${thrown.message}\n${thrown.description ?? ''}`.includes(ownTask);
	const otherTasks = [...run.tasks]
		.filter(([other]) => other !== unit)
		.map(([other, taskId]) => ({ itemIndex: other.itemIndex, taskId }))
		.sort((a, b) => a.itemIndex - b.itemIndex);
	const notStarted = settled.filter((entry) => 'error' in entry && !isRealFailure(entry)).length;
	const lines = failedRunLines(named ? undefined : ownTask, otherTasks, notStarted);
	if (lines.length) {
		thrown.description = [thrown.description, ...lines].filter(Boolean).join('\n');
	}
	return thrown;
}

const fileFields = (file: ItemFile) => ({
	binaryField: file.field,
	fileName: file.fileName ?? null,
});

/** A file's output item: its file named first (no result field replaces it), only its own binary. */
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

/** Runs `work` for every unit of every item, side by side or one at a time; `unitsOf` may fail an item. */
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
	// not an async function: the unit's work runs one frame below the runner
	const settle = (entry: U | { unit: U; error: Error }): Promise<Settled<U>> | Settled<U> =>
		'error' in entry
			? entry
			: work(entry).then(
					(value) => ({ unit: entry, value }),
					(error: Error) => {
						run.failed();
						return { unit: entry, error };
					},
				);
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
			const { message, kind, ...answer } = errorDetail(entry.error);
			const task = taskId ?? run.asked.get(unit.itemIndex);
			const said = { kind, ...(task ? { task_id: task } : {}), ...answer };
			const fields = unit.file ? fileFields(unit.file) : {};
			const pairedItem = { item: unit.itemIndex };
			// n8n's error output (2.x and 1.x) takes only an item whose one field is `error`
			if (this.getNode().onError === 'continueErrorOutput') {
				return [{ json: { error: { message, ...said, ...fields } }, pairedItem }];
			}
			return [{ json: { ...fields, error: message, ...said }, pairedItem }];
		}
		const outputs = Array.isArray(entry.value) ? entry.value : [entry.value];
		return unit.file ? outputs.map((output) => withFile(output, input, unit.file!)) : outputs;
	});
}

/** The units of an operation that runs once for every item. */
export const eachItem = (itemIndex: number): Unit[] => [{ itemIndex }];
