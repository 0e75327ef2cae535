'use strict';

/**
 * The workflows the suite imports into n8n: small builders for nodes and linear
 * workflows, and the workflow of each case (ids in WF).
 */

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { localExample } = require('../scripts/local-examples.js');
const { ACTION, CRED, FILES } = require('./fixtures.js');

const WF = {
	saw: 'E2eSubmitWait001',
	batch: 'E2eBatchOf3Items',
	mcp: 'E2eMcpServer0001',
	cancel: 'E2eStopRunning01',
	retryBinary: 'E2eRetryOnFail01',
	retryListBinary: 'E2eRetryFromLst1',
	retryListUrl: 'E2eRetryFromLstU',
};

/** n8n's node setting Retry On Fail: 3 tries, 1 s apart. */
const RETRY_ON_FAIL = { retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 };

/** The documents of the Retry On Fail cases with binary input: four, the second one failing. */
const RETRY_FILES = [FILES.a, FILES.b, FILES.c, FILES.r];

/** The documents of the Retry On Fail case by URL: four names, the second one failing. */
const RETRY_URL_NAMES = ['retry-1.pdf', 'retry-2-EMULATOR_FAIL.pdf', 'retry-3.pdf', 'retry-4.pdf'];

/** The production webhook paths of the workflows retried from the Executions list: /webhook/<path>. */
const RETRY_LIST_PATHS = {
	[WF.retryListBinary]: 'docex-e2e-retry-binary',
	[WF.retryListUrl]: 'docex-e2e-retry-url',
};

/** A production Webhook node that starts a workflow at /webhook/<path>. */
function webhook(path) {
	return node(
		'Webhook',
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		{ webhookId: crypto.randomUUID() },
	);
}

/** The production webhook path of the workflow the stop case starts: /webhook/<path>. */
const CANCEL_PATH = 'docex-e2e-stop';

/** The MCP server path of the suite's MCP workflow: /mcp/<path>. */
const MCP_PATH = 'docex-e2e';

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
function docex(
	name,
	parameters,
	{ credentials = CRED, continueOnFail = false, retryOnFail, maxTries, waitBetweenTries } = {},
) {
	return node(name, ACTION, 1, parameters, {
		credentials,
		...(continueOnFail ? { onError: 'continueRegularOutput' } : {}),
		...(retryOnFail ? { retryOnFail, maxTries, waitBetweenTries } : {}),
	});
}

const project = (value) => ({ __rl: true, mode: 'id', value });

