import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { testCredential } from '../shared/credentialTest';
import { readProjectField } from '../shared/projects';
import { searchProjects } from '../shared/listSearch';
import { TASK_COMPLETED } from '../shared/transport/service';
import { deliveryItem, parseDeliveryBody, passesStatusFilter, refuseByTimestamp } from './delivery';
import { addErrorDetails } from './errorDetails';
import { MESSAGES } from './messages';
import { properties } from './properties';
import {
	claimDelivery,
	settleWhenAnswered,
	shortKey,
	type WebhookResponse,
} from './recentDeliveries';
import {
	createRegistration,
	getRegistration,
	registrationExists,
	retiredRegistrationFor,
	retireRegistration,
} from './registration';
import { SIGNATURE_HEADER, verifySignature } from './signature';

function reply(res: WebhookResponse, status: number, body: IDataObject): IWebhookResponseData {
	res.status(status).json(body);
	return { noWebhookResponse: true };
}

function usesExistingRegistration(ctx: IHookFunctions | IWebhookFunctions): boolean {
	return ctx.getNodeParameter('useExistingRegistration', false) === true;
}

/** The secret deliveries must be signed with ('' when none) and the project, when this node registered it. */
function signedFor(this: IWebhookFunctions): { secret: string; projectId?: string } {
	if (usesExistingRegistration(this)) {
		return { secret: String(this.getNodeParameter('webhookSecret', '') ?? '').trim() };
	}
	const data = this.getWorkflowStaticData('node');
	const url = this.getNodeWebhookUrl('default');
	return (
		getRegistration(data) ??
		retiredRegistrationFor(data, url, readProjectField(this)) ?? { secret: '' }
	);
}

export class DocumentExtractionTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document Extraction Trigger',
		name: 'documentExtractionTrigger',
		icon: {
			light: 'file:documentExtraction.svg',
			dark: 'file:documentExtraction.dark.svg',
		},
		group: ['trigger'],
		// 1.1 behaves as 1. n8n evaluates a legacy option of its own Webhook node 1
		// ($parameter.options.binaryData) for every request to any version-1 webhook node: in
		// n8n 2.x that costs an expression isolate per delivery. From 1.1 on it does not.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: `=${TASK_COMPLETED}`,
		description:
			'Extract structured data from invoices, receipts and ID documents with the Document Extraction Service, and start workflows when a document is finished',
		defaults: { name: 'Document Extraction Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'documentExtractionApi', required: true, testedBy: 'testCredential' }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties,
	};

	methods = { listSearch: { searchProjects }, credentialTest: { testCredential } };

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				if (usesExistingRegistration(this)) return true;
				return await registrationExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				if (usesExistingRegistration(this)) return true;
				return await createRegistration.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				retireRegistration(this.getWorkflowStaticData('node'));
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject();
		const res = this.getResponseObject();
		const ignore = (why: string) => reply(res, 200, { received: true, ignored: why });

		// The signature is checked over the raw bytes before anything looks at the body; n8n reads
		// them only for the content types it parses.
		const { secret, projectId } = signedFor.call(this);
		if (!Buffer.isBuffer(req.rawBody) && typeof req.readRawBody === 'function') {
			await req.readRawBody();
		}
		const rawBody = Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
		if (!verifySignature(rawBody, req.headers?.[SIGNATURE_HEADER], secret)) {
			return reply(res, 401, { error: MESSAGES.answers.invalidSignature });
		}

		const payload = parseDeliveryBody(rawBody as Buffer);
		if (!payload) return reply(res, 400, { error: MESSAGES.answers.notJson });

		// A signed delivery is also a dated one: an old copy replayed later starts nothing.
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const stale = refuseByTimestamp.call(this, payload, options);
		if (stale) return reply(res, stale.status, stale.body);

		if (payload.event !== TASK_COMPLETED) return ignore(MESSAGES.answers.otherEvent);
		const { task_id: taskId, project_id: project, status } = payload;
		const otherProject = projectId && String(project).toLowerCase() !== projectId.toLowerCase();
		const refused =
			typeof taskId !== 'string' || !taskId.trim() ? 'noTaskId' : otherProject && 'otherProject';
		if (refused) return reply(res, 400, { error: MESSAGES.answers[refused] });
		if (!passesStatusFilter(status, options.statusFilter)) {
			return ignore(MESSAGES.answers.filteredOut);
		}

		// The service retries: one run per task outcome, node, workflow and mode (a test listen is apart)
		const node = this.getNode();
		const scope = [this.getWorkflow().id ?? '', node.id ?? node.name, this.getMode()];
		const key = shortKey([...scope, String(taskId).trim().toLowerCase(), String(status)]);
		const claim = await claimDelivery(key);
		if (claim === 'duplicate') return ignore(MESSAGES.answers.duplicate);
		if (claim === 'busy') return reply(res, 503, { error: MESSAGES.answers.busy });
		settleWhenAnswered(res, key);

		const item = deliveryItem(payload);
		const fetchErrorDetails = options.fetchErrorDetails !== false;
		if (payload.status === 'failed' && fetchErrorDetails && item.error === undefined) {
			// Answer first: the lookup may take longer than the service waits for a 2xx.
			res.status(200).json({ received: true });
			await addErrorDetails.call(this, item, secret);
			return { noWebhookResponse: true, workflowData: [[{ json: item }]] };
		}

		// n8n answers 200 (responseMode onReceived) once the run is created.
		return { workflowData: [[{ json: item }]] };
	}
}
