import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as document from './actions/document/Document.resource';
import * as project from './actions/project/Project.resource';
import { router } from './actions/router';
import { testCredential } from '../shared/credentialTest';
import * as listSearch from '../shared/listSearch';
import * as loadOptions from './methods/loadOptions';

export class DocumentExtraction implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document Extraction',
		name: 'documentExtraction',
		icon: { light: 'file:documentExtraction.svg', dark: 'file:documentExtraction.dark.svg' },
		group: ['transform'],
		version: 1,
		// A string literal, as n8n's lint requires: one "value: name" per operation (tested).
		subtitle:
			'={{ { submit: "Submit", getStatus: "Get Status", submitAndWait: "Submit and Wait", list: "List Projects", registerWebhook: "Register Webhook" }[$parameter["operation"]] }}',
		description: 'Extract structured data from invoices, receipts and ID documents',
		defaults: { name: 'Document Extraction' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'documentExtractionApi', required: true, testedBy: 'testCredential' }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Document', value: 'document' },
					{ name: 'Project', value: 'project' },
				],
				default: 'document',
			},
			...document.description,
			...project.description,
		],
	};

	methods = { listSearch, loadOptions, credentialTest: { testCredential } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
