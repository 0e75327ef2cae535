import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as document from './actions/document/Document.resource';
import * as project from './actions/project/Project.resource';
import { addOutputHints } from './actions/common/hints';
import { NodeRun } from './actions/common/itemRunner';
import { MESSAGES, refusal } from './messages';
import { testCredential } from '../shared/credentialTest';
import * as listSearch from '../shared/listSearch';
import * as loadOptions from './methods/loadOptions';

type Operation = Pick<typeof document.submit, 'execute'>;

/** Every resource with its operations: a missing or extra handler does not compile. */
type NodeMap = {
	document: 'submit' | 'getStatus' | 'submitAndWait';
	project: 'list' | 'registerWebhook';
};

const operations: { [R in keyof NodeMap]: Record<NodeMap[R], Operation> } = {
	document: {
		submit: document.submit,
		getStatus: document.getStatus,
		submitAndWait: document.submitAndWait,
	},
	project: { list: project.list, registerWebhook: project.registerWebhook },
};

const own = (map: object, key: string) => Object.prototype.hasOwnProperty.call(map, key);

/** Whether the node runs as a tool of an AI agent or an MCP server (the …Tool node variant). */
function isToolRun(this: IExecuteFunctions): boolean {
	const context = this as IExecuteFunctions & { isToolExecution?: () => boolean };
	if (typeof context.isToolExecution === 'function' && context.isToolExecution()) return true;
	return String(this.getNode().type ?? '').endsWith('Tool');
}

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
		const resource = this.getNodeParameter('resource', 0) as string;
		const operation = this.getNodeParameter('operation', 0) as string;
		// Hiding the option in the editor does not stop a tool node saved with it.
		if (resource === 'project' && operation === 'registerWebhook' && isToolRun.call(this)) {
			throw refusal(this, MESSAGES.notForTools);
		}
		const byOperation: Record<string, Operation> | undefined = own(operations, resource)
			? operations[resource as keyof NodeMap]
			: undefined;
		if (!byOperation || !own(byOperation, operation)) {
			throw refusal(this, { message: MESSAGES.unsupported(operation, resource) });
		}
		const run = new NodeRun(this);
		const output = await byOperation[operation].execute.call(this, run);
		addOutputHints.call(this, run.report);
		return [output];
	}
}
