import type { INodeProperties } from 'n8n-workflow';

import { optionsCollection, projectLocator } from '../shared/descriptions';
import { DEFAULT_MAX_CONCURRENCY } from './constants';
import { TASK_COMPLETED } from '../shared/transport/service';
import * as input from './input/descriptions';

// Not required: n8n's editor warns on an empty required field; a run without a type fails.
const documentTypeField: INodeProperties = {
	displayName: 'Document Type Name or ID',
	name: 'documentType',
	type: 'options',
	typeOptions: { loadOptionsMethod: 'getDocumentTypes', loadOptionsDependsOn: ['project.value'] },
	default: '',
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

export const taskIdField: INodeProperties = {
	displayName: 'Task ID',
	name: 'taskId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. 0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01',
	description: 'The task_id returned when the document was submitted',
};

export const eventsField: INodeProperties = {
	displayName: 'Events',
	name: 'events',
	type: 'multiOptions',
	default: [TASK_COMPLETED],
	required: true,
	options: [
		{
			name: 'Task Completed',
			value: TASK_COMPLETED,
			description: 'A document finished processing, with success or failure',
		},
	],
	description: 'The events to subscribe to. The service supports only task.completed for now.',
};

export const includeInputBinaryOption: INodeProperties = {
	displayName: 'Include Input Binary',
	name: 'includeInputBinary',
	type: 'boolean',
	default: false,
	description:
		'Whether to pass the input binary data through to the output item, so a later node can still archive the original file. Off: the output holds only the extracted fields, and the output panel opens on them.',
	displayOptions: { hide: { '/inputSource': ['url'] } },
};

const keepInputFieldsOption: INodeProperties = {
	displayName: 'Keep Input Fields',
	name: 'keepInputFields',
	type: 'boolean',
	default: false,
	description:
		'Whether to output the input item’s fields (your own context: customer, email subject and sender, record ID…) with each document’s task_id or result, so that the next node can map or record them together (for example in a Data Table the Document Extraction Trigger’s workflow looks the task up in)',
};

const maxPagesOption: INodeProperties = {
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
	default: DEFAULT_MAX_CONCURRENCY,
	description:
		'The largest number of requests this node has open at the same time, across all items. One limit for the whole run: it is read once, from the first item.',
};

export const documentFields: INodeProperties[] = [
	...input.inputFields,
	projectLocator,
	documentTypeField,
];

/** The Options of Submit, and of Submit and Wait with its Max Wait and the options `after`. */
export const documentOptions = (maxWait?: INodeProperties, ...after: INodeProperties[]) =>
	optionsCollection([
		input.allowPrivateAddressesOption,
		input.downloadTimeoutOption,
		input.fileTypesOption,
		input.includeDownloadedFileOption,
		includeInputBinaryOption,
		input.withoutDocumentOption,
		maxConcurrencyOption,
		input.maxDownloadSizeOption,
		...(maxWait ? [maxWait] : []),
		keepInputFieldsOption,
		maxPagesOption,
		input.minImageSizeOption,
		...after,
	]);
