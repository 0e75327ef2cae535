import { createHash, timingSafeEqual } from 'crypto';
import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { NO_DOCUMENTS, readDocuments } from './documents';

export const KEY_HEADER = 'x-intake-key';
const MIN_KEY_LENGTH = 16;

/** Whether the header holds the key, compared in constant time (both hashed to one length). */
export function isIntakeKey(header: unknown, key: unknown): boolean {
	if (typeof header !== 'string' || typeof key !== 'string' || key === '') return false;
	const digest = (text: string) => createHash('sha256').update(text).digest();
	return timingSafeEqual(digest(header), digest(key));
}

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

	methods = {
		credentialTest: {
			async testIntakeKey(this: ICredentialTestFunctions, credential: ICredentialsDecrypted) {
				const length = String(credential.data?.secret ?? '').length;
				if (length >= MIN_KEY_LENGTH)
					return { status: 'OK' as const, message: 'The key is long enough' };
				const message = `The key has ${length} characters, too few to resist guessing. Use a random one of at least ${MIN_KEY_LENGTH}: run openssl rand -hex 24 and paste what it prints.`;
				return { status: 'Error' as const, message };
			},
		},
	};

	// Intake's address is n8n's own: there is nothing to register elsewhere when it is published.
	webhookMethods = {
		default: {
			checkExists: async () => true,
			create: async () => true,
			delete: async () => true,
		},
	};

	/**
	 * Refuses a post without the key (403) or without documents (400) before any run starts, so
	 * nothing of it is saved; else one item per document, and nothing of the request but them.
	 */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const res = this.getResponseObject();
		const { secret } = await this.getCredentials('documentExtractionIntakeApi');
		if (!isIntakeKey(this.getHeaderData()[KEY_HEADER], secret)) {
			const error = `The post has no ${KEY_HEADER} header, or not the Intake Key. Send the key of the credential in this workflow's Receive Documents as the X-Intake-Key header.`;
			res.status(403).json([{ kind: 'wrong_intake_key', error }]);
			return { noWebhookResponse: true };
		}
		const documents = readDocuments(this.getBodyData());
		if (!documents) {
			res.status(400).json([NO_DOCUMENTS]);
			return { noWebhookResponse: true };
		}
		return { workflowData: [documents.map((json) => ({ json, pairedItem: { item: 0 } }))] };
	}
}
