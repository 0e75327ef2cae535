import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError, sleep } from 'n8n-workflow';

import { optionsCollection, projectLocator } from '../shared/descriptions';
import { projectText } from '../shared/projects';
import { searchProjects } from '../shared/listSearch';
import { serviceAnswerOf } from '../shared/transport';
import {
	getTask,
	LOOKUP_BUDGET_MS,
	lookupLimits,
	TASK_COMPLETED,
} from '../shared/transport/service';
import { onAbort } from '../shared/wait';
import {
	DEFAULT_TIMESTAMP_TOLERANCE_MINUTES,
	deliveryItem,
	deliveryKey,
	parseDeliveryBody,
	passesStatusFilter,
	refuseByTimestamp,
	type StatusFilter,
} from './delivery';
import { recentDeliveries } from './recentDeliveries';
import {
	createRegistration,
	getRegistration,
	registrationExists,
	retiredRegistrationFor,
	REGISTER_AGAIN_OPTION,
	retireRegistration,
} from './registration';
import { SIGNATURE_HEADER, verifySignature } from './signature';

type WebhookResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

/**
 * How long a copy of a delivery waits for an earlier copy's answer before it is asked to come
 * again (503). Well below the service's 10 s limit.
 */
const COPY_WAIT_MS = 5_000;

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
	const data = this.getWorkflowStaticData('node');
	const current = getRegistration(data);
	if (current) return current.secret;
	const project = projectText(this.getNodeParameter('project', '', { extractValue: true }));
	return retiredRegistrationFor(data, this.getNodeWebhookUrl('default'), project)?.secret ?? '';
}

/**
 * Adds the error message of a failed task from GET /task_status; never loses the delivery.
 * The lookup is over within LOOKUP_BUDGET_MS whatever the service answers (slowly, 429 with
 * a long Retry-After, or not at all), so the run starts in time.
 */
async function addErrorDetails(this: IWebhookFunctions, item: IDataObject): Promise<void> {
	const taskId = item.task_id;
	if (typeof taskId !== 'string' || taskId === '') {
		item.errorDetailsUnavailable = 'The delivery names no task_id to look the error up by';
		return;
	}
	const budget = onAbort(AbortSignal.timeout(LOOKUP_BUDGET_MS + 1000));
	try {
		const task = (await Promise.race([
			getTask.call(this, taskId, undefined, lookupLimits()),
			budget.promise.then(() => {
				throw new NodeOperationError(
					this.getNode(),
					`no answer within ${LOOKUP_BUDGET_MS / 1000} s`,
				);
			}),
		])) as IDataObject | undefined;
		const error = task && typeof task === 'object' ? task.error : undefined;
		if (typeof error === 'string' && error !== '') {
			item.error = error;
		} else {
			item.errorDetailsUnavailable = 'The service gave no error message for this task';
		}
	} catch (error) {
		item.errorDetailsUnavailable = `Could not fetch the error message: ${(error as Error).message}`;
		const answer = serviceAnswerOf(error);
		if (answer?.detail !== undefined && answer.detail !== null) {
			item.errorLookupDetail = answer.detail as IDataObject;
		}
	} finally {
		budget.dispose();
	}
}

/** The key of one task outcome at this node, in this workflow and mode (a test listen is apart). */
function scopedKey(this: IWebhookFunctions, key: string): string {
	const node = this.getNode();
	return [this.getWorkflow().id ?? '', node.id ?? node.name, this.getMode(), key].join('|');
}

/**
 * Claims a delivery for this process: 'claimed' when no earlier copy started a run, 'duplicate'
 * when one did, 'busy' when an earlier copy is still being answered after COPY_WAIT_MS.
 */
async function claimDelivery(key: string): Promise<'claimed' | 'duplicate' | 'busy'> {
	const deadline = Date.now() + COPY_WAIT_MS;
	for (;;) {
		const claim = recentDeliveries.claim(key);
		if (claim.state === 'claimed') return 'claimed';
		if (claim.state === 'seen') return 'duplicate';
		const left = deadline - Date.now();
		if (left <= 0) return 'busy';
		const timer = new AbortController();
		const started = await Promise.race([
			claim.outcome,
			sleep(left, timer.signal).then(
				() => undefined,
				() => undefined,
			),
		]);
		timer.abort();
		if (started === true) return 'duplicate';
		if (started === undefined) return 'busy';
		// the earlier copy started no run: claim again (one waiting copy wins)
	}
}

