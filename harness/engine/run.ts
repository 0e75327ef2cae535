/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
/** Running a workflow through WorkflowExecute. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ExecutionLifecycleHooks, ExternalSecretsProxy, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	INode,
	ITaskData,
	ITaskDataConnections,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
} from 'n8n-workflow';
import { UnexpectedError, Workflow, createRunExecutionData, deepCopy } from 'n8n-workflow';
import { ensureCoreServices, installBinaryDataService } from './core';
import { HarnessCredentialsHelper } from './credentials';
import { HarnessNodeTypes, harnessNodeTypes } from './nodes';
import type { RunOptions, RunResult } from './types';

// ---------------------------------------------------------------------------
// Running a workflow
// ---------------------------------------------------------------------------

let queue: Promise<unknown> = Promise.resolve();
let runCounter = 0;

/** The first node without incoming connections. */
function startNodeOf(workflow: Workflow, nodes: INode[]): INode {
	const first = nodes.find((n) => !n.disabled && workflow.getParentNodes(n.name).length === 0);
	if (!first) throw new Error('runWorkflow: the workflow has no node without incoming connections');
	return workflow.getNode(first.name)!;
}

/** Assigns the given credentials to nodes whose type declares them and has none set. */
function assignCredentials(
	nodes: INode[],
	nodeTypes: HarnessNodeTypes,
	credentials: Record<string, ICredentialDataDecryptedObject>,
): void {
	for (const node of nodes) {
		let declared: string[] = [];
		try {
			declared = (
				nodeTypes.getByNameAndVersion(node.type, node.typeVersion).description.credentials ?? []
			).map((c) => c.name);
		} catch {
			continue;
		}
		for (const type of declared) {
			if (!(type in credentials) || node.credentials?.[type]) continue;
			node.credentials = { ...node.credentials, [type]: { id: `${type}-id`, name: type } };
		}
	}
}

export async function runWorkflow(opts: RunOptions): Promise<RunResult> {
	const previous = queue;
	let release!: () => void;
	queue = new Promise<void>((resolve) => (release = resolve));
	await previous.catch(() => undefined);
	try {
		return await runWorkflowNow(opts);
	} finally {
		release();
	}
}

async function runWorkflowNow(opts: RunOptions): Promise<RunResult> {
	const { rootDir } = ensureCoreServices();
	const runNo = ++runCounter;
	const executionId = `${runNo}`;
	const workflowId = opts.workflow.id ?? 'harness-workflow';
	const mode = 'manual';
	const binaryMode = opts.binaryMode ?? 'default';

	const storagePath = path.join(rootDir, `run-${runNo}`);
	mkdirSync(storagePath, { recursive: true });
	const binaryDataService = await installBinaryDataService(binaryMode, storagePath);

	const nodeTypes = new HarnessNodeTypes({ ...opts.types.nodeTypes, ...harnessNodeTypes() });
	const credentialsHelper = new HarnessCredentialsHelper(
		opts.types.credentialTypes,
		opts.credentials,
	);

	const nodes = deepCopy(opts.workflow.nodes);
	assignCredentials(nodes, nodeTypes, opts.credentials ?? {});
	const connections = deepCopy(opts.workflow.connections);
	const settings: IWorkflowSettings = { executionOrder: 'v1', ...(opts.workflow.settings ?? {}) };

	const workflow = new Workflow({
		id: workflowId,
		name: opts.workflow.name ?? 'Harness workflow',
		nodes,
		connections,
		active: false,
		nodeTypes,
		settings,
	});

	const workflowData = {
		id: workflowId,
		name: workflow.name,
		active: false,
		isArchived: false,
		nodes,
		connections,
		settings,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as unknown as IWorkflowBase;
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	hooks.addHandler('nodeExecuteBefore', (nodeName) => opts.onNodeStart?.(nodeName));
	hooks.addHandler('nodeExecuteAfter', (nodeName, taskData) => opts.onNodeEnd?.(nodeName, taskData));

	const notSupported = (what: string) => async () => {
		throw new UnexpectedError(`${what} is not supported by the integration harness`);
	};
	const additionalData = {
		credentialsHelper,
		hooks,
		executionId,
		workflowId,
		userId: 'harness-user',
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678',
		formBaseUrl: 'http://localhost:5678/form',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		formTestBaseUrl: 'http://localhost:5678/form-test',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		mcpBaseUrl: 'http://localhost:5678/mcp',
		mcpTestBaseUrl: 'http://localhost:5678/mcp-test',
		variables: {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		executeWorkflow: notSupported('Executing sub-workflows'),
		startRunnerTask: notSupported('Task runners'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		sendDataToUI: () => {},
		setExecutionStatus: () => {},
	} as unknown as IWorkflowExecuteAdditionalData;

	const startNode = startNodeOf(workflow, nodes);
	const startData: ITaskDataConnections = {
		main: [opts.inputItems ? deepCopy(opts.inputItems) : [{ json: {} }]],
	};
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: startNode, data: startData, source: null }],
		},
	});

	const workflowExecute = new WorkflowExecute(additionalData, mode, runExecutionData);
	const run = await workflowExecute.processRunExecutionData(workflow);

	const runData = run.data.resultData.runData;
	const taskOf = (nodeName: string, runIndex: number): ITaskData => {
		const task = runData[nodeName]?.[runIndex];
		if (!task) {
			const errors = Object.entries(runData)
				.filter(([, tasks]) => tasks.some((t) => t.error))
				.map(([name, tasks]) => `${name}: ${tasks.find((t) => t.error)!.error!.message}`);
			const workflowError = run.data.resultData.error?.message;
			throw new Error(
				`Node "${nodeName}" has no run #${runIndex} (ran: ${Object.keys(runData).join(', ') || 'none'}` +
					`${errors.length ? `; errors: ${errors.join('; ')}` : ''}` +
					`${workflowError ? `; workflow error: ${workflowError}` : ''})`,
			);
		}
		return task;
	};
	const outputOf = (nodeName: string, outputIndex = 0, runIndex = 0) =>
		taskOf(nodeName, runIndex).data?.main?.[outputIndex] ?? [];

	return {
		run,
		outputOf,
		errorOf: (nodeName, runIndex = 0) => runData[nodeName]?.[runIndex]?.error,
		binaryOf: async (nodeName, itemIndex = 0, propertyName = 'data') => {
			const binary = outputOf(nodeName)[itemIndex]?.binary?.[propertyName];
			if (!binary) {
				throw new Error(
					`Item ${itemIndex} of "${nodeName}" has no binary property "${propertyName}"`,
				);
			}
			return await binaryDataService.getAsBuffer(binary);
		},
	};
}
