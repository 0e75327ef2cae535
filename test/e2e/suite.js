#!/usr/bin/env node
'use strict';

/**
 * End-to-end suite: the packed package installed as a community package in a real n8n
 * (NODE24 + N8N_BIN from scripts/ensure-runtime.sh), against the emulator on a free port.
 * Every check reads n8n's own output: the run JSON of `n8n execute --id`, or for the trigger
 * the executions n8n stored (REST API).
 *
 * The cases are node:test files in cases/, run in this order in this one process (they
 * share the setup of lib/setup.js, and the trigger and credential cases one n8n server).
 * Prints PASS/FAIL per case and, last, "N passed, N failed"; exits non-zero on any failure.
 *
 *   NODE24=… N8N_BIN=… N8N_DIR=… node test/e2e/suite.js      (normally via test/e2e/run.sh)
 *   E2E_KEEP=1         keep the temporary folder (n8n user folder, logs)
 *   E2E_ONLY=<regexp>  run only the cases whose name matches (case-insensitive)
 *   E2E_PROCESSING_MS  emulator processing time (default 1500)
 */

const path = require('node:path');

const { killAllSync } = require('../../harness/n8n.js');
const { runSuite } = require('./lib/runner.js');
const { teardown } = require('./lib/setup.js');

runSuite({
	cases: [
		'install',
		'examples',
		'security',
		'retry-on-fail',
		'retry-from-list',
		'service-limits',
		'binary-modes',
		'trigger',
		'editor',
		'credential',
		'trigger-refusal',
		'mcp',
		'stop',
		'production',
	].map((name) => path.join(__dirname, 'cases', `${name}.test.js`)),
	only: process.env.E2E_ONLY,
	// both versions' suites run side by side in npm test, each slower than alone
	timeoutMs: 30 * 60 * 1000,
	killAll: killAllSync,
	teardown, // normally done by the after hook already
});
