'use strict';

/**
 * The workflows of the queue suite and the benchmark, built with the e2e builders: production
 * webhooks (served by the webhook process, run on a worker) in front of Submit and Wait, and a
 * manual workflow for runs main enqueues.
 */

const crypto = require('node:crypto');

const { samplePdf } = require('../../emulator/lib/pdf.js');
const { EXAMPLE_TRIGGER_ID } = require('../fixtures.js');
const {
	RETRY_ON_FAIL,
	RETRY_FILES,
	node,
	manual,
	fileNodes,
	submitAndWait,
	workflow,
} = require('../workflows.js');

const QWF = {
	many: 'QueueManyItems01',
	binary: 'QueueBinary00001',
	retry: 'QueueRetryOnFail',
	retryList: 'QueueRetryFromLst',
	slow: 'QueueManualRun01',
	trigger: EXAMPLE_TRIGGER_ID,
};

/** Published before main starts (the trigger is published by its case, through main). */
const PUBLISHED = [QWF.many, QWF.binary, QWF.retry, QWF.retryList];

const PATHS = {
	many: 'queue-many-items',
	binary: 'queue-binary',
	retry: 'queue-retry-on-fail',
	retryList: 'queue-retry-from-list',
};

/** `count` distinct small PDFs. */
function manyFiles(count, tag = 'Q') {
	return Array.from({ length: count }, (_, i) => ({
		name: `${tag}-${i + 1}.pdf`,
		bytes: samplePdf(`INVOICE INV-${tag}-${1000 + i} Queue Traders Total ${i + 1}.00 EUR`),
	}));
}

/** A production webhook (POST, answers at once) with a fixed webhook id. */
function webhook(path, options = {}) {
	return node(
		'Webhook',
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path, responseMode: 'onReceived', options },
		{
			webhookId: crypto
				.createHash('sha256')
				.update(path)
				.digest('hex')
				.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12}).*$/, '$1-$2-$3-$4-$5'),
		},
	);
}

function buildQueueWorkflows({
	items = Number(process.env.QUEUE_ITEMS || 20),
	pollInterval = 1,
} = {}) {
	return [
		workflow(QWF.many, `queue: webhook, ${items} files, Submit and Wait`, [
			webhook(PATHS.many),
			...fileNodes(manyFiles(items)),
			submitAndWait('Submit and Wait', { pollInterval }),
		]),
		// the request body is the file: the webhook process stores it, the worker reads it
		workflow(QWF.binary, 'queue: webhook with a file, Submit and Wait', [
			webhook(PATHS.binary, { binaryData: true, binaryPropertyName: 'data' }),
			submitAndWait('Submit and Wait', { includeInputBinary: true }),
		]),
		// n8n's Retry On Fail on a worker: four documents, the second one failing
		workflow(QWF.retry, 'queue: webhook, Submit and Wait with Retry On Fail, one of four failing', [
			webhook(PATHS.retry),
			...fileNodes(RETRY_FILES),
			submitAndWait('Submit and Wait', {}, RETRY_ON_FAIL),
		]),
		// a retry from the Executions list on another worker: four documents, the second one failing
		workflow(
			QWF.retryList,
			'queue: webhook, Submit and Wait, one of four failing, retried from the list',
			[webhook(PATHS.retryList), ...fileNodes(RETRY_FILES), submitAndWait('Submit and Wait')],
		),
		workflow(QWF.slow, 'queue: manual run, one file, Submit and Wait', [
			manual(),
			...fileNodes(manyFiles(1, 'S')),
			submitAndWait('Submit and Wait'),
		]),
	];
}

module.exports = { QWF, PUBLISHED, PATHS, manyFiles, webhook, buildQueueWorkflows };
