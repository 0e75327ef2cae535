import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	FileSelectionError,
	selectFiles,
	type FileSelection,
	type ItemFile,
	type SelectedFiles,
} from '../../input/inputFiles';
import type { RunReport } from './hints';
import { errorItemJson, NotStartedError } from './itemRunner';

/**
 * Several files of one item, each its own document (Files to Send → All or Listed Binary
 * Fields): which files, and the output item of each, paired with the input item and naming
 * its file. A failed document fails the run, or under "Continue On Fail" is an error item of its
 * own beside its siblings.
 */

/** The files of the item to send; a selection that cannot be made is the item's error. */
export function selectItemFiles(
	this: IExecuteFunctions,
	itemIndex: number,
	selection: FileSelection,
): SelectedFiles {
	try {
		return selectFiles(this.getInputData()[itemIndex]?.binary, selection, itemIndex);
	} catch (error) {
		const description = error instanceof FileSelectionError ? error.description : undefined;
		throw new NodeOperationError(this.getNode(), (error as Error).message, {
			itemIndex,
			description,
		});
	}
}

/** What an output item says of its document's file. */
export function fileFields(file: ItemFile): { binaryField: string; fileName: string | null } {
	return { binaryField: file.field, fileName: file.fileName ?? null };
}

/**
 * A document's output item: its file named first in the JSON, and of the input's binary data (passed
 * on with "Include Input Binary") only its own file.
 */
function withFile(
	output: INodeExecutionData,
	input: INodeExecutionData,
	file: ItemFile,
): INodeExecutionData {
	// The file's fields come first in the item, and no field of the result replaces them.
	const fields = fileFields(file);
	const item: INodeExecutionData = { ...output, json: { ...fields, ...output.json, ...fields } };
	if (output.binary && output.binary === input.binary) {
		item.binary = { [file.field]: input.binary[file.field] };
	}
	return item;
}

export interface PerFileOptions {
	continueOnFail: boolean;
	/** Stopped at the first failure without "Continue On Fail": no sibling is sent after it. */
	halt: { stopped: boolean };
	/** Where error items are recorded, for the hints after the run. */
	report?: RunReport;
}

/**
 * Runs `document` for every file of item `itemIndex`, side by side (the run's request slots
 * bound them), and returns their output items in file order. `document` reports each task it
 * creates through `submitted`, so that an error item carries its own task_id. Without
 * "Continue On Fail" the first failure is thrown once every sibling has settled, its message
 * naming the file.
 */
export async function eachFile(
	this: IExecuteFunctions,
	itemIndex: number,
	files: ItemFile[],
	document: (file: ItemFile, submitted: (taskId: string) => void) => Promise<INodeExecutionData>,
	{ continueOnFail, halt, report }: PerFileOptions,
): Promise<INodeExecutionData[]> {
	const input = this.getInputData()[itemIndex];
	const tasks = new Map<string, string>();
	const settled = await Promise.all(
		files.map(async (file) => {
			try {
				const output = await document(file, (taskId) => tasks.set(file.field, taskId));
				return { ok: true as const, value: withFile(output, input, file) };
			} catch (error) {
				if (!continueOnFail) halt.stopped = true;
				return { ok: false as const, error: error as Error };
			}
		}),
	);
	const real = settled.findIndex((entry) => !entry.ok && !(entry.error instanceof NotStartedError));
	const failed = real !== -1 ? real : settled.findIndex((entry) => !entry.ok);
	if (failed !== -1 && !continueOnFail) {
		const { error } = settled[failed] as { error: Error };
		if (error instanceof NotStartedError) throw error;
		const file = files[failed];
		const thrown =
			error instanceof NodeOperationError || error instanceof NodeApiError
				? error
				: new NodeOperationError(this.getNode(), error, { itemIndex });
		thrown.message = `${thrown.message} (${file.fileName ? `"${file.fileName}" in ` : ''}${file.field})`;
		throw thrown;
	}
	return settled.map((entry, index) => {
		if (entry.ok) return entry.value;
		const taskId = tasks.get(files[index].field);
		report?.errorItems.push(taskId !== undefined);
		return {
			json: { ...fileFields(files[index]), ...errorItemJson(entry.error, taskId) },
			pairedItem: { item: itemIndex },
		};
	});
}
