'use strict';

/** Calls to the emulator: the service API and the /_emulator/ admin API (shared with test/queue). */

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

/** The admin API under /_emulator/ (no key): `emulatorAdmin('POST', '/faults', {...})`. */
const emulatorAdmin = (method, adminPath, body) => emuJson(method, `/_emulator${adminPath}`, body);
const emulatorStats = () => emulatorAdmin('GET', '/stats');
const requestCount = async (endpoint) => (await emulatorStats()).requests[endpoint];
const addFault = (fault) => emulatorAdmin('POST', '/faults', fault);
const clearFaults = () => emulatorAdmin('DELETE', '/faults');
/** The files served by URL since the last reset: [{name, size, sha256, at}]. */
const servedFiles = async () => (await emulatorAdmin('GET', '/files')).files;
/** All tasks, oldest first. */
const emulatorTasks = async () => (await emulatorAdmin('GET', '/tasks')).tasks;
const registeredWebhooks = async () => (await emulatorAdmin('GET', '/webhooks')).webhooks;

/** Submits a file to the Invoices project directly (not through n8n); returns the task id. */
async function submitDirect(file) {
	const body = {
		file_base64: file.bytes.toString('base64'),
		project: 'Invoices',
		document_type: 'invoice',
	};
	return (await emuJson('POST', '/process_file', body, GOOD_KEY)).task_id;
}

/** Polls task_status until the task is complete or failed. */
async function waitTask(taskId) {
	let task;
	return await waitFor(
		() => `task ${taskId} (still ${task?.status})`,
		async () => {
			task = await emuJson('GET', `/task_status/${taskId}`, undefined, GOOD_KEY);
			return ['complete', 'failed'].includes(task.status) ? task : undefined;
		},
		30000,
		250,
	);
}

/** The webhooks registered for the suite's n8n server. */
async function triggerRegistrations() {
	const prefix = `http://127.0.0.1:${state.n8nPort}/`;
	return (await registeredWebhooks()).filter((w) => w.url.startsWith(prefix));
}

/** Waits until every delivery of the task is delivered or failed: {deliveries, attempts}. */
async function waitDelivered(taskId) {
	let found;
	return await waitFor(
		() => `the delivery of ${taskId} (still pending: ${JSON.stringify(found?.deliveries)})`,
		async () => {
			found = await emulatorAdmin('GET', `/deliveries?task_id=${taskId}`);
			const { deliveries } = found;
			return deliveries.length && deliveries.every((d) => d.state !== 'pending') ? found : null;
		},
		30000,
		300,
	);
}

/** A badly signed probe: n8n answers 404 until it serves the trigger's webhook (then 401). */
async function probeWebhook(url) {
	const probe = { url, body: '{"probe":true}', signature: '0'.repeat(64) };
	return (await emulatorAdmin('POST', '/deliver', probe)).status_code;
}

async function waitWebhookLive(url) {
	await waitFor(`${url} to be served`, async () => ![null, 404].includes(await probeWebhook(url)));
}

/** Runs `body`; returns the tasks created meanwhile. Faults and limits are lifted however it ends. */
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
	waitDelivered,
	probeWebhook,
	waitWebhookLive,
};
