'use strict';

/**
 * How a case judges a run of `n8n execute --id` (harness/n8n.js execute): by the run n8n printed,
 * never by how the CLI exited. The run JSON is n8n's own record of the execution (status,
 * finished, the error it stored); `n8n execute` exits non-zero exactly when that run holds an
 * error, so its exit code adds nothing, and its process can crash while exiting after a run that
 * finished and was printed (n8n 2.41.1 with N8N_SSRF_PROTECTION_ENABLED: SIGSEGV or SIGABRT).
 * A failure's message names the exit, to help read it; nothing is decided from it.
 */

const assert = require('node:assert/strict');

const { runError } = require('../../../harness/n8n.js');

/** How the CLI ended, for messages only: "exit 0", "signal SIGABRT". */
function exitOf(result) {
	return result.signal ? `signal ${result.signal}` : `exit ${result.code}`;
}

function statusLine(result) {
	const { run } = result;
	const error = runError(run).trim();
	return `execution status ${run.status}, ${run.finished ? 'finished' : 'not finished'}${error ? `: ${error}` : ''} (n8n execute: ${exitOf(result)})`;
}

/** The run finished successfully: status success, finished, no error stored. */
function expectSuccess(result) {
	const { run } = result;
	assert.equal(run.status, 'success', statusLine(result));
	assert.equal(run.finished, true, statusLine(result));
	assert.equal(run.data.resultData.error, undefined, statusLine(result));
}

/** The run failed: status error, with the error n8n stored; returns that error's text. */
function expectFailure(result) {
	const { run } = result;
	assert.equal(run.status, 'error', `the run should fail; ${statusLine(result)}`);
	assert.notEqual(run.finished, true, `the run should fail; ${statusLine(result)}`);
	assert.ok(run.data.resultData.error, `the failed run stores no error; ${statusLine(result)}`);
	return runError(run);
}

module.exports = { expectSuccess, expectFailure, exitOf };
