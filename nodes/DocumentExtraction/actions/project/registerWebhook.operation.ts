import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { eventsField } from '../../descriptions';
import { projectLocator } from '../../../shared/descriptions';
import { worded } from '../../../shared/explain';
import { readProjectField, resolveProjectId, webhookRequest } from '../../../shared/projects';
import {
	answerJson,
	generateWebhookSecret,
	registerWebhook,
	WEBHOOK_EVENTS,
} from '../../../shared/transport/service';
import { readUrlField } from '../../input/documentInput';
import { MESSAGES, refusal } from '../../messages';
import { eachItem, type NodeRun, runUnits, type Unit } from '../common/itemRunner';

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
	eventsField,
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

/** Registers each item's URL for the project's events; the output holds the secret (once). */
export async function execute(
	this: IExecuteFunctions,
	run: NodeRun,
): Promise<INodeExecutionData[]> {
	const { signal } = run;
	const register = async ({ itemIndex }: Unit): Promise<INodeExecutionData> => {
		const project = readProjectField(this, itemIndex);
		// sent as entered (trimmed), once it reads as an http(s) address
		const url = String(this.getNodeParameter('webhookUrl', itemIndex, '')).trim();
		readUrlField.call(this, url, itemIndex, { description: MESSAGES.webhookUrlDescription });
		const events = (
			this.getNodeParameter('events', itemIndex, [...WEBHOOK_EVENTS]) as string[]
		).filter((e) => WEBHOOK_EVENTS.includes(e));
		if (!events.length) throw refusal(this, MESSAGES.noEvent, itemIndex);
		const given = String(this.getNodeParameter('secret', itemIndex, '') ?? '').trim();
		const secret = given || generateWebhookSecret();
		const projectId = await resolveProjectId.call(this, project, itemIndex, signal);
		const response = await registerWebhook
			.call(this, projectId, { url, events, secret }, itemIndex, signal)
			.catch((error: unknown) => {
				throw worded(error, webhookRequest(projectId, url));
			});
		const json = {
			project_id: projectId,
			url,
			events,
			...answerJson(response),
			secret,
			secretGenerated: !given,
		};
		return { json, pairedItem: { item: itemIndex } };
	};
	return await runUnits.call(this, run, eachItem, register, { oneAtATime: true });
}
