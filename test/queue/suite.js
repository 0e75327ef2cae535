#!/usr/bin/env node
'use strict';

/**
 * The queue-mode suite: the packed package in n8n's queue mode (harness/queue/stack.js) against
 * the emulator; the node:test files of cases/ in this order (../e2e/lib/runner.js). Fails if a
 * process it started is left running. Normally run by run.sh.   QUEUE_KEEP=1: keep the work
 * folder.   QUEUE_ONLY=<regexp>: some cases.   QUEUE_PROCESSING_MS: the emulator's (4000).
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
	// teardown returns what is still running
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
