'use strict';

/**
 * Runs node:test case files in this process, in order (test/e2e/suite.js, test/queue/suite.js):
 * prints PASS/FAIL per case and, last, "N passed, N failed"; exits 1 on a failure, 2 on the time
 * limit, 130 on SIGINT or SIGTERM. `killAll` (synchronous) kills what the suite started, on a
 * timeout, a signal and at exit; `teardown` (async, never throws) runs also when the cases throw;
 * `afterTeardown(counts, what teardown returned)` may add to the counts.
 */

const { run } = require('node:test');

const { report } = require('./report.js');

function runSuite({ cases, only, timeoutMs, killAll, teardown, afterTeardown = () => {} }) {
	const pattern = only ? new RegExp(only, 'i') : undefined;

	async function main() {
		const started = Date.now();
		const watchdog = setTimeout(() => {
			console.log(`FAIL  suite timed out after ${timeoutMs / 60000} min`);
			killAll();
			console.log('0 passed, 1 failed');
			process.exit(2);
		}, timeoutMs);
		// node:test ends the run when the event loop is otherwise empty: the watchdog must not hold it
		watchdog.unref();
		for (const signal of ['SIGINT', 'SIGTERM']) {
			process.on(signal, () => {
				killAll();
				process.exit(130);
			});
		}
		process.on('exit', killAll);

		let counts;
		let tornDown;
		try {
			counts = await report(
				run({
					files: cases,
					isolation: 'none',
					concurrency: false,
					testNamePatterns: pattern ? [pattern] : undefined,
				}),
			);
		} finally {
			tornDown = await teardown();
			clearTimeout(watchdog);
		}
		afterTeardown(counts, tornDown);
		console.log(`# duration ${((Date.now() - started) / 1000).toFixed(0)} s`);
		console.log(`${counts.passed} passed, ${counts.failed} failed`);
		process.exit(counts.failed ? 1 : 0);
	}

	main().catch((error) => {
		console.log(`FAIL  suite crashed: ${error.stack || error.message}`);
		killAll();
		console.log('0 passed, 1 failed');
		process.exit(1);
	});
}

module.exports = { runSuite };
