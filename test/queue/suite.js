#!/usr/bin/env node
'use strict';

/**
 * Queue-mode suite: the packed package in n8n's queue mode (PostgreSQL, Redis, main, two workers,
 * one webhook process; test/queue/lib/stack.js) against the emulator. Cases are node:test files in
 * cases/, run in this order in this one process. Prints PASS/FAIL per case and, last,
 * "N passed, N failed"; exits non-zero on any failure. Everything started is stopped at the end,
 * also on failure or a signal, and the suite fails if a process is left behind.
 *
 *   NODE24=… N8N_BIN=… N8N_DIR=… node test/queue/suite.js   (normally via test/queue/run.sh)
 *   QUEUE_KEEP=1          keep the work folder (user folders, logs)
 *   QUEUE_ONLY=<regexp>   run only the cases whose name matches (case-insensitive)
 *   QUEUE_PROCESSING_MS   emulator processing time (default 4000)
 */

const path = require('node:path');
const { run } = require('node:test');

const { killAllSync } = require('../e2e/lib/n8n.js');
const { report } = require('../e2e/lib/report.js');
const { teardown, killSync } = require('./lib/setup.js');

const CASES = ['submit-and-wait', 'trigger', 'stop', 'restart', 'binary-modes'].map((name) =>
	path.join(__dirname, 'cases', `${name}.test.js`),
);
const ONLY = process.env.QUEUE_ONLY ? new RegExp(process.env.QUEUE_ONLY, 'i') : undefined;
const SUITE_TIMEOUT_MS = 20 * 60 * 1000;

function killEverything() {
	killAllSync();
	killSync();
}

async function main() {
	const started = Date.now();
	const watchdog = setTimeout(() => {
		console.log(`FAIL  suite timed out after ${SUITE_TIMEOUT_MS / 60000} min`);
		killEverything();
		console.log('0 passed, 1 failed');
		process.exit(2);
	}, SUITE_TIMEOUT_MS);
	watchdog.unref();
	for (const signal of ['SIGINT', 'SIGTERM']) {
		process.on(signal, () => {
			killEverything();
			process.exit(130);
		});
	}
	process.on('exit', killEverything);

	let counts;
	let left = [];
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
		left = (await teardown()) ?? [];
		clearTimeout(watchdog);
	}
	if (left.length) {
		console.log(`FAIL  every process started is stopped\n      still running: ${left.join(', ')}`);
		counts.failed++;
		killEverything();
	} else {
		console.log(
			'PASS  every process started is stopped (n8n main, workers, webhook, PostgreSQL, Redis, emulator)',
		);
		counts.passed++;
	}
	console.log(`# duration ${((Date.now() - started) / 1000).toFixed(0)} s`);
	console.log(`${counts.passed} passed, ${counts.failed} failed`);
	process.exit(counts.failed ? 1 : 0);
}

main().catch((error) => {
	console.log(`FAIL  suite crashed: ${error.stack || error.message}`);
	killEverything();
	console.log('0 passed, 1 failed');
	process.exit(1);
});
