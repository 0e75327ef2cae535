'use strict';

/**
 * A run of `n8n execute --id` is judged by the run JSON n8n printed, never by how the CLI exited:
 * it exits non-zero exactly when the run holds an error, and n8n 2.41.1 with
 * N8N_SSRF_PROTECTION_ENABLED can crash while exiting after printing a finished run (SIGSEGV,
 * SIGABRT). Messages name the exit, to help read them.
 */

const assert = require('node:assert/strict');

const { runError } = require('../../../harness/n8n.js');

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

module.exports = { expectSuccess, exitOf };
