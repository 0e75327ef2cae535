import { randomBytes } from 'crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { projectLocator, projectValue, resolveProjectId } from '../../helpers/projects';
import { apiRequest } from '../../transport';
import { processItems } from '../common';

export const WEBHOOK_EVENTS = ['task.completed'];

/** A strong signing secret: whsec_ followed by 32 random bytes in hex. */
export function generateWebhookSecret(): string {
	return `whsec_${randomBytes(32).toString('hex')}`;
}

const properties: INodeProperties[] = [
	projectLocator,
	{
		displayName: 'URL',
		name: 'webhookUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'https://example.com/webhooks/document-extraction',
		description:
			'The HTTPS endpoint the service POSTs task.completed events to. It must answer with a 2xx status within 10 seconds.',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		default: ['task.completed'],
		required: true,
		options: [
			{
				name: 'Task Completed',
				value: 'task.completed',
				description: 'A document finished processing, with success or failure',
			},
		],
		description: 'The events to subscribe to. The service supports only task.completed for now.',
	},
	{
		displayName: 'Secret',
		name: 'secret',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		description:
			'The key the service signs deliveries with (HMAC-SHA256). Leave empty to generate a strong whsec_ secret; it is output once, so store it.',
	},
];

const displayOptions = { show: { resource: ['project'], operation: ['registerWebhook'] } };

export const description = updateDisplayOptions(displayOptions, properties);

function readWebhookUrl(this: IExecuteFunctions, itemIndex: number): string {
	const url = String(this.getNodeParameter('webhookUrl', itemIndex, '')).trim();
	let parsed: URL | undefined;
	try {
		parsed = new URL(url);
	} catch {
		parsed = undefined;
	}
	if (!parsed || !['http:', 'https:'].includes(parsed.protocol)) {
		throw new NodeOperationError(this.getNode(), `"${url}" is not an http(s) URL`, {
			itemIndex,
			description:
				'Enter the full address of the endpoint that receives the events, for example https://example.com/hooks/extraction.',
		});
	}
	return url;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return await processItems.call(this, items, 1, async (itemIndex) => {
		const project = projectValue(this.getNodeParameter('project', itemIndex));
		const url = readWebhookUrl.call(this, itemIndex);
		const events = (this.getNodeParameter('events', itemIndex, WEBHOOK_EVENTS) as string[]).filter(
			(e) => WEBHOOK_EVENTS.includes(e),
		);
		if (!events.length) {
			throw new NodeOperationError(this.getNode(), 'No event selected', {
				itemIndex,
				description: 'Select Task Completed: it is the only event the service can deliver.',
			});
		}
		const given = String(this.getNodeParameter('secret', itemIndex, '') ?? '').trim();
		const secret = given || generateWebhookSecret();
		const projectId = await resolveProjectId.call(this, project, itemIndex);
		const response = await apiRequest.call(this, {
			method: 'POST',
			path: `/projects/${encodeURIComponent(projectId)}/webhooks`,
			body: { url, events, secret },
			itemIndex,
			subject: `project ${projectId}`,
		});
		const json: IDataObject = {
			project_id: projectId,
			url,
			events,
			...(response && typeof response === 'object' && !Array.isArray(response)
				? (response as IDataObject)
				: { response: response as IDataObject }),
			secret,
			secretGenerated: !given,
		};
		return { json, pairedItem: { item: itemIndex } };
	});
}
