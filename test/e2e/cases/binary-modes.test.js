'use strict';

/**
 * Submit and Wait under n8n's binary data modes, default and filesystem: the bytes sent are the
 * bytes n8n holds, and the output keeps the input's binary (database mode: test/queue).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { FILES, sha256 } = require('../../../harness/fixtures.js');
const { execute, nodeItems, binaryBytes } = require('../../../harness/n8n.js');
const { WF } = require('../../../harness/workflows.js');
const { expectSuccess } = require('../lib/judge.js');
const { useSuite } = require('../lib/setup.js');

useSuite();

const EXPECTED_STORAGE = {
	filesystem: (storedAs) => assert.match(storedAs, /^filesystem/),
	default: (storedAs) => assert.equal(storedAs, 'inline'),
};

for (const [mode, checkStorage] of Object.entries(EXPECTED_STORAGE)) {
	test(`Binary data mode N8N_DEFAULT_BINARY_DATA_MODE=${mode}: Submit and Wait byte-exact`, async (t) => {
		const res = await execute(WF.saw, { N8N_DEFAULT_BINARY_DATA_MODE: mode });
		expectSuccess(res);
		const toFile = nodeItems(res.run, 'To File')[0].binary.data;
		const [item] = nodeItems(res.run, 'Submit and Wait');
		assert.equal(item.json.status, 'complete');
		assert.equal(item.json.result.file_sha256, sha256(FILES.a.bytes));
		assert.equal(item.json.result.file_size, FILES.a.bytes.length);
		const out = item.binary?.data;
		assert.ok(out, 'input binary not passed through');
		const storedAs = out.id ? out.id.split(':')[0] : 'inline';
		checkStorage(storedAs);
		assert.equal(out.id, toFile.id, 'the output binary should be the input binary');
		const bytes = binaryBytes(out);
		if (bytes) assert.equal(sha256(bytes), sha256(FILES.a.bytes), 'binary kept by n8n differs');
		t.diagnostic(`stored as ${storedAs}`);
	});
}
