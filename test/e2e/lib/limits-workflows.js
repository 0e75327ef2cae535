'use strict';

/**
 * The workflows of the cases about the service's limits (cases/service-limits.test.js and
 * cases/trigger-refusal.test.js): a batch under a rate limit, and a trigger the service refuses.
 */

const crypto = require('node:crypto');

const { samplePdf } = require('../../../emulator/lib/pdf.js');
const { ACTION, CRED } = require('../../../harness/fixtures.js');
const {
	fileNodes,
	manual,
	node,
	project,
	submitAndWait,
	workflow,
} = require('../../../harness/workflows.js');

const LIMITS_WF = {
	rateLimited: 'E2eRateLimited01',
	httpsOnlyTrigger: 'E2eHttpsOnlyTrg1',
};

/** How many documents the rate-limited batch sends. */
const RATE_BATCH = 12;

/** Distinct sample invoices, one per document of the rate-limited batch. */
const RATE_FILES = Array.from({ length: RATE_BATCH }, (_, i) => ({
	name: `rate-${i}.pdf`,
	bytes: samplePdf(`INVOICE INV-RL-${1000 + i} sent under a rate limit`),
}));

function buildLimitWorkflows() {
	return [
		workflow(LIMITS_WF.rateLimited, 'e2e: Submit and Wait, 12 documents under a rate limit', [
			manual(),
			...fileNodes(RATE_FILES),
			submitAndWait('Submit and Wait', { maxWait: 120, maxConcurrency: 5 }),
		]),
		workflow(LIMITS_WF.httpsOnlyTrigger, 'e2e: trigger published while the service wants https', [
			node(
				'Document Extraction Trigger',
				`${ACTION}Trigger`,
				1.1,
				{ project: project('Invoices'), options: {} },
				{ credentials: CRED, webhookId: crypto.randomUUID() },
			),
			node('Done', 'n8n-nodes-base.noOp', 1, {}),
		]),
	];
}

module.exports = { LIMITS_WF, RATE_BATCH, RATE_FILES, buildLimitWorkflows };
