'use strict';

/**
 * The workflows the suite imports into n8n: small builders for nodes and linear
 * workflows, and the workflow of each case (ids in WF).
 */

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const state = require('./state.js');
const { localExample } = require('../scripts/local-examples.js');
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
	urlOk: 'E2eUrlInputOk001',
	urlBad: 'E2eUrlBadInputs1',
	url40mb: 'E2eUrl40MB000001',
	mcp: 'E2eMcpServer0001',
	maxWait: 'E2eRelMaxWait001',
	refused: 'E2eRelRefused001',
	projectName: 'E2eProjectName01',
	cancel: 'E2eStopRunning01',
	retryBinary: 'E2eRetryOnFail01',
	retryUrl: 'E2eRetryOnFailU1',
	emailAll: 'E2eEmailAllFiles',
	emailContinue: 'E2eEmailContinue',
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

/** A project name as users write them: a space, an accent and punctuation (the emulator has it). */
const SPACED_PROJECT_NAME = 'Invoices EU – Zürich (2025)';

/** The MCP server path of the suite's MCP workflow: /mcp/<path>. */
const MCP_PATH = 'docex-e2e';

/** 40 MB, the large document downloaded by URL. */
const LARGE_URL_BYTES = 40 * 1024 * 1024;

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

/** A text file attached to an email beside its invoices: not a document, never sent. */
const EMAIL_NOTE = {
	name: 'notes.txt',
	mimeType: 'text/plain',
	bytes: Buffer.from('See the invoices attached.\n'),
};

/**
 * One item as n8n's email triggers output an email: each file in binary field attachment_<n>
 * (Set -> Split Out -> Convert to File -> Aggregate with its binaries), the email's subject in
 * its JSON.
 */
