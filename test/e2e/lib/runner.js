'use strict';

/**
 * The suite runner of test/e2e/suite.js and test/queue/suite.js: runs node:test case files in
 * this one process, in the given order, and prints PASS/FAIL per case (lib/report.js) and, last,
 * "N passed, N failed"; exits 1 on any failure, 2 when the whole suite times out, 130 on SIGINT
 * or SIGTERM. Whatever the suite started is killed on a timeout, a signal, a crash and at exit.
 *
 *   runSuite({
 *     cases,         the case files (absolute paths), run in this order
 *     only,          a regexp source (E2E_ONLY, QUEUE_ONLY): only the cases whose name matches,
 *                    case-insensitive; all when empty
 *     timeoutMs,     the whole suite's time limit
 *     killAll,       synchronous: kills every process the suite started
 *     teardown,      async, never throws: stops what the cases started (normally done by their
 *                    after hook already); run also when the cases throw
 *     afterTeardown, (counts, what teardown returned): may add to counts and print lines before
 *                    the summary
 *   })
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
