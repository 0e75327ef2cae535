import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

export const API_KEY_PREFIX = 'vnd_';

/**
 * Returns the key when it has the service's format, otherwise throws an error that
 * says what a key looks like and where to get one. The key itself is never echoed.
 */
export function assertApiKeyFormat(apiKey: unknown): string {
	const key = typeof apiKey === 'string' ? apiKey.trim() : '';
	if (!key.startsWith(API_KEY_PREFIX) || key.length <= API_KEY_PREFIX.length) {
		throw new Error(
			'The API key of the Document Extraction API credential has the wrong format: keys look like vnd_… ' +
				'Copy the key from the web dashboard of the Document Extraction Service (or ask your account administrator for one) ' +
				'and paste it into the credential.',
		);
	}
	return key;
}

export class DocumentExtractionApi implements ICredentialType {
	name = 'documentExtractionApi';

	displayName = 'Document Extraction API';

	icon: Icon = {
		light: 'file:../nodes/DocumentExtraction/documentExtraction.svg',
		dark: 'file:../nodes/DocumentExtraction/documentExtraction.dark.svg',
	};

	documentationUrl =
		'https://github.com/document-extraction/n8n-nodes-document-extraction#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'vnd_…',
			description:
				'Your API key. Keys start with vnd_ and are created in the web dashboard of the Document Extraction Service.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				'Address of the Document Extraction Service, without a path to an endpoint. A trailing slash is fine.',
		},
	];

	// Sends "Authorization: Bearer <key>" after checking the key's format, so a malformed key
	// is refused before any request (including the credential test) leaves n8n.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const apiKey = assertApiKeyFormat(credentials.apiKey);
		requestOptions.headers = { ...requestOptions.headers, Authorization: `Bearer ${apiKey}` };
		return requestOptions;
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ String($credentials.baseUrl).replace(/\\/+$/, "") }}',
			url: '/projects',
			method: 'GET',
		},
	};
}
