import { createHash, timingSafeEqual } from 'crypto';
import type {
	ICredentialTestFunction,
	IDataObject,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { NO_DOCUMENTS, readDocuments } from './documents';

const HEADER = 'x-intake-key';
const MIN_KEY_LENGTH = 16;
const WRONG_KEY = {
	kind: 'wrong_intake_key',
	error: `The post has no ${HEADER} header, or not the Intake Key. Send the key of the credential in this workflow's Receive Documents as the X-Intake-Key header.`,
};

/** Whether the header holds the key, compared in constant time (both hashed to one length). */
export function isIntakeKey(header: unknown, key: unknown): boolean {
	if (typeof header !== 'string' || typeof key !== 'string' || key === '') return false;
	const digest = (text: string) => createHash('sha256').update(text).digest();
	return timingSafeEqual(digest(header), digest(key));
}

const testIntakeKey: ICredentialTestFunction = async function ({ data }) {
	const length = String(data?.secret ?? '').length;
	if (length >= MIN_KEY_LENGTH) return { status: 'OK', message: 'The key is long enough' };
	const message = `The key has ${length} characters, too few to resist guessing. Use a random one of at least ${MIN_KEY_LENGTH}: run openssl rand -hex 24 and paste what it prints.`;
	return { status: 'Error', message };
};

export class DocumentExtractionIntake implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document Extraction Intake',
		name: 'documentExtractionIntake',
		icon: {
			light: 'file:../DocumentExtraction/documentExtraction.svg',
			dark: 'file:../DocumentExtraction/documentExtraction.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '=POST /{{$parameter["path"]}}',
		description:
			'Starts the workflow with one item per document a caller posts, when the post carries the Intake Key',
		defaults: { name: 'Receive Documents' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'documentExtractionIntakeApi', required: true, testedBy: 'testIntakeKey' },
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'responseNode',
				path: '={{$parameter["path"]}}',
				isFullPath: true,
			},
		],
		properties: [
			{
				displayName: 'Path',
				name: 'path',
				type: 'string',
				default: 'document-extraction-intake',
				required: true,
				description:
					'Where callers post: the production URL is …/webhook/ followed by this path. The workflow answers them through its Respond to Webhook node.',
			},
		],
	};

	methods = { credentialTest: { testIntakeKey } };

	// Intake's address is n8n's own: there is nothing to register elsewhere when it is published.
	webhookMethods = {
		default: { checkExists: async () => true, create: async () => true, delete: async () => true },
	};

	/** A post without the key (403) or without documents (400) is answered here and starts no run. */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const refuse = (status: number, answer: IDataObject) => {
			this.getResponseObject().status(status).json([answer]);
			return { noWebhookResponse: true };
		};
		const { secret } = await this.getCredentials('documentExtractionIntakeApi');
		if (!isIntakeKey(this.getHeaderData()[HEADER], secret)) return refuse(403, WRONG_KEY);
		const documents = readDocuments(this.getBodyData());
		if (!documents) return refuse(400, NO_DOCUMENTS);
		// one item per document, and nothing else of the request: never its headers
		return { workflowData: [documents.map((json) => ({ json, pairedItem: { item: 0 } }))] };
	}
}
