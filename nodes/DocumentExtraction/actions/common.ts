import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { mapWithConcurrency } from '../helpers/utils';

export const binaryPropertyField: INodeProperties = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	placeholder: 'e.g. data',
	hint: 'The name of the input binary field holding the PDF or image to process',
};

export const documentTypeField: INodeProperties = {
	displayName: 'Document Type Name or ID',
	name: 'documentType',
	type: 'options',
	typeOptions: { loadOptionsMethod: 'getDocumentTypes', loadOptionsDependsOn: ['project.value'] },
	default: '',
	required: true,
	description:
		'The document type within the project, for example invoice. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
};

export const outputField: INodeProperties = {
	displayName: 'Output',
	name: 'output',
	type: 'options',
	default: 'result',
	options: [
		{
			name: 'Result Only',
			value: 'result',
			description:
				'The extracted fields, flat at the top level, ready to map into the next step. Tasks that are not complete are output whole.',
		},
		{
			name: 'Full Task',
			value: 'full',
			description: 'The whole task: task_id, status, result, error and timestamps',
		},
	],
};

export const includeInputBinaryOption: INodeProperties = {
	displayName: 'Include Input Binary',
	name: 'includeInputBinary',
	type: 'boolean',
	default: true,
	description:
		'Whether to pass the input binary data through to the output item, so a later node can still archive the original file',
};

export const maxPagesOption: INodeProperties = {
	displayName: 'Max Pages',
	name: 'maxPages',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	default: 1,
	description: 'How many pages the service reads at most. Sent as max_pages only when set.',
};

export const maxConcurrencyOption: INodeProperties = {
	displayName: 'Max Concurrent Requests',
	name: 'maxConcurrency',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	default: 5,
	description:
		'The largest number of requests this node has open at the same time, across all items',
};

/** The "Options" collection of an operation; keep `options` sorted by display name. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

/** The output options of an operation, read for one item. */
export function getOptions(this: IExecuteFunctions, itemIndex: number): IDataObject {
	return this.getNodeParameter('options', itemIndex, {}) as IDataObject;
}

/** Positive whole number from an option, or the fallback; a bad value is a clear error. */
export function positiveNumberOption(
	this: IExecuteFunctions,
	options: IDataObject,
	name: string,
	label: string,
	fallback: number,
	itemIndex: number,
	minimum = 1,
): number {
	const raw = options[name];
	if (raw === undefined || raw === null || raw === '') return fallback;
	const value = Number(raw);
	if (!Number.isFinite(value) || value < minimum) {
		throw new NodeOperationError(
			this.getNode(),
			`${label} must be a number of at least ${minimum}`,
			{
				itemIndex,
				description: `Got "${String(raw)}". Change the "${label}" option.`,
			},
		);
	}
	return value;
}

export function withInputBinary(
	item: INodeExecutionData,
	json: IDataObject,
	includeBinary: boolean,
	itemIndex: number,
): INodeExecutionData {
	const output: INodeExecutionData = { json, pairedItem: { item: itemIndex } };
	if (includeBinary && item.binary) output.binary = item.binary;
	return output;
}

/**
 * Runs `worker` for every input item, `concurrency` at a time, and returns one output item
 * per input item in input order, each paired with its input. With "Continue On Fail" a
 * failed item becomes an error item; otherwise the first failure (by item order) is thrown
 * once all items have settled, naming the tasks other items had already submitted.
 */
export async function processItems(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	concurrency: number,
	worker: (itemIndex: number) => Promise<INodeExecutionData | INodeExecutionData[]>,
	submittedTasks?: Map<number, string>,
): Promise<INodeExecutionData[]> {
	const settled = await mapWithConcurrency(items, concurrency, async (_item, itemIndex) => {
		try {
			return { ok: true as const, value: await worker(itemIndex) };
		} catch (error) {
			return { ok: false as const, error: error as ItemError };
		}
	});

	const firstFailure = settled.findIndex((entry) => !entry.ok);
	if (firstFailure !== -1 && !this.continueOnFail()) {
		const { error } = settled[firstFailure] as { error: ItemError };
		const thrown =
			error instanceof NodeOperationError || error instanceof NodeApiError
				? error
				: new NodeOperationError(this.getNode(), error, { itemIndex: firstFailure });
		const others = [...(submittedTasks ?? [])]
			.filter(([index]) => index !== firstFailure)
			.sort(([a], [b]) => a - b);
		if (others.length) {
			const list = others.map(([index, taskId]) => `item ${index}: ${taskId}`).join(', ');
			thrown.description = [
				thrown.description,
				`Tasks submitted for other items in this run (fetch them with Get Status): ${list}`,
			]
				.filter(Boolean)
				.join('\n');
		}
		throw thrown;
	}

	return settled.flatMap((entry, itemIndex) => {
		if (entry.ok) return entry.value;
		const taskId = submittedTasks?.get(itemIndex);
		return [
			{
				json: { error: entry.error.message, ...(taskId ? { task_id: taskId } : {}) },
				pairedItem: { item: itemIndex },
			},
		];
	});
}

type ItemError = Error & { description?: string | null };
