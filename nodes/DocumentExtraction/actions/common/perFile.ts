import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { nodeError } from '../../../shared/transport/errors';
import {
	FileSelectionError,
	selectFiles,
	type FileSelection,
	type ItemFile,
	type SelectedFiles,
} from '../../input/inputFiles';

/**
 * Several files of one item, each its own document (Files to Send → All or Listed Binary
 * Fields): which files, and the output item of each, paired with the input item and naming its
 * file. The item runner (itemRunner.ts) runs each file as a unit of its own.
 */

/** The files of the item to send; a selection that cannot be made is the item's error. */
export function selectItemFiles(
	this: IExecuteFunctions,
	input: INodeExecutionData | undefined,
	itemIndex: number,
	selection: FileSelection,
): SelectedFiles {
	try {
		return selectFiles(input?.binary, selection, itemIndex);
	} catch (error) {
		const description = error instanceof FileSelectionError ? error.description : undefined;
		throw nodeError(this, 'invalid_input', (error as Error).message, { itemIndex, description });
	}
}

/** What an output item says of its document's file. */
export function fileFields(file: ItemFile): { binaryField: string; fileName: string | null } {
	return { binaryField: file.field, fileName: file.fileName ?? null };
}

/** The file as a message names it: `"invoice.pdf" in attachment_0`, or the field alone. */
export function fileLabel(file: ItemFile): string {
	return `${file.fileName ? `"${file.fileName}" in ` : ''}${file.field}`;
}

/**
 * A document's output item: its file named first in the JSON, and of the input's binary data (passed
 * on with "Include Input Binary") only its own file.
 */
export function withFile(
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