/**
 * Settles the claim once n8n has answered the delivery: a 2xx means the run was created; any
 * other answer means it was not, and the next copy may start it. A connection closed before
 * the answer counts as started: n8n goes on creating the run after the sender has gone.
 */
function settleWhenAnswered(res: WebhookResponse, key: string): void {
	const response = res as unknown as {
		once?: (event: string, listener: () => void) => unknown;
		statusCode?: number;
		closed?: boolean;
		destroyed?: boolean;
	};
	// Without events to wait for, or when the sender has already gone (its 'close' is past), the
	// delivery counts as started: n8n creates the run all the same.
	if (
		typeof response.once !== 'function' ||
		response.closed === true ||
		response.destroyed === true
	) {
		recentDeliveries.settle(key, true);
		return;
	}
	let settled = false;
	const settle = (started: boolean) => {
		if (settled) return;
		settled = true;
		recentDeliveries.settle(key, started);
	};
	response.once('finish', () => settle((response.statusCode ?? 200) < 300));
	response.once('close', () => settle(true));
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
					'The project whose finished documents start this workflow. Publishing registers the production URL there once; “Listen for test event” registers the test URL (…/webhook-test/…) anew for every listen. The service delivers only to an https address it can reach: set n8n’s WEBHOOK_URL to its public https address.',
				displayOptions: { show: { useExistingRegistration: [false] } },
			},
			{
				displayName: 'Use Existing Registration',
				name: 'useExistingRegistration',
				type: 'boolean',
				default: false,
				description:
					'Whether to skip registering a webhook and use one that is already registered for this node’s URL (with Register Webhook or in the dashboard). Register the test URL once this way to test without a new registration for every listen.',
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
					displayName: REGISTER_AGAIN_OPTION,
					name: 'registerAgain',
					type: 'boolean',
					default: false,
					description:
						'Whether the next publish registers this node’s webhook at the service anew, with a new secret, instead of reusing the registration remembered from an earlier publish. Use it after deleting the webhook in the service’s dashboard; later publishes reuse the new registration. Turn it off afterwards.',
					displayOptions: { show: { '/useExistingRegistration': [false] } },
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
				{
					displayName: 'Timestamp Tolerance (Minutes)',
					name: 'timestampTolerance',
					type: 'number',
					typeOptions: { minValue: 0 },
					default: DEFAULT_TIMESTAMP_TOLERANCE_MINUTES,
					description:
						'How far the signed timestamp of a delivery may lie from n8n’s clock. An older (replayed) or future delivery is acknowledged and starts nothing; one without a readable timestamp is refused. 0 turns the check off.',
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

		// The signature is checked over the raw bytes before anything looks at the body. n8n reads
		// them for the content types it parses; any other body is read here.
		const secret = signingSecret.call(this);
		if (!Buffer.isBuffer(req.rawBody) && typeof req.readRawBody === 'function') {
			await req.readRawBody();
		}
		const rawBody = Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
		if (!verifySignature(rawBody, req.headers?.[SIGNATURE_HEADER], secret)) {
			return reply(res, 401, { error: 'invalid signature' });
		}

		const payload = parseDeliveryBody(rawBody as Buffer);
		if (!payload) return reply(res, 400, { error: 'body is not a JSON object' });

		// A signed delivery is also a dated one: an old copy replayed later starts nothing.
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const stale = refuseByTimestamp.call(this, payload, options);
		if (stale) return reply(res, stale.status, stale.body);

		if (payload.event !== TASK_COMPLETED) {
			return reply(res, 200, { received: true, ignored: 'event not handled' });
		}

		const statusFilter = (options.statusFilter as StatusFilter | undefined) ?? 'both';
		if (!passesStatusFilter(payload.status, statusFilter)) {
			return reply(res, 200, { received: true, ignored: 'status filtered out' });
		}

		// The service retries a delivery it thinks failed: emit each task outcome once. Nothing is
		// written to static data, so n8n saves nothing per delivery.
		const outcomeKey = deliveryKey(payload);
		if (outcomeKey !== undefined) {
			const key = scopedKey.call(this, outcomeKey);
			const claim = await claimDelivery(key);
			if (claim === 'duplicate') {
				return reply(res, 200, { received: true, ignored: 'duplicate delivery' });
			}
			if (claim === 'busy') {
				return reply(res, 503, {
					error: 'an earlier copy of this delivery is still being processed; send it again later',
				});
			}
			settleWhenAnswered(res, key);
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
