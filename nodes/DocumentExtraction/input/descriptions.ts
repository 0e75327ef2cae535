import type { INodeProperties } from 'n8n-workflow';

import {
	ALLOW_PRIVATE_ADDRESSES_OPTION,
	DEFAULT_DOWNLOAD_TIMEOUT_S,
	DEFAULT_FILE_TYPES,
	DEFAULT_MAX_DOWNLOAD_MB,
} from '../constants';

/** Where the document comes from: Input Source and its fields. */
export const inputFields: INodeProperties[] = [
	{
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
	},
	{
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
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		placeholder: 'e.g. data',
		hint: 'The name of the input binary field holding the PDF or image to process',
		displayOptions: { show: { inputSource: ['binary'], filesToSend: ['field'] } },
	},
	{
		displayName: 'Input Binary Fields',
		name: 'binaryPropertyNames',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. attachment_0, attachment_1',
		hint: 'The names of the input binary fields holding the PDFs or images, separated by commas',
		displayOptions: { show: { inputSource: ['binary'], filesToSend: ['list'] } },
	},
	{
		displayName: 'Document URL',
		name: 'documentUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/invoices/2024-001.pdf',
		description:
			'The full http:// or https:// address of the document file itself: a PDF or an image (JPEG, PNG, TIFF, WebP). Not a web page that shows or links to it. Redirects are followed.',
		displayOptions: { show: { inputSource: ['url'] } },
	},
];

export const fileTypesOption: INodeProperties = {
	displayName: 'File Types',
	name: 'fileTypes',
	type: 'string',
	default: DEFAULT_FILE_TYPES,
	placeholder: 'e.g. application/pdf, image/*, .pdf',
	description:
		'Which files count as documents, by MIME type (image/* for every image) or file extension (.pdf), separated by commas. A file sent as application/octet-stream is judged by its extension. Other files are not sent and are named in the run’s hint.',
	displayOptions: { show: { '/inputSource': ['binary'], '/filesToSend': ['all', 'list'] } },
};

export const minImageSizeOption: INodeProperties = {
	displayName: 'Skip Images Smaller Than (KB)',
	name: 'minImageSize',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 20,
	description:
		'Images smaller than this are not sent and are named in the run’s hint: the logos, icons and tracking pixels of an email’s signature and layout (an Outlook image001.png is a few KB), never a readable page (a photographed receipt is hundreds of KB). PDFs are sent whatever their size. 0 sends every image.',
	displayOptions: { show: { '/inputSource': ['binary'], '/filesToSend': ['all', 'list'] } },
};

export const withoutDocumentOption: INodeProperties = {
	displayName: 'Items Without a Document',
	name: 'withoutDocument',
	type: 'options',
	default: 'fail',
	options: [
		{ name: 'Fail', value: 'fail' },
		{ name: 'Skip', value: 'skip' },
	],
	description:
		'What an item with no file that counts as a document does: an email without attachments, or with only a notes.txt. Fail: the item fails (an error item under On Error → Continue). Skip: it gives no output and is named in the run’s hint.',
	displayOptions: { show: { '/inputSource': ['binary'], '/filesToSend': ['all', 'list'] } },
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
