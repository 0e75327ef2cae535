import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

/** The key callers of Document Extraction Intake send in its X-Intake-Key header. */
export class DocumentExtractionIntakeApi implements ICredentialType {
	name = 'documentExtractionIntakeApi';
	displayName = 'Document Extraction Intake API';
	icon: Icon = {
		light: 'file:../nodes/DocumentExtraction/documentExtraction.svg',
		dark: 'file:../nodes/DocumentExtraction/documentExtraction.dark.svg',
	};
	documentationUrl =
		'https://github.com/document-extraction/n8n-nodes-document-extraction/blob/main/docs/production.md';
	properties: INodeProperties[] = [
		{
			displayName: 'Key',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The value callers send in the X-Intake-Key header: a random one, such as what openssl rand -hex 24 prints',
		},
	];
}
