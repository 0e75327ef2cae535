import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as document from './document/Document.resource';
import type { DocumentExtractionType } from './node.type';
import * as project from './project/Project.resource';

type Operation = (
	this: IExecuteFunctions,
	items: INodeExecutionData[],
) => Promise<INodeExecutionData[]>;

const operations: {
	[R in DocumentExtractionType['resource']]: Record<string, { execute: Operation }>;
} = {
	document: {
		submit: document.submit,
		getStatus: document.getStatus,
		submitAndWait: document.submitAndWait,
	},
	project: {
		list: project.list,
		registerWebhook: project.registerWebhook,
	},
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as DocumentExtractionType['resource'];
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = operations[resource]?.[operation];
	if (!handler) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	}
	return [await handler.execute.call(this, items)];
}
