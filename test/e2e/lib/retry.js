'use strict';

/** A run of the four documents of RETRY_FILES, with retries, makes one task and one upload each. */

const assert = require('node:assert/strict');

const { sha256 } = require('../../../harness/fixtures.js');
const { RETRY_FILES } = require('../../../harness/workflows.js');
const { tasksCreatedDuring, requestCount } = require('./emulator-client.js');

/** Runs `start`; asserts one task and one upload per document; resolves to {created, uploads}. */
async function oneTaskPerDocument(start) {
	const uploadsBefore = await requestCount('process_file');
	const created = await tasksCreatedDuring(start);
	const uploads = (await requestCount('process_file')) - uploadsBefore;
	assert.deepEqual(
		created.map((task) => task.file_sha256).sort(),
		RETRY_FILES.map((f) => sha256(f.bytes)).sort(),
		`tasks created: ${created.length} for ${RETRY_FILES.length} documents`,
	);
	assert.equal(uploads, RETRY_FILES.length, `uploads: ${uploads}`);
	return { created, uploads };
}

module.exports = { oneTaskPerDocument };
