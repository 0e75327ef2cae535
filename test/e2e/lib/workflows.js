'use strict';

/**
 * The workflows the suite imports into n8n: small builders for nodes and linear
 * workflows, and the workflow of each case (ids in WF).
 */

const crypto = require('node:crypto');

const state = require('./state.js');
const {
	ACTION,
	CRED,
	CRED_INACTIVE,
	FILES,
	REGISTERED_HOOK_URL,
	UNKNOWN_PROJECT_ID,
} = require('./fixtures.js');

const WF = {
	submit: 'E2eSubmit0000001',
	status: 'E2eGetStatus0001',
	saw: 'E2eSubmitWait001',
	batch: 'E2eBatchOf3Items',
	failed: 'E2eFailedTask001',
	failedAsItem: 'E2eFailedAsItem1',
	list: 'E2eListProjects1',
	register: 'E2eRegisterHook1',
	inactive: 'E2eInactiveKey01',
	unknown: 'E2eUnknownProj01',
	maxWait: 'E2eRelMaxWait001',
	refused: 'E2eRelRefused001',
};

let position = 0;
function node(name, type, typeVersion, parameters, extra = {}) {
	position += 220;
	return {
		id: crypto.randomUUID(),
		name,
		type,
		typeVersion,
		position: [position, 0],
		parameters,
		...extra,
	};
}

function manual() {
	return node('Start', 'n8n-nodes-base.manualTrigger', 1, {});
}

/** Set (raw JSON) -> Split Out -> Convert to File: one binary item per file, built in the workflow. */
function fileNodes(files) {
	const json = { files: files.map((f) => ({ name: f.name, b64: f.bytes.toString('base64') })) };
	return [
		node('Files', 'n8n-nodes-base.set', 3.4, {
			mode: 'raw',
			jsonOutput: JSON.stringify(json),
			options: {},
		}),
		node('Split Files', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'files', options: {} }),
		node('To File', 'n8n-nodes-base.convertToFile', 1.1, {
			operation: 'toBinary',
			sourceProperty: 'b64',
			binaryPropertyName: 'data',
			options: { fileName: '={{ $json.name }}', mimeType: 'application/pdf' },
		}),
	];
}

/** A Document Extraction node. */
function docex(name, parameters, { credentials = CRED, continueOnFail = false } = {}) {
	return node(name, ACTION, 1, parameters, {
		credentials,
		...(continueOnFail ? { onError: 'continueRegularOutput' } : {}),
	});
}

const project = (value) => ({ __rl: true, mode: 'id', value });

function getStatus(name, taskId, output) {
	return docex(name, { resource: 'document', operation: 'getStatus', taskId, output, options: {} });
}

function submitAndWait(name, options = {}, extra = {}) {
	return docex(
		name,
		{
			resource: 'document',
			operation: 'submitAndWait',
			binaryPropertyName: 'data',
			project: project(extra.project ?? 'Invoices'),
			documentType: 'invoice',
			output: extra.output ?? 'full',
			options: { pollInterval: 1, ...options },
		},
		extra,
	);
}

/** A workflow whose nodes are connected one after the other. */
function workflow(id, name, nodes) {
	const connections = {};
	for (let i = 0; i < nodes.length - 1; i++) {
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	return {
		id,
		name,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
		pinData: {},
	};
}

/** Manual trigger, the files as binary items, then Submit and Wait. */
function submitAndWaitWorkflow(id, name, files, options, extra) {
	return workflow(id, name, [
		manual(),
		...fileNodes(files),
		submitAndWait('Submit and Wait', options, extra),
	]);
}

/** Every workflow of the cases; `statusTaskId` is the finished task the Get Status case reads. */
function buildWorkflows({ statusTaskId }) {
	return [
		workflow(WF.submit, 'e2e: Submit then Get Status', [
			manual(),
			...fileNodes([FILES.a]),
			docex('Submit', {
				resource: 'document',
				operation: 'submit',
				binaryPropertyName: 'data',
				project: project('Invoices'),
				documentType: 'invoice',
				options: {},
			}),
			getStatus('Get Status', '={{ $json.task_id }}', 'full'),
		]),
		workflow(WF.status, 'e2e: Get Status of a finished task', [
			manual(),
			node('Task', 'n8n-nodes-base.set', 3.4, {
				mode: 'manual',
				assignments: {
					assignments: [{ id: 't1', name: 'taskId', value: statusTaskId, type: 'string' }],
				},
				options: {},
			}),
			getStatus('Get Status (full)', '={{ $json.taskId }}', 'full'),
			getStatus('Get Status (result)', "={{ $('Task').item.json.taskId }}", 'result'),
		]),
		submitAndWaitWorkflow(WF.saw, 'e2e: Submit and Wait', [FILES.a]),
		submitAndWaitWorkflow(
			WF.batch,
			'e2e: Submit and Wait, three items, one failing',
			[FILES.a, FILES.b, FILES.c],
			{},
			{
				continueOnFail: true,
			},
		),
		submitAndWaitWorkflow(WF.failed, 'e2e: failed task fails the item', [FILES.b]),
		submitAndWaitWorkflow(WF.failedAsItem, 'e2e: failed task as item', [FILES.b], {
			outputFailedAsItems: true,
		}),
		workflow(WF.list, 'e2e: List Projects', [
			manual(),
			docex('List Projects', { resource: 'project', operation: 'list' }),
		]),
		workflow(WF.register, 'e2e: Register Webhook', [
			manual(),
			docex('Register Webhook', {
				resource: 'project',
				operation: 'registerWebhook',
				project: project('Identity'),
				webhookUrl: REGISTERED_HOOK_URL,
				events: ['task.completed'],
				secret: '',
			}),
		]),
		submitAndWaitWorkflow(
			WF.inactive,
			'e2e: inactive key',
			[FILES.a],
			{},
			{ credentials: CRED_INACTIVE },
		),
		submitAndWaitWorkflow(
			WF.unknown,
			'e2e: unknown project',
			[FILES.a],
			{},
			{ project: UNKNOWN_PROJECT_ID },
		),
		submitAndWaitWorkflow(WF.maxWait, 'e2e: Submit and Wait, Max Wait 6 s', [FILES.a], {
			maxWait: 6,
		}),
		workflow(WF.refused, 'e2e: the service refuses connections for 1.5 s, then Submit and Wait', [
			manual(),
			// Switches the refusal on from inside the run, a moment before the node sends the document.
			node('Refuse Connections', 'n8n-nodes-base.httpRequest', 4.2, {
				method: 'POST',
				url: `${state.emulatorUrl}/_emulator/refuse`,
				sendBody: true,
				specifyBody: 'json',
				jsonBody: '{"ms": 1500}',
				options: {},
			}),
			...fileNodes([FILES.a]),
			submitAndWait('Submit and Wait'),
		]),
	];
}

module.exports = { WF, buildWorkflows, node, manual, fileNodes, docex, project, submitAndWait, workflow };
