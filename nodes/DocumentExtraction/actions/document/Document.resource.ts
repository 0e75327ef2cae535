import type { INodeProperties } from 'n8n-workflow';

import * as getStatus from './getStatus.operation';
import * as submit from './submit.operation';
import * as submitAndWait from './submitAndWait.operation';

export { getStatus, submit, submitAndWait };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['document'] } },
		options: [
			{
				name: 'Get Status',
				value: 'getStatus',
				description: 'Get the status and result of a submitted task',
				action: 'Get the status of a task',
			},
			{
				name: 'Submit',
				value: 'submit',
				description:
					'Submit a PDF or image (a binary file or a URL) for extraction and return its task ID at once',
				action: 'Submit a document',
			},
			{
				name: 'Submit and Wait',
				value: 'submitAndWait',
				description:
					'Submit a PDF or image (a binary file or a URL) and wait until its extracted data is ready',
				action: 'Submit a document and wait for the result',
			},
		],
		default: 'submitAndWait',
	},
	...submit.description,
	...getStatus.description,
	...submitAndWait.description,
];