function submitAndWait(name, options = {}, extra = {}) {
	return docex(
		name,
		{
			resource: 'document',
			operation: 'submitAndWait',
			binaryPropertyName: 'data',
			...(extra.filesToSend ? { filesToSend: extra.filesToSend } : {}),
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

/** A URL of a sample file the emulator serves (see emulator/lib/files.js for the query). */
function fileUrl(emulatorUrl, name, query = '') {
	return `${emulatorUrl}/_emulator/files/${encodeURIComponent(name)}${query}`;
}

/** Set (raw JSON) -> Split Out: one item per document, with the URL of a file the emulator serves. */
function urlDocumentNodes(emulatorUrl, names) {
	return [
		node('Documents', 'n8n-nodes-base.set', 3.4, {
			mode: 'raw',
			jsonOutput: JSON.stringify({
				documents: names.map((name) => ({ url: fileUrl(emulatorUrl, name) })),
			}),
			options: {},
		}),
		node('One Item per Document', 'n8n-nodes-base.splitOut', 1, {
			fieldToSplitOut: 'documents',
			options: {},
		}),
	];
}

/**
 * Submit and Wait with the URL input source. The emulator serves the files on loopback, which a
 * download refuses unless Allow Private Addresses is on: on unless `options` says otherwise.
 */
function submitAndWaitUrl(name, documentUrl, options = {}, extra = {}) {
	return docex(
		name,
		{
			resource: 'document',
			operation: extra.operation ?? 'submitAndWait',
			inputSource: 'url',
			documentUrl,
			project: project('Invoices'),
			documentType: 'invoice',
			output: 'full',
			options: { pollInterval: 1, allowPrivateAddresses: true, ...options },
		},
		extra,
	);
}

/** The example MCP workflow (examples/mcp-server.json) on the suite's path, plus a saved Register Webhook tool. */
function mcpWorkflow(emulatorUrl) {
	// as `npm start` imports it: the emulator's documents are on loopback, which the example's
	// URL download reaches only with the local setting scripts/local-examples.js turns on
	const example = localExample(
		JSON.parse(fs.readFileSync(path.join(__dirname, '../examples/mcp-server.json'), 'utf8')),
		emulatorUrl,
	);
	const nodes = example.nodes.map((n) => ({ ...n, id: crypto.randomUUID() }));
	const trigger = nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.mcpTrigger');
	trigger.webhookId = crypto.randomUUID();
	trigger.parameters = { ...trigger.parameters, path: MCP_PATH };
	// A tool node saved with Register Webhook (as an imported workflow can be): refused at run time.
	nodes.push({
		id: crypto.randomUUID(),
		name: 'Register webhook',
		type: `${ACTION}Tool`,
		typeVersion: 1,
		position: [360, 220],
		parameters: {
			resource: 'project',
			operation: 'registerWebhook',
			project: project('Invoices'),
			webhookUrl: "={{ $fromAI('url', 'The URL to receive events', 'string') }}",
			events: ['task.completed'],
			secret: '',
		},
		credentials: CRED,
	});
	const connections = { ...example.connections };
	connections['Register webhook'] = {
		ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]],
	};
	return {
		...example,
		id: WF.mcp,
		name: 'e2e: MCP server with Document Extraction tools',
		nodes,
		connections,
	};
}

/** Every workflow of the cases (the MCP example on the emulator at `emulatorUrl`). */
function buildWorkflows({ emulatorUrl }) {
	return [
		mcpWorkflow(emulatorUrl),
		submitAndWaitWorkflow(WF.saw, 'e2e: Submit and Wait', [FILES.a], {
			includeInputBinary: true,
		}),
		submitAndWaitWorkflow(
			WF.batch,
			'e2e: Submit and Wait, three items, one failing',
			[FILES.a, FILES.b, FILES.c],
			{ includeInputBinary: true },
			{ continueOnFail: true },
		),
		workflow(WF.cancel, 'e2e: Submit and Wait of four documents by a webhook, to be stopped', [
			webhook(CANCEL_PATH),
			...fileNodes(RETRY_FILES),
			submitAndWait('Submit and Wait', { maxWait: 120 }),
		]),
		submitAndWaitWorkflow(
			WF.retryBinary,
			'e2e: Submit and Wait with Retry On Fail, four documents, one failing',
			RETRY_FILES,
			{},
			RETRY_ON_FAIL,
		),
		workflow(
			WF.retryListBinary,
			'e2e: four documents by webhook, one failing, retried from the list',
			[
				webhook(RETRY_LIST_PATHS[WF.retryListBinary]),
				...fileNodes(RETRY_FILES),
				submitAndWait('Submit and Wait'),
			],
		),
		workflow(
			WF.retryListUrl,
			'e2e: four documents by URL and webhook, one failing, retried from the list',
			[
				webhook(RETRY_LIST_PATHS[WF.retryListUrl]),
				...urlDocumentNodes(emulatorUrl, RETRY_URL_NAMES),
				submitAndWaitUrl('Submit and Wait', '={{ $json.url }}'),
			],
		),
	];
}

module.exports = {
	RETRY_ON_FAIL,
	RETRY_FILES,
	RETRY_URL_NAMES,
	RETRY_LIST_PATHS,
	fileUrl,
	submitAndWaitUrl,
	WF,
	MCP_PATH,
	CANCEL_PATH,
	buildWorkflows,
	node,
	manual,
	fileNodes,
	docex,
	project,
	submitAndWait,
	webhook,
	workflow,
};