function emailNodes(files, subject = 'Invoices for March') {
	const attachments = files.map((f) => ({
		fileName: f.name,
		mimeType: f.mimeType ?? 'application/pdf',
		b64: f.bytes.toString('base64'),
	}));
	return [
		node('Attachments', 'n8n-nodes-base.set', 3.4, {
			mode: 'raw',
			jsonOutput: JSON.stringify({ attachments }),
			options: {},
		}),
		node('Split Attachments', 'n8n-nodes-base.splitOut', 1, {
			fieldToSplitOut: 'attachments',
			options: {},
		}),
		node('To Attachment', 'n8n-nodes-base.convertToFile', 1.1, {
			operation: 'toBinary',
			sourceProperty: 'b64',
			binaryPropertyName: '=attachment_{{ $itemIndex }}',
			options: { fileName: '={{ $json.fileName }}', mimeType: '={{ $json.mimeType }}' },
		}),
		node('One Email', 'n8n-nodes-base.aggregate', 1, {
			aggregate: 'aggregateAllItemData',
			destinationFieldName: 'attachments',
			options: { includeBinaries: true },
		}),
		// the email's fields; the attachments stay (Include Other Fields keeps the binary data)
		node('Email', 'n8n-nodes-base.set', 3.4, {
			mode: 'raw',
			jsonOutput: JSON.stringify({ subject }),
			includeOtherFields: true,
			include: 'except',
			excludeFields: 'attachments',
			options: {},
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

/** The bad inputs of the URL input source: [case, URL query or full URL, options]. */
function badUrlCases(emulatorUrl) {
	return [
		{ case: 'not-http', url: 'ftp://127.0.0.1/invoice.pdf' },
		{ case: '404', url: fileUrl(emulatorUrl, 'missing.pdf', '?status=404') },
		{ case: 'html', url: fileUrl(emulatorUrl, 'page.html') },
		{ case: 'too-large', url: fileUrl(emulatorUrl, 'big.pdf', `?size=${2 * 1024 * 1024}`) },
		{
			case: 'too-large-streamed',
			url: fileUrl(emulatorUrl, 'big.pdf', `?size=${2 * 1024 * 1024}&chunked=1`),
		},
		{ case: 'empty', url: fileUrl(emulatorUrl, 'empty.pdf', '?empty=1') },
	];
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

/** Every workflow of the cases; `statusTaskId` is the finished task the Get Status case reads. */
function buildWorkflows({ statusTaskId, emulatorUrl }) {
	const badCases = { cases: badUrlCases(emulatorUrl) };
	return [
		workflow(WF.urlOk, 'e2e: Submit and Wait from a URL (redirected)', [
			manual(),
			submitAndWaitUrl(
				'Submit and Wait',
				fileUrl(
					emulatorUrl,
					'url-invoice.pdf',
					'?redirect=2&type=none&disposition=March%20invoice.pdf',
				),
				{
					includeDownloadedFile: true,
				},
			),
		]),
		workflow(WF.urlBad, 'e2e: Submit and Wait from bad URLs', [
			manual(),
			node('Cases', 'n8n-nodes-base.set', 3.4, {
				mode: 'raw',
				jsonOutput: JSON.stringify(badCases),
				options: {},
			}),
			node('Split Cases', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'cases', options: {} }),
			submitAndWaitUrl(
				'Submit and Wait',
				'={{ $json.url }}',
				{ maxDownloadSize: 1 },
				{ continueOnFail: true },
			),
		]),
		workflow(WF.url40mb, 'e2e: Submit and Wait, a 40 MB document from a URL', [
			manual(),
			submitAndWaitUrl(
				'Submit and Wait',
				fileUrl(emulatorUrl, 'large.pdf', `?size=${LARGE_URL_BYTES}`),
				{
					maxDownloadSize: 100,
				},
			),
		]),
		mcpWorkflow(emulatorUrl),
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
		submitAndWaitWorkflow(WF.saw, 'e2e: Submit and Wait', [FILES.a], {
			includeInputBinary: true,
		}),
		submitAndWaitWorkflow(
			WF.batch,
			'e2e: Submit and Wait, three items, one failing',
			[FILES.a, FILES.b, FILES.c],
			{ includeInputBinary: true },
			{
				continueOnFail: true,
			},
		),
		submitAndWaitWorkflow(
			WF.projectName,
			'e2e: Submit and Wait, project by a name with spaces',
			[FILES.c],
			{},
			{ project: SPACED_PROJECT_NAME },
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
		workflow(WF.cancel, 'e2e: Submit and Wait started by a webhook, to be stopped', [
			webhook(CANCEL_PATH),
			...fileNodes([FILES.a]),
			submitAndWait('Submit and Wait', { maxWait: 120 }),
		]),
		submitAndWaitWorkflow(
			WF.retryBinary,
			'e2e: Submit and Wait with Retry On Fail, four documents, one failing',
			RETRY_FILES,
			{},
			RETRY_ON_FAIL,
		),
		workflow(WF.retryUrl, 'e2e: Submit and Wait by URL with Retry On Fail, four documents', [
			manual(),
			...urlDocumentNodes(emulatorUrl, RETRY_URL_NAMES),
			submitAndWaitUrl('Submit and Wait', '={{ $json.url }}', {}, RETRY_ON_FAIL),
		]),
		workflow(WF.emailAll, 'e2e: an email with two invoices and a text file, every attachment', [
			manual(),
			...emailNodes([FILES.a, FILES.c, EMAIL_NOTE]),
			submitAndWait('Submit and Wait', { keepInputFields: true }, { filesToSend: 'all' }),
		]),
		workflow(WF.emailContinue, 'e2e: an email with two invoices, one failing, under Continue', [
			manual(),
			...emailNodes([FILES.a, FILES.b]),
			submitAndWait('Submit and Wait', {}, { filesToSend: 'all', continueOnFail: true }),
		]),
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

module.exports = {
	RETRY_ON_FAIL,
	RETRY_FILES,
	RETRY_URL_NAMES,
	RETRY_LIST_PATHS,
	fileUrl,
	submitAndWaitUrl,
	SPACED_PROJECT_NAME,
	WF,
	MCP_PATH,
	CANCEL_PATH,
	LARGE_URL_BYTES,
	buildWorkflows,
	badUrlCases,
	node,
	manual,
	fileNodes,
	emailNodes,
	EMAIL_NOTE,
	docex,
	project,
	submitAndWait,
	workflow,
};
