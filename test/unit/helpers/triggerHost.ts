/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { EventEmitter } from 'node:events';
import nock from 'nock';
import type {
	IDataObject,
	IHookFunctions,
	INode,
	INodeType,
	INodeTypes,
	IWebhookFunctions,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { DocumentExtractionTrigger } from '../../../nodes/DocumentExtractionTrigger/DocumentExtractionTrigger.node';
import { API_KEY, BASE_URL, parameterValue, sendPlain, useOfflineNock } from './context';

export { API_KEY, BASE_URL } from './context';
export const PROJECT_ID = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c';
export const OTHER_PROJECT_ID = '7a0d4c55-2e1b-4f3a-8c9d-0b1e2f3a4b5c';
export const PRODUCTION_URL = 'https://n8n.example.com/webhook/0b7e6c1d/webhook';
export const TEST_URL = 'https://n8n.example.com/webhook-test/0b7e6c1d/webhook';
export const NODE_NAME = 'Document Extraction Trigger';
export const NODE_TYPE = 'n8n-nodes-document-extraction.documentExtractionTrigger';

export const nodeType = new DocumentExtractionTrigger();

const nodeTypes = {
	getByName: () => nodeType as INodeType,
	getByNameAndVersion: () => nodeType as INodeType,
	getKnownTypes: () => ({}),
} as unknown as INodeTypes;

/** An HTTP response as express gives it: it emits 'finish' once answered, then 'close'. */
class CapturedResponse extends EventEmitter {
	statusCode?: number;
	body?: unknown;
	ended = false;
	/** Whether the connection has closed (as on express's response) */
	closed = false;

	status(code: number) {
		this.statusCode = code;
		return this;
	}
	json = (body: unknown) => this.finish(body);
	send = this.json;
	end = () => this.finish(undefined);
	/** The connection closes before any answer was sent (the sender gave up). */
	drop() {
		this.closed = true;
		this.emit('close');
	}
	private finish(body: unknown) {
		this.body = body;
		this.ended = true;
		this.emit('finish');
		this.closed = true;
		this.emit('close');
		return this;
	}
}

export interface Delivery {
	headers: Record<string, unknown>;
	body: unknown;
	rawBody: Buffer | undefined;
	/** n8n's reader of the request body, for bodies it did not read itself */
	readRawBody?: () => void;
}

/** The signature the service sends, as the emulator signs its deliveries. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the emulator is plain JavaScript
const { sign } = require('../../../emulator/lib/outbound.js');
export const computeSignature = (body: string | Buffer, secret: string): string => sign(secret, body);

/** A delivery as n8n hands it to the node: parsed body, and the raw bytes in rawBody. */
export function signedDelivery(
	payload: unknown,
	secret: string,
	options: { raw?: string; signature?: unknown; contentType?: string } = {},
): Delivery {
	const raw = options.raw ?? JSON.stringify(payload);
	const rawBody = Buffer.from(raw, 'utf8');
	const headers: Record<string, unknown> = {
		'content-type': options.contentType ?? 'application/json',
		'content-length': String(rawBody.length),
	};
	const signature = 'signature' in options ? options.signature : computeSignature(rawBody, secret);
	if (signature !== undefined) headers['x-service-signature'] = signature;
	let body: unknown = {};
	try {
		body = JSON.parse(raw);
	} catch {
		body = raw;
	}
	return { headers, body, rawBody };
}

/** Now: the trigger refuses deliveries dated outside its tolerance. */
const SIGNED_AT = new Date().toISOString();

export function completedPayload(overrides: IDataObject = {}): IDataObject {
	return {
		event: 'task.completed',
		task_id: '9b2f7d0e-1c3a-4e5b-8f6a-7d8c9e0f1a2b',
		status: 'complete',
		result: { invoice_number: 'INV-001', total: 119.5 },
		project_id: PROJECT_ID,
		document_type: 'invoice',
		timestamp: SIGNED_AT,
		...overrides,
	};
}

let workflowCount = 0;

/**
 * The n8n host around one workflow with the trigger: static data kept as the database does (JSON,
 * saved only when n8n's change flag is set), real n8n-workflow Workflow objects.
 */
export class Host {
	/** The workflow's static data as stored in the database. */
	stored: IDataObject = {};

	/** Each host is its own workflow, so that deliveries remembered by the process stay apart. */
	readonly workflowId = `wf-${++workflowCount}`;

	saves = 0;

	constructor(
		public parameters: IDataObject,
		public credentials: IDataObject = { apiKey: API_KEY, baseUrl: BASE_URL },
	) {}

	/** A Workflow loaded from the database, as n8n builds one for activation or a live webhook. */
	load(staticData: IDataObject = JSON.parse(JSON.stringify(this.stored))): Workflow {
		const node: INode = {
			id: 'trigger-1',
			name: NODE_NAME,
			type: NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			webhookId: '0b7e6c1d',
			parameters: JSON.parse(JSON.stringify(this.parameters)),
		};
		return new Workflow({
			id: this.workflowId,
			name: 'Invoices',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
			staticData,
		});
	}

	/** What WorkflowStaticDataService.saveStaticData does: write back only changed data. */
	save(workflow: Workflow): void {
		const data = workflow.staticData as IDataObject;
		if (data.__dataChanged === true) {
			this.stored = JSON.parse(JSON.stringify(data));
			data.__dataChanged = false;
			this.saves++;
		}
	}

	private base(workflow: Workflow, webhookUrl = PRODUCTION_URL) {
		const node = workflow.getNode(NODE_NAME)!;
		return {
			getNode: () => node,
			getWorkflow: () => ({ id: workflow.id, name: workflow.name, active: workflow.active }),
			getMode: () => 'trigger',
			getActivationMode: () => 'activate',
			getWebhookName: () => 'default',
			getNodeWebhookUrl: () => webhookUrl,
			getWorkflowStaticData: (type: string) => workflow.getStaticData(type, node),
			getCredentials: async () => this.credentials,
			getNodeParameter: (name: string, ...rest: unknown[]) =>
				parameterValue(name, node.parameters[name], rest),
			helpers: { httpRequest: sendPlain },
		};
	}

	hook(workflow: Workflow, webhookUrl: string = PRODUCTION_URL): IHookFunctions {
		return this.base(workflow, webhookUrl) as unknown as IHookFunctions;
	}

	webhook(workflow: Workflow, delivery: Delivery) {
		const res = new CapturedResponse();
		const req = { method: 'POST', ...delivery };
		const context = {
			...this.base(workflow),
			getRequestObject: () => req,
			getResponseObject: () => res,
			getHeaderData: () => delivery.headers,
			getBodyData: () => delivery.body,
		} as unknown as IWebhookFunctions;
		return { context, res };
	}

	/** n8n publishing the workflow: checkExists, then create if it said false; then save. */
	async publish(webhookUrl: string = PRODUCTION_URL): Promise<void> {
		const workflow = this.load();
		const methods = nodeType.webhookMethods.default;
		const ctx = this.hook(workflow, webhookUrl);
		if (!(await methods.checkExists.call(ctx))) await methods.create.call(ctx);
		this.save(workflow);
	}

	/** n8n unpublishing the workflow (also the first half of publishing it again): delete; save. */
	async unpublish(webhookUrl: string = PRODUCTION_URL): Promise<void> {
		const workflow = this.load();
		await nodeType.webhookMethods.default.delete.call(this.hook(workflow, webhookUrl));
		this.save(workflow);
	}

	/**
	 * A live delivery: the workflow is loaded from the database and the node's webhook runs.
	 * Unless the node answered itself, n8n then creates the run and answers (`answer`: 200, or
	 * the error status n8n sends when it could not create the run); then the static data is saved.
	 */
	async deliver(delivery: Delivery, answer = 200) {
		const { result, res } = await this.receive(delivery);
		if (!res.ended) res.status(answer).json({ message: 'Workflow was started' });
		return { result, res };
	}

	/** The node's part of a delivery, before n8n answers it (and before static data is saved). */
	async receive(delivery: Delivery) {
		const workflow = this.load();
		const { context, res } = this.webhook(workflow, delivery);
		const result = await nodeType.webhook.call(context);
		this.save(workflow);
		return { result, res };
	}

	/** The signing secret of the current registration, as stored. */
	get secret(): string {
		return String((this.nodeData().registration as IDataObject | undefined)?.secret ?? '');
	}

	nodeData(): IDataObject {
		return (this.stored[`node:${NODE_NAME}`] as IDataObject | undefined) ?? {};
	}
}

/** No real connection; a test fails on a request nothing matched or a mock left unused. */
export function strictNock(onReset: () => void = () => {}): void {
	const unmatched: string[] = [];
	nock.emitter.on('no match', (req: { method?: string; path?: string }) => {
		unmatched.push(`${req.method} ${req.path}`);
	});
	useOfflineNock();
	beforeEach(() => {
		unmatched.length = 0;
		onReset();
	});
	afterEach(() => {
		expect(unmatched).toEqual([]);
		expect(nock.pendingMocks()).toEqual([]);
	});
}
