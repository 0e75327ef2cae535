'use strict';

/** Calls to the emulator the suite runs: the service API and the /_emulator/ admin API. */

const { GOOD_KEY } = require('../../../harness/fixtures.js');
const { waitFor } = require('../../../harness/n8n.js');
const state = require('../../../harness/state.js');

async function emuJson(method, urlPath, body, key) {
	const headers = { 'content-type': 'application/json' };
	if (key) headers.authorization = `Bearer ${key}`;
	const res = await fetch(`${state.emulatorUrl}${urlPath}`, {
		method,
		headers,
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	if (res.status >= 300)
		throw new Error(`emulator ${method} ${urlPath}: HTTP ${res.status} ${text}`);
	return JSON.parse(text);
}

/** Submits a file to the Invoices project directly (not through n8n); returns the task id. */
async function submitDirect(file, documentType = 'invoice') {
	const body = {
		file_base64: file.bytes.toString('base64'),
		project: 'Invoices',
		document_type: documentType,
	};
	const { task_id: taskId } = await emuJson('POST', '/process_file', body, GOOD_KEY);
	return taskId;
}

/** Polls task_status until the task is complete or failed. */
async function waitTask(taskId, timeoutMs = 30000) {
	let task;
	return await waitFor(
		() => `task ${taskId} (still ${task?.status})`,
		async () => {
			task = await emuJson('GET', `/task_status/${taskId}`, undefined, GOOD_KEY);
			return task.status === 'complete' || task.status === 'failed' ? task : undefined;
		},
		timeoutMs,
		250,
	);
}

async function requestCount(endpoint) {
	return (await emuJson('GET', '/_emulator/stats')).requests[endpoint];
}

async function addFault(fault) {
	return await emuJson('POST', '/_emulator/faults', fault);
}

/** The files the emulator served by URL since its last reset: [{name, size, sha256, at}]. */
async function servedFiles() {
	return (await emuJson('GET', '/_emulator/files')).files;
}

async function clearFaults() {
	return await emuJson('DELETE', '/_emulator/faults');
}

async function emulatorStats() {
	return await emuJson('GET', '/_emulator/stats');
}

/** All tasks the emulator holds, oldest first. */
async function emulatorTasks() {
	return (await emuJson('GET', '/_emulator/tasks')).tasks;
}

async function registeredWebhooks() {
	return (await emuJson('GET', '/_emulator/webhooks')).webhooks;
}

/** The webhooks registered for the suite's n8n server. */
async function triggerRegistrations() {
	return (await registeredWebhooks()).filter((w) =>
		w.url.startsWith(`http://127.0.0.1:${state.n8nPort}/`),
	);
}

/** One raw POST through /_emulator/deliver; returns {status_code, body, error, …}. */
async function deliverRaw(request) {
	return await emuJson('POST', '/_emulator/deliver', request);
}

/** Waits until every delivery of the task is delivered or failed. */
async function waitDelivered(taskId, timeoutMs = 30000) {
	let found;
	return await waitFor(
		() => `the delivery of ${taskId} (still pending: ${JSON.stringify(found?.deliveries)})`,
		async () => {
			found = await emuJson('GET', `/_emulator/deliveries?task_id=${taskId}`);
			const { deliveries } = found;
			return deliveries.length && deliveries.every((d) => d.state !== 'pending')
				? found
				: undefined;
		},
		timeoutMs,
		300,
	);
}

/** A badly signed probe: n8n answers 404 until it serves the trigger's webhook (then 401). Starts nothing. */
async function probeWebhook(url) {
	const res = await deliverRaw({ url, body: '{"probe":true}', signature: '0'.repeat(64) });
	return res.status_code;
}

async function waitWebhookLive(url) {
	await waitFor(`${url} to be served`, async () => {
		const code = await probeWebhook(url);
		return code !== null && code !== 404;
	});
}

/** The emulator's admin API under /_emulator/ (no key): `emulatorAdmin('POST', '/rate_limit', {...})`. */
async function emulatorAdmin(method, adminPath, body) {
	return await emuJson(method, `/_emulator${adminPath}`, body);
}

/**
 * Runs `body` and returns the tasks the emulator created meanwhile. Every fault and limit switch
 * is lifted afterwards, however `body` ends.
 */
async function tasksCreatedDuring(body) {
	const before = new Set((await emulatorTasks()).map((task) => task.task_id));
	try {
		await body();
	} finally {
		await clearFaults();
		await emulatorAdmin('POST', '/limits/reset');
	}
	return (await emulatorTasks()).filter((task) => !before.has(task.task_id));
}

module.exports = {
	emulatorAdmin,
	tasksCreatedDuring,
	submitDirect,
	waitTask,
	requestCount,
	addFault,
	servedFiles,
	clearFaults,
	emulatorStats,
	emulatorTasks,
	registeredWebhooks,
	triggerRegistrations,
	deliverRaw,
	waitDelivered,
	probeWebhook,
	waitWebhookLive,
};
