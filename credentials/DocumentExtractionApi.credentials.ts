import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { ALLOW_HTTP_OPTION, readCredential } from '../nodes/shared/credential';

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
				'Address of the Document Extraction Service: https://, a host, and a path prefix such as /v1 if the service has one (no endpoint path, no query). A trailing slash is fine.',
		},
		{
			displayName: ALLOW_HTTP_OPTION,
			name: 'allowUnencryptedHttp',
			type: 'boolean',
			default: false,
			description:
				'Whether to accept an http:// Base URL for a host other than this machine (loopback). The API key then travels unencrypted: use it only for a trusted gateway on your own network.',
		},
	];

	// The nodes' checks: no malformed key, no key bound for an unencrypted address leaves n8n.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const { apiKey } = readCredential(credentials);
		requestOptions.headers = { ...requestOptions.headers, Authorization: `Bearer ${apiKey}` };
		return requestOptions;
	}
}
