import type { INodeProperties } from 'n8n-workflow';

import * as list from './list.operation';
import * as registerWebhook from './registerWebhook.operation';

export { list, registerWebhook };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['project'] } },
		options: [
			{
				name: 'List Projects',
				value: 'list',
				description: 'List the projects of the account',
				action: 'List projects',
			},
			{
				name: 'Register Webhook',
				value: 'registerWebhook',
				description: 'Register a URL that receives task.completed events for a project',
				action: 'Register a webhook',
				// Not offered to AI agents: its output holds the webhook's signing secret.
				displayOptions: { hide: { '@tool': [true] } },
			},
		],
		default: 'list',
	},
	...list.description,
	...registerWebhook.description,
];
