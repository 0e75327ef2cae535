import type { INodeProperties } from 'n8n-workflow';

import { projectLocator } from '../shared/descriptions';
import {
	ALLOW_PRIVATE_ADDRESSES_OPTION,
	DEFAULT_DOWNLOAD_TIMEOUT_S,
	DEFAULT_FILE_TYPES,
	DEFAULT_MAX_CONCURRENCY,
	DEFAULT_MAX_DOWNLOAD_MB,
} from './constants';
import { TASK_COMPLETED } from '../shared/transport/service';

/**
 * Field descriptions of the Document Extraction node. The fields both nodes use (Project,
 * Options) are in ../shared/descriptions. Nothing here runs at execution time.
 */

export const inputSourceField: INodeProperties = {
	displayName: 'Input Source',
	name: 'inputSource',
	type: 'options',
	noDataExpression: true,
	default: 'binary',
	options: [
		{
			name: 'Binary File',
			value: 'binary',
			description: 'A PDF or image in a binary field of the input item',
		},
		{
			name: 'URL',
			value: 'url',
			description:
				'A public http(s) address of a PDF or image: the node downloads the file and sends it',
		},
	],
	description: 'The source of the document to extract',
};

export const binaryPropertyField: INodeProperties = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	placeholder: 'e.g. data',
	hint: 'The name of the input binary field holding the PDF or image to process',
	displayOptions: { show: { inputSource: ['binary'], filesToSend: ['field'] } },
};

export const filesToSendField: INodeProperties = {
	displayName: 'Files to Send',
	name: 'filesToSend',
	type: 'options',
	default: 'field',
	options: [
		{
			name: 'All Binary Fields',
			value: 'all',
			description:
				'Every file of the item that File Types counts, each its own document and output item: the attachments of an email (attachment_0, attachment_1, …)',
		},
		{
			name: 'Input Binary Field',
			value: 'field',
			description: 'The file in one binary field: one document per item',
		},
		{
			name: 'Listed Binary Fields',
			value: 'list',
			description:
				'The files in the binary fields you name, separated by commas, each its own document and output item',
		},
	],
	description:
		'Which files of each input item to extract. With several, each file is sent as its own document and gives its own output item, paired with its input item and naming its binary field and file name.',
	displayOptions: { show: { inputSource: ['binary'] } },
};

export const binaryPropertyNamesField: INodeProperties = {
	displayName: 'Input Binary Fields',
	name: 'binaryPropertyNames',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. attachment_0, attachment_1',
	hint: 'The names of the input binary fields holding the PDFs or images, separated by commas',
	displayOptions: { show: { inputSource: ['binary'], filesToSend: ['list'] } },
};

export const fileTypesOption: INodeProperties = {
	displayName: 'File Types',
	name: 'fileTypes',
	type: 'string',
	default: DEFAULT_FILE_TYPES,
	placeholder: 'e.g. application/pdf, image/*, .pdf',
	description:
		'Which files count as documents, by MIME type (image/* for every image) or file extension (.pdf), separated by commas. A file sent as application/octet-stream is judged by its extension. Other files are not sent and are named in the run’s hint; an item with no file that counts fails.',
	displayOptions: { show: { '/inputSource': ['binary'], '/filesToSend': ['all', 'list'] } },
};

export const documentUrlField: INodeProperties = {
	displayName: 'Document URL',
	name: 'documentUrl',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. https://example.com/invoices/2024-001.pdf',
	description:
		'The full http:// or https:// address of the document file itself: a PDF or an image (JPEG, PNG, TIFF, WebP). Not a web page that shows or links to it. Redirects are followed.',
	displayOptions: { show: { inputSource: ['url'] } },
};

export const allowPrivateAddressesOption: INodeProperties = {
	displayName: ALLOW_PRIVATE_ADDRESSES_OPTION,
	name: 'allowPrivateAddresses',
	type: 'boolean',
	default: false,
	description:
		'Whether to download from loopback, private network, link-local and shared addresses (an intranet server). Off, such a URL fails the item before anything connects to it; keep it off when the URL can come from an AI agent or from a document.',
	displayOptions: { show: { '/inputSource': ['url'] } },
};

export const maxDownloadSizeOption: INodeProperties = {
	displayName: 'Max Download Size (MB)',
	name: 'maxDownloadSize',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: DEFAULT_MAX_DOWNLOAD_MB,
	description: 'The largest document accepted from a URL. A larger file fails the item.',
	displayOptions: { show: { '/inputSource': ['url'] } },
};

export const downloadTimeoutOption: INodeProperties = {
	displayName: 'Download Timeout (Seconds)',
	name: 'downloadTimeout',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: DEFAULT_DOWNLOAD_TIMEOUT_S,
	description: 'How long downloading the document from its URL may take in all',
	displayOptions: { show: { '/inputSource': ['url'] } },
};

export const includeDownloadedFileOption: INodeProperties = {
	displayName: 'Include Downloaded File',
	name: 'includeDownloadedFile',
	type: 'boolean',
	default: false,
	description:
		'Whether to output the downloaded document as binary field "data", so a later node can archive it',
	displayOptions: { show: { '/inputSource': ['url'] } },
};

/**
 * Not `required`: empty is the normal state until a type is chosen, and n8n's editor marks an
 * empty required field with a warning as soon as it was opened once. Its list always holds the
 * empty value as a hint (methods/loadOptions.ts), and a run without a type fails with a message.
 */
export const documentTypeField: INodeProperties = {
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

/** Keep Input Fields of Submit and Submit and Wait. */
export const keepInputFieldsOption: INodeProperties = {
	displayName: 'Keep Input Fields',
	name: 'keepInputFields',
	type: 'boolean',
	default: false,
	description:
		'Whether to output the input item’s fields (your own context: customer, email subject and sender, record ID…) with each document’s task_id or result, so that the next node can map or record them together (for example in a Data Table the Document Extraction Trigger’s workflow looks the task up in)',
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
	default: DEFAULT_MAX_CONCURRENCY,
	description:
		'The largest number of requests this node has open at the same time, across all items. One limit for the whole run: it is read once, from the first item.',
};

/** The fields of Submit and Submit and Wait that name the document and what to extract from it. */
export const documentFields: INodeProperties[] = [
	inputSourceField,
	filesToSendField,
	binaryPropertyField,
	binaryPropertyNamesField,
	documentUrlField,
	projectLocator,
	documentTypeField,
];

/** The options of Submit and Submit and Wait from Allow Private Addresses to Max Download Size. */
export const submissionOptions: INodeProperties[] = [
	allowPrivateAddressesOption,
	downloadTimeoutOption,
	fileTypesOption,
	includeDownloadedFileOption,
	includeInputBinaryOption,
	maxConcurrencyOption,
	maxDownloadSizeOption,
];
