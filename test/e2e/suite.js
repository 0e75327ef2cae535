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
const { run } = require('node:test');

const { killAllSync } = require('./lib/n8n.js');
const { teardown } = require('./lib/setup.js');
const { report } = require('./lib/report.js');

const CASES = [
	'document',
	'url-input',
	'reliability',
	'project',
	'binary-modes',
	'trigger',
	'trigger-duplicates',
	'credential',
	'mcp',
	'stop',
].map((name) => path.join(__dirname, 'cases', `${name}.test.js`));
const ONLY = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY, 'i') : undefined;
const SUITE_TIMEOUT_MS = 18 * 60 * 1000;

async function main() {
	const started = Date.now();
	const watchdog = setTimeout(() => {
		console.log(`FAIL  suite timed out after ${SUITE_TIMEOUT_MS / 60000} min`);
		killAllSync();
		console.log('0 passed, 1 failed');
		process.exit(2);
	}, SUITE_TIMEOUT_MS);
	// node:test ends the run when the event loop is otherwise empty: the watchdog must not hold it
	watchdog.unref();
	for (const signal of ['SIGINT', 'SIGTERM']) {
		process.on(signal, () => {
			killAllSync();
			process.exit(130);
		});
	}
	process.on('exit', killAllSync);

	let counts;
	try {
		counts = await report(
			run({
				files: CASES,
				isolation: 'none',
				concurrency: false,
				testNamePatterns: ONLY ? [ONLY] : undefined,
			}),
		);
	} finally {
		await teardown(); // normally done by the after hook already
		clearTimeout(watchdog);
	}
	console.log(`# duration ${((Date.now() - started) / 1000).toFixed(0)} s`);
	console.log(`${counts.passed} passed, ${counts.failed} failed`);
	process.exit(counts.failed ? 1 : 0);
}

main().catch((error) => {
	console.log(`FAIL  suite crashed: ${error.stack || error.message}`);
	killAllSync();
	console.log('0 passed, 1 failed');
	process.exit(1);
});
