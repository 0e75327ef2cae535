import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { addOutputHints } from './common/hints';
import { NodeRun } from './common/itemRunner';
import * as document from './document/Document.resource';
import type { NodeMap } from './node.type';
import * as project from './project/Project.resource';
import { nodeError } from '../../shared/transport/errors';
import { MESSAGES } from '../messages';

interface OperationModule {
	/** Runs the operation on the run's items; what the user must know goes to `run.report`. */
	execute(this: IExecuteFunctions, run: NodeRun): Promise<INodeExecutionData[]>;
}

/** One handler per resource and operation of NodeMap: a missing or extra one does not compile. */
type OperationMap = { [R in keyof NodeMap]: { [O in NodeMap[R]]: OperationModule } };

const operations: OperationMap = {
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

function hasKey<T extends object>(map: T, key: string): key is Extract<keyof T, string> {
	return Object.prototype.hasOwnProperty.call(map, key);
}

/** The handler for a resource and operation, or undefined when the node has no such operation. */
function findOperation(resource: string, operation: string): OperationModule | undefined {
	if (!hasKey(operations, resource)) return undefined;
	const byOperation: Record<string, OperationModule> = operations[resource];
	return hasKey(byOperation, operation) ? byOperation[operation] : undefined;
}

/** Operations an AI agent or MCP client may not run through the node's tool variant. */
const NOT_FOR_TOOLS: ReadonlyArray<readonly [string, string]> = [['project', 'registerWebhook']];

/** Whether the node runs as a tool of an AI agent or an MCP server (the …Tool node variant). */
function isToolRun(this: IExecuteFunctions): boolean {
	const context = this as IExecuteFunctions & { isToolExecution?: () => boolean };
	if (typeof context.isToolExecution === 'function' && context.isToolExecution()) return true;
	return String(this.getNode().type ?? '').endsWith('Tool');
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	if (NOT_FOR_TOOLS.some(([r, o]) => r === resource && o === operation) && isToolRun.call(this)) {
		// Hiding the option in the editor does not stop a tool node saved with it.
		const { message, description } = MESSAGES.notForTools;
		throw nodeError(this, 'invalid_input', message, { description });
	}
	const handler = findOperation(resource, operation);
	if (!handler) {
		throw nodeError(this, 'invalid_input', MESSAGES.unsupported(operation, resource));
	}
	const run = new NodeRun(this);
	const output = await handler.execute.call(this, run);
	addOutputHints.call(this, run.report);
	return [output];
}
