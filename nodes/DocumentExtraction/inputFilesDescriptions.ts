import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_FILE_TYPES } from './input/inputFiles';

/**
 * The fields that choose which files of an item are sent (Submit and Submit and Wait, binary
 * input). Nothing here runs at execution time.
 */

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
