#!/usr/bin/env node
'use strict';

/**
 * Queue-mode suite: the packed package in n8n's queue mode (PostgreSQL, Redis, main, two workers,
 * one webhook process, and for the production case a second one behind nginx; harness/queue/stack.js) against the emulator. Cases are node:test files in
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

const { killAllSync } = require('../../harness/n8n.js');
const { runSuite } = require('../e2e/lib/runner.js');
const { teardown, killSync } = require('../../harness/queue/setup.js');

function killEverything() {
	killAllSync();
	killSync();
}

runSuite({
	cases: ['retry-from-list', 'trigger', 'stop', 'restart', 'binary-modes', 'production'].map(
		(name) => path.join(__dirname, 'cases', `${name}.test.js`),
	),
	only: process.env.QUEUE_ONLY,
	timeoutMs: 20 * 60 * 1000,
	killAll: killEverything,
	teardown,
	// teardown returns what is still running: a case of its own
	afterTeardown(counts, left) {
		left ??= [];
		if (left.length) {
			console.log(
				`FAIL  every process started is stopped\n      still running: ${left.join(', ')}`,
			);
			counts.failed++;
			killEverything();
		} else {
			console.log(
				'PASS  every process started is stopped (n8n main, workers, webhook processes, nginx, PostgreSQL, Redis, emulator)',
			);
			counts.passed++;
		}
	},
});
