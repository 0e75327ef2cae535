'use strict';

/**
 * The workflows of the cases about the service's limits (cases/service-limits.test.js and
 * cases/trigger-refusal.test.js): a batch under a rate limit, a trickling status answer, and
 * refusals explained where the user looks.
 */

const crypto = require('node:crypto');

const { samplePdf } = require('../../../emulator/lib/pdf.js');
const { ACTION, CRED } = require('../../../harness/fixtures.js');
const {
	docex,
	fileNodes,
	manual,
	node,
	project,
	submitAndWait,
	workflow,
} = require('../../../harness/workflows.js');

const LIMITS_WF = {
	rateLimited: 'E2eRateLimited01',
	trickle: 'E2eTrickleWait01',
	refusedItem: 'E2eRefused422It1',
	httpsOnlyTrigger: 'E2eHttpsOnlyTrg1',
	oneDeadline: 'E2eOneDeadline01',
	kinds: 'E2eErrorKinds001',
	outOfTime: 'E2eOutOfTime0001',
};

/** A task ID the service never gave out. */
const UNKNOWN_TASK = '00000000-0000-4000-8000-00000000dead';

/** A Submit of the URL input source, On Error: Continue. */
function submitUrl(name, documentUrl, operation = 'submit', options = {}) {
	return docex(
		name,
		{
			resource: 'document',
			operation,
			inputSource: 'url',
			documentUrl,
			project: project('Invoices'),
			documentType: 'invoice',
			output: 'full',
			options: { pollInterval: 1, allowPrivateAddresses: true, ...options },
		},
		{ continueOnFail: true },
	);
}

/** A Get Status of `taskId`, On Error: Continue. */
function statusOf(name, taskId) {
	return docex(
		name,
		{ resource: 'document', operation: 'getStatus', taskId, output: 'full', options: {} },
		{ continueOnFail: true },
	);
}

/** The nodes of the error-kinds chain, in order: each one meets the next fault of its endpoint. */
const KIND_NODES = {
	'Refused (422)': 'refused',
	'Gateway 504 After the Upload': 'may_have_arrived',
	'Rate Limited Until Max Wait': 'rate_limited',
	'Connection Dropped on Every Check': 'no_answer',
	'Unknown Task': 'not_found',
};

/** How many documents the rate-limited batch sends. */
const RATE_BATCH = 12;

/** Distinct sample invoices, one per document of the rate-limited batch. */
const RATE_FILES = Array.from({ length: RATE_BATCH }, (_, i) => ({
	name: `rate-${i}.pdf`,
	bytes: samplePdf(`INVOICE INV-RL-${1000 + i} sent under a rate limit`),
}));

/** An http:// URL the https-only service refuses: it is never called. */
const HTTP_HOOK_URL = 'http://127.0.0.1:9/e2e-refused-by-https-policy';

function buildLimitWorkflows({ emulatorUrl }) {
	const documentUrl = `${emulatorUrl}/_emulator/files/kinds.pdf`;
	const [refused, gateway, rateLimited, dropped, unknown] = Object.keys(KIND_NODES);
	return [
		workflow(
			LIMITS_WF.oneDeadline,
			'e2e: Submit and Wait, Max Wait 8 s, 429 for 6 s, 10 s to process',
			[
				manual(),
				...fileNodes([RATE_FILES[1]]),
				submitAndWait('Submit and Wait', { maxWait: 8, pollInterval: 2 }),
			],
		),
		workflow(LIMITS_WF.kinds, 'e2e: the kind of each failure in its error item', [
			manual(),
			submitUrl(refused, documentUrl),
			submitUrl(gateway, documentUrl),
			submitUrl(rateLimited, documentUrl, 'submitAndWait', { maxWait: 3 }),
			statusOf(dropped, UNKNOWN_TASK),
			statusOf(unknown, UNKNOWN_TASK),
		]),
		workflow(LIMITS_WF.outOfTime, 'e2e: Submit and Wait, one request slot, Max Wait 1 s', [
			manual(),
			...fileNodes([RATE_FILES[2], RATE_FILES[3]]),
			submitAndWait('Submit and Wait', { maxWait: 1, maxConcurrency: 1 }, { continueOnFail: true }),
		]),
		workflow(LIMITS_WF.rateLimited, 'e2e: Submit and Wait, 12 documents under a rate limit', [
			manual(),
			...fileNodes(RATE_FILES),
			submitAndWait('Submit and Wait', { maxWait: 120, maxConcurrency: 5 }),
		]),
		workflow(LIMITS_WF.trickle, 'e2e: Submit and Wait, Max Wait 3 s, status answers trickle', [
			manual(),
			...fileNodes([RATE_FILES[0]]),
			submitAndWait('Submit and Wait', { maxWait: 3 }),
		]),
		workflow(LIMITS_WF.refusedItem, 'e2e: Register Webhook refused (422), On Error: Continue', [
			manual(),
			docex(
				'Register Webhook',
				{
					resource: 'project',
					operation: 'registerWebhook',
					project: project('Invoices'),
					webhookUrl: HTTP_HOOK_URL,
					events: ['task.completed'],
					secret: '',
				},
				{ continueOnFail: true },
			),
		]),
		workflow(LIMITS_WF.httpsOnlyTrigger, 'e2e: trigger published while the service wants https', [
			node(
				'Document Extraction Trigger',
				`${ACTION}Trigger`,
				1.1,
				{
					project: project('Invoices'),
					options: {},
				},
				{ credentials: CRED, webhookId: crypto.randomUUID() },
			),
			node('Done', 'n8n-nodes-base.noOp', 1, {}),
		]),
	];
}

module.exports = {
	LIMITS_WF,
	KIND_NODES,
	RATE_BATCH,
	RATE_FILES,
	HTTP_HOOK_URL,
	buildLimitWorkflows,
};
