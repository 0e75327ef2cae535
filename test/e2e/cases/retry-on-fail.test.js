'use strict';

/**
 * n8n's Retry On Fail runs Submit and Wait again with the same items in the same execution.
 * Four documents, one of which the service fails: three tries, and still one task per document
 * at the service; the failed document's error reaches the user. The node's memory of what it
 * sent lives in the execution n8n keeps between tries: only a real n8n shows it surviving them.
 * That a try reuses the task of each file, by URL and with an answer lost, is proven through the
 * engine (test/integration/emailAttachments.test.ts) and in
 * test/unit/nodes/DocumentExtraction/actions/common/submissionMemory.test.ts.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { FILES, sha256 } = require('../../../harness/fixtures.js');
const { execute } = require('../../../harness/n8n.js');
const { emulatorStats } = require('../lib/emulator-client.js');
const { WF } = require('../../../harness/workflows.js');
const { expectFailure } = require('../lib/judge.js');
const { oneTaskPerDocument } = require('../lib/retry.js');
const { useSuite } = require('../lib/setup.js');

useSuite();

const TRIES = 3;

test('Retry On Fail: Submit and Wait, 3 tries, 4 documents (1 failing): one task per document, the error reaches the user', async (t) => {
	let res;
	const { created, uploads } = await oneTaskPerDocument(async () => {
		res = await execute(WF.retryBinary);
	});
	const error = expectFailure(res);
	assert.match(error, /Extraction failed: the document could not be read/);
	// every try read the failed task's status again
	const failed = created.find((task) => task.file_sha256 === sha256(FILES.b.bytes));
	const polls = (await emulatorStats()).status_polls_by_task[failed.task_id] ?? 0;
	assert.ok(polls >= TRIES, `the failed task was read ${polls} times in ${TRIES} tries`);
	t.diagnostic(
		`binary: ${created.length} tasks, ${uploads} uploads for 4 documents in ${TRIES} tries; failed task read ${polls} times; error: ${error.split('\n')[0]}`,
	);
});
