'use strict';

/**
 * Binary data in queue mode's default mode (`database`): the webhook process stores the uploaded
 * file, a worker reads and sends it, byte-exact (default and filesystem modes: test/e2e).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { sha256 } = require('../../../harness/fixtures.js');
const { samplePdf } = require('../../../emulator/lib/pdf.js');
const { useQueueSuite, queue } = require('../../../harness/queue/setup.js');
const { QWF, PATHS } = require('../../../harness/queue/workflows.js');
const { webhookRun, submitAndWaitOutput, assertRanOnWorker } = require('../lib/runs.js');

useQueueSuite();

test('Binary data mode database (queue-mode default): upload to the webhook process, worker sends it, byte-exact', async (t) => {
	const { stack } = queue;
	const file = samplePdf(
		`INVOICE INV-BIN-database uploaded to the webhook process ${'x'.repeat(2000)}`,
	);
	const e = await webhookRun(stack, QWF.binary, PATHS.binary, {
		body: file,
		contentType: 'application/pdf',
	});
	assert.equal(e.status, 'success', `execution ${e.id} is ${e.status}`);
	const worker = assertRanOnWorker(stack, e.id);
	const [item] = await submitAndWaitOutput(e.id);
	assert.equal(item.json.status, 'complete');
	assert.equal(item.json.result.file_sha256, sha256(file), 'the worker sent other bytes');
	assert.equal(item.json.result.file_size, file.length);
	const id = String(item.binary?.data?.id);
	assert.ok(id.startsWith('database:'), `binary data id ${id} is not in database mode`);
	const rows = await queue.stack.query(
		'SELECT "data", "sourceType", "sourceId" FROM binary_data WHERE "fileId" = $1',
		[id.slice(id.indexOf(':') + 1)],
	);
	assert.equal(rows.length, 1, `no binary_data row for ${id}`);
	assert.equal(sha256(rows[0].data), sha256(file), 'the database holds other bytes');
	t.diagnostic(
		`${id.split(':')[0]}, run on ${worker}; binary_data row source ${rows[0].sourceType}:${rows[0].sourceId}`,
	);
});
