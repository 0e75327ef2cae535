'use strict';

/** Document operations through `n8n execute`: Submit, Get Status, Submit and Wait, failures, faults. */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const {
	EXAMPLE_SUBMIT_ID,
	FILES,
	UNKNOWN_PROJECT_ID,
	UUID_RE,
	sha256,
} = require('../../../harness/fixtures.js');
const { execute, nodeItems, pairedIndex } = require('../../../harness/n8n.js');
const {
	waitTask,
	emulatorTask,
	requestCount,
	addFault,
	listFaults,
} = require('../lib/emulator-client.js');
const { WF } = require('../../../harness/workflows.js');
const { expectSuccess, expectFailure } = require('../lib/judge.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

test('Submit returns a task id; Get Status follows it', async (t) => {
	const res = await execute(WF.submit);
	expectSuccess(res);
	const [submitted] = nodeItems(res.run, 'Submit');
	assert.match(submitted.json.task_id, UUID_RE);
	assert.equal(pairedIndex(submitted), 0);
	const [status] = nodeItems(res.run, 'Get Status');
	assert.equal(status.json.task_id, submitted.json.task_id);
	assert.ok(
		typeof status.json.status === 'string' && status.json.status !== 'failed',
		`status ${status.json.status}`,
	);
	const task = await waitTask(submitted.json.task_id);
	assert.equal(task.result.file_sha256, sha256(FILES.a.bytes), 'the service received other bytes');
	t.diagnostic(`task ${submitted.json.task_id}, first status "${status.json.status}"`);
});

test('Get Status of a finished task (output full and result)', async (t) => {
	const res = await execute(WF.status);
	expectSuccess(res);
	const [full] = nodeItems(res.run, 'Get Status (full)');
	assert.equal(full.json.task_id, state.statusTaskId);
	assert.equal(full.json.status, 'complete');
	assert.equal(full.json.result.file_sha256, sha256(FILES.s.bytes));
	const [flat] = nodeItems(res.run, 'Get Status (result)');
	assert.equal(flat.json.result, undefined, 'output "result" should be the extracted fields, flat');
	assert.equal(flat.json.file_sha256, sha256(FILES.s.bytes));
	assert.equal(flat.json.invoice_number, full.json.result.invoice_number);
	t.diagnostic(`invoice_number ${flat.json.invoice_number}`);
});

test('Submit and Wait (output full): complete, SHA-256 round trip, input binary kept', async (t) => {
	const res = await execute(WF.saw);
	expectSuccess(res);
	const items = nodeItems(res.run, 'Submit and Wait');
	assert.equal(items.length, 1);
	const { json, binary } = items[0];
	assert.match(json.task_id, UUID_RE);
	assert.equal(json.status, 'complete');
	assert.equal(json.result.file_size, FILES.a.bytes.length);
	assert.equal(json.result.file_sha256, sha256(FILES.a.bytes));
	assert.ok(binary?.data, 'input binary not passed through');
	assert.equal(binary.data.fileName, FILES.a.name);
	t.diagnostic(`task ${json.task_id}`);
});

test('Example workflow submit-and-wait.json runs', async (t) => {
	const res = await execute(EXAMPLE_SUBMIT_ID);
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.match(String(item.json.invoice_number), /^INV-/);
	assert.equal(item.binary, undefined, 'the output holds the extracted fields only, no file');
	assert.match(String(item.json.file_sha256), /^[0-9a-f]{64}$/);
	t.diagnostic(`${item.json.vendor_name}, ${item.json.invoice_number}`);
});

test('Submit and Wait on three items, one failing (continueOnFail): round trip, error item, order, pairing', async (t) => {
	const res = await execute(WF.batch);
	expectSuccess(res);
	const items = nodeItems(res.run, 'Submit and Wait');
	assert.equal(items.length, 3, `expected 3 output items, got ${items.length}`);
	items.forEach((item, i) =>
		assert.equal(pairedIndex(item), i, `item ${i} is paired with input ${pairedIndex(item)}`),
	);
	const [a, b, c] = items;
	for (const [item, file] of [
		[a, FILES.a],
		[c, FILES.c],
	]) {
		assert.equal(item.json.status, 'complete');
		assert.equal(item.json.result.file_sha256, sha256(file.bytes), `${file.name}: SHA-256 differs`);
		assert.equal(item.json.result.file_size, file.bytes.length);
		assert.equal(
			item.binary?.data?.fileName,
			file.name,
			`${file.name}: wrong input binary on its output item`,
		);
	}
	assert.match(String(b.json.error), /EMULATOR_FAIL/, `error item: ${JSON.stringify(b.json)}`);
	assert.match(String(b.json.task_id), UUID_RE, 'the error item names its task');
	const failedTask = await emulatorTask(b.json.task_id);
	assert.equal(failedTask.status, 'failed');
	assert.equal(
		failedTask.file_sha256,
		sha256(FILES.b.bytes),
		'failed file: the service received other bytes',
	);
	t.diagnostic(`error item: "${b.json.error}"`);
});

test('Failed task: fails the run with the service error; as an item with outputFailedAsItems', async (t) => {
	const failed = await execute(WF.failed);
	assert.match(expectFailure(failed), /Extraction failed: the document could not be read/);
	const asItem = await execute(WF.failedAsItem);
	expectSuccess(asItem);
	const [item] = nodeItems(asItem.run, 'Submit and Wait');
	assert.equal(item.json.status, 'failed');
	assert.match(String(item.json.error), /EMULATOR_FAIL/);
	t.diagnostic(`run error: "${failed.run.data.resultData.error.message}"`);
});

test('Inactive API key: the 402 message', async (t) => {
	const res = await execute(WF.inactive);
	const text = expectFailure(res);
	assert.match(text, /Subscription inactive/, text);
	t.diagnostic(res.run.data.resultData.error.message);
});

test('Unknown project: the 404 message', async (t) => {
	const res = await execute(WF.unknown);
	const text = expectFailure(res);
	assert.match(text, new RegExp(`Project '${UNKNOWN_PROJECT_ID}' not found`), text);
	t.diagnostic(res.run.data.resultData.error.message);
});

/** Two 500 answers from `endpoint`, then Submit and Wait; returns how often the endpoint was called. */
async function faultRecovery(endpoint) {
	const before = await requestCount(endpoint);
	await addFault({ endpoint, count: 2, status: 500 });
	const res = await execute(WF.saw);
	expectSuccess(res);
	const [item] = nodeItems(res.run, 'Submit and Wait');
	assert.equal(item.json.status, 'complete');
	assert.equal(item.json.result.file_sha256, sha256(FILES.a.bytes));
	const faults = await listFaults();
	assert.equal(
		faults.filter((f) => f.endpoint === endpoint && (f.count ?? f.remaining ?? 0) > 0).length,
		0,
		`faults left: ${JSON.stringify(faults)}`,
	);
	return (await requestCount(endpoint)) - before;
}

test('Fault recovery: process_file answers 500 twice, then the submission succeeds', async (t) => {
	const calls = await faultRecovery('process_file');
	assert.equal(calls, 3, `process_file called ${calls} times`);
	t.diagnostic(`${calls} process_file calls`);
});

test('Fault recovery: task_status answers 500 twice, then the wait succeeds', async (t) => {
	const calls = await faultRecovery('task_status');
	assert.ok(calls >= 3, `task_status called ${calls} times`);
	t.diagnostic(`${calls} task_status calls`);
});
