import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { addOutputHints } from './common/hints';
import { NodeRun } from './common/itemRunner';
import * as document from './document/Document.resource';
import * as project from './project/Project.resource';
import { MESSAGES, refusal } from '../messages';

interface Operation {
	execute(this: IExecuteFunctions, run: NodeRun): Promise<INodeExecutionData[]>;
}

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

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
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
