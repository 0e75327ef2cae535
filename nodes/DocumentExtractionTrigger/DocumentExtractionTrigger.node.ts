import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { optionsCollection, projectLocator } from '../DocumentExtraction/descriptions';
import { searchProjects } from '../DocumentExtraction/methods/listSearch';
import { getTask, LOOKUP_LIMITS, TASK_COMPLETED } from '../DocumentExtraction/transport/service';
import {
	deliveryItem,
	deliveryKey,
	parseDeliveryBody,
	passesStatusFilter,
	rememberDelivery,
	wasDelivered,
	type StatusFilter,
} from './delivery';
import {
	createRegistration,
	getRegistration,
	registrationExists,
	retireRegistration,
} from './registration';
import { SIGNATURE_HEADER, verifySignature } from './signature';

type WebhookResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

function reply(res: WebhookResponse, status: number, body: IDataObject): IWebhookResponseData {
	res.status(status).json(body);
	return { noWebhookResponse: true };
}

function usesExistingRegistration(ctx: IHookFunctions | IWebhookFunctions): boolean {
	return ctx.getNodeParameter('useExistingRegistration', false) === true;
}

/** The secret deliveries must be signed with, or '' when there is none. */
function signingSecret(this: IWebhookFunctions): string {
	if (usesExistingRegistration(this)) {
		return String(this.getNodeParameter('webhookSecret', '') ?? '').trim();
	}
	return getRegistration(this.getWorkflowStaticData('node'))?.secret ?? '';
}

/** Adds the error message of a failed task from GET /task_status; never loses the delivery. */
async function addErrorDetails(this: IWebhookFunctions, item: IDataObject): Promise<void> {
	const taskId = item.task_id;
	if (typeof taskId !== 'string' || taskId === '') {
		item.errorDetailsUnavailable = 'The delivery names no task_id to look the error up by';
		return;
	}
	try {
		const task = (await getTask.call(this, taskId, undefined, LOOKUP_LIMITS)) as
			| IDataObject
			| undefined;
		const error = task && typeof task === 'object' ? task.error : undefined;
		if (typeof error === 'string' && error !== '') {
			item.error = error;
		} else {
			item.errorDetailsUnavailable = 'The service gave no error message for this task';
		}
	} catch (error) {
		item.errorDetailsUnavailable = `Could not fetch the error message: ${(error as Error).message}`;
	}
}

export class DocumentExtractionTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document Extraction Trigger',
		name: 'documentExtractionTrigger',
		icon: {
			light: 'file:../DocumentExtraction/documentExtraction.svg',
			dark: 'file:../DocumentExtraction/documentExtraction.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: `=${TASK_COMPLETED}`,
		description: 'Starts the workflow when the Document Extraction Service finishes a document',
		defaults: { name: 'Document Extraction Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'documentExtractionApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties: [
			{
				...projectLocator,
				description:
					'The project whose finished documents start this workflow. Publishing the workflow registers its webhook URL there.',
				displayOptions: { show: { useExistingRegistration: [false] } },
			},
			{
				displayName: 'Use Existing Registration',
				name: 'useExistingRegistration',
				type: 'boolean',
				default: false,
				description:
					'Whether to skip registering a webhook and use one that is already registered for this node’s URL (with the Document Extraction node or in the dashboard)',
			},
			{
				displayName: 'Webhook Secret',
				name: 'webhookSecret',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				required: true,
				placeholder: 'whsec_…',
				description:
					'The secret the existing webhook was registered with. Deliveries signed with another key are refused.',
				displayOptions: { show: { useExistingRegistration: [true] } },
			},
			optionsCollection([
				{
					displayName: 'Fetch Error Details',
					name: 'fetchErrorDetails',
					type: 'boolean',
					default: true,
					description:
						'Whether to look up the error message of a failed task (GET /task_status) and add it as "error"',
				},
				{
					displayName: 'Status',
					name: 'statusFilter',
					type: 'options',
					default: 'both',
					options: [
						{ name: 'Complete or Failed', value: 'both' },
						{ name: 'Complete Only', value: 'complete' },
						{ name: 'Failed Only', value: 'failed' },
					],
					description:
						'Which finished tasks start the workflow; the others are acknowledged and ignored',
				},
			]),
		],
	};

	methods = { listSearch: { searchProjects } };

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				// With an existing registration there is nothing for this node to register.
				if (usesExistingRegistration(this)) return true;
				return await registrationExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				if (usesExistingRegistration(this)) return true;
				return await createRegistration.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				// The service cannot remove a webhook: forget it here, keeping it for a later create.
				retireRegistration(this.getWorkflowStaticData('node'));
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject();
		const res = this.getResponseObject();

		// The signature is checked over the raw bytes before anything looks at the body.
		const secret = signingSecret.call(this);
		const rawBody = Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
		if (!verifySignature(rawBody, req.headers?.[SIGNATURE_HEADER], secret)) {
			return reply(res, 401, { error: 'invalid signature' });
		}

		const payload = parseDeliveryBody(rawBody as Buffer);
		if (!payload) return reply(res, 400, { error: 'body is not a JSON object' });

		if (payload.event !== TASK_COMPLETED) {
			return reply(res, 200, { received: true, ignored: 'event not handled' });
		}

		const options = this.getNodeParameter('options', {}) as IDataObject;
		const statusFilter = (options.statusFilter as StatusFilter | undefined) ?? 'both';
		if (!passesStatusFilter(payload.status, statusFilter)) {
			return reply(res, 200, { received: true, ignored: 'status filtered out' });
		}

		// The service retries a delivery it thinks failed: emit each task outcome once.
		const key = deliveryKey(payload);
		if (key !== undefined) {
			const data = this.getWorkflowStaticData('node');
			if (wasDelivered(data, key)) {
				return reply(res, 200, { received: true, ignored: 'duplicate delivery' });
			}
			rememberDelivery(data, key);
		}

		const item = deliveryItem(payload);
		const fetchErrorDetails = options.fetchErrorDetails !== false;
		if (payload.status === 'failed' && fetchErrorDetails && item.error === undefined) {
			// Answer first: the lookup may take longer than the service waits for a 2xx.
			res.status(200).json({ received: true });
			await addErrorDetails.call(this, item);
			return { noWebhookResponse: true, workflowData: [[{ json: item }]] };
		}

		// n8n answers 200 (responseMode onReceived) once the run is created.
		return { workflowData: [[{ json: item }]] };
	}
}
