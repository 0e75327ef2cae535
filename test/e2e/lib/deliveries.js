'use strict';

/** Signed task.completed deliveries sent as the service sends them, and the runs they start. */

const crypto = require('node:crypto');
const http = require('node:http');

const { rest, waitFor } = require('../../../harness/n8n.js');
const { INVOICES_ID, TRIGGER_NODE, sleep } = require('../../../harness/fixtures.js');

/** A task.completed body for a new task (or the fields given). */
function deliveryBody(overrides = {}) {
	return JSON.stringify({
		event: 'task.completed',
		task_id: crypto.randomUUID(),
		status: 'complete',
		result: {
			invoice_number: 'INV-DUP-1',
			vendor_name: 'Copies Ltd',
			total_amount: 12,
			currency: 'EUR',
		},
		project_id: INVOICES_ID,
		document_type: 'invoice',
		timestamp: new Date().toISOString(),
		...overrides,
	});
}

const { sign } = require('../../../emulator/lib/outbound.js');

/** One POST of a signed body; resolves to the HTTP status, or 0 when no answer came. */
async function post(url, body, secret, timeoutMs = 10000, contentType = 'application/json') {
	try {
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': contentType, 'x-service-signature': sign(secret, body) },
			body,
			signal: AbortSignal.timeout(timeoutMs),
		});
		await res.arrayBuffer();
		return res.status;
	} catch {
		return 0;
	}
}

/** A signed POST whose sender hangs up `afterMs` after sending the body, before n8n answers. */
function postAndHangUp(url, body, secret, afterMs) {
	return new Promise((resolve) => {
		const req = http.request(url, {
			method: 'POST',
			agent: false,
			headers: {
				'content-type': 'application/json',
				'content-length': Buffer.byteLength(body),
				'x-service-signature': sign(secret, body),
			},
		});
		req.on('error', () => {});
		req.on('close', resolve);
		req.on('finish', () => setTimeout(() => req.destroy(), afterMs));
		req.end(body);
	});
}

/** A delivery retried after 1, 4 and 16 s while not answered 2xx in time; the attempts' statuses. */
async function deliverWithRetries(url, body, secret, timeoutMs = 10000) {
	const statuses = [await post(url, body, secret, timeoutMs)];
	for (const delay of [1000, 4000, 16000]) {
		if (statuses.at(-1) >= 200 && statuses.at(-1) < 300) break;
		await sleep(delay);
		statuses.push(await post(url, body, secret, timeoutMs));
	}
	return statuses;
}

/** Runs `fn` over `items`, at most `limit` at a time; resolves to the results in order. */
async function inPool(items, limit, fn) {
	const results = new Array(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const index = next++;
			results[index] = await fn(items[index], index);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
	return results;
}

/** The trigger's stored static data (its registration and secret). */
async function registrationOf(workflowId, nodeName = TRIGGER_NODE) {
	const workflow = await rest('GET', `/workflows/${workflowId}`);
	return { nodeData: workflow.staticData?.[`node:${nodeName}`] ?? {}, workflow };
}

const FINISHED = ['success', 'error', 'crashed', 'canceled'];
const UNFINISHED = ['new', 'running', 'waiting', 'queued'];

/** How many executions the workflow has (with one of `statuses`, or in all). */
async function executionTotal(workflowId, statuses) {
	const filter = encodeURIComponent(
		JSON.stringify(statuses ? { workflowId, status: statuses } : { workflowId }),
	);
	const data = await rest('GET', `/executions?filter=${filter}&limit=1`);
	if (typeof data.count !== 'number')
		throw new Error(`no execution count in ${JSON.stringify(data)}`);
	return data.count;
}

/**
 * Waits until the workflow has at least `expected` finished executions and none unfinished, then
 * `settleMs` more (so that a late extra run is counted); resolves to the total.
 */
async function settledExecutionTotal(
	workflowId,
	expected,
	{ timeoutMs = 120000, settleMs = 3000 } = {},
) {
	let finished = 0;
	let unfinished = 0;
	await waitFor(
		() =>
			`${expected} finished executions of ${workflowId} (${finished} finished, ${unfinished} not)`,
		async () => {
			finished = await executionTotal(workflowId, FINISHED);
			unfinished = await executionTotal(workflowId, UNFINISHED);
			return finished >= expected && unfinished === 0;
		},
		timeoutMs,
		500,
	);
	await sleep(settleMs);
	return await executionTotal(workflowId);
}

module.exports = {
	UNFINISHED,
	deliveryBody,
	post,
	postAndHangUp,
	deliverWithRetries,
	inPool,
	registrationOf,
	executionTotal,
	settledExecutionTotal,
};
