'use strict';

/** The suites' output: PASS/FAIL/SKIP per node:test case, with its diagnostics, and the counts. */

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const indent = (text) => text.split('\n').join('\n      ');

/** The message of a failed case; for a hook failure also what the hook threw. */
function failureText(error) {
	if (!error) return 'unknown error';
	const cause = error.cause;
	if (error.failureType === 'testCodeFailure' && cause) return cause.message || String(cause);
	if (cause) return `${error.message}: ${cause.stack || cause.message || cause}`;
	return error.message || String(error);
}

async function report(stream) {
	const counts = { passed: 0, failed: 0 };
	let pending; // the last PASS/FAIL line, printed once its notes are known
	const flush = () => {
		if (pending !== undefined) console.log(pending);
		pending = undefined;
	};
	for await (const { type, data } of stream) {
		if (type === 'test:diagnostic' && pending !== undefined) {
			pending = pending.replace(/^(PASS {2}[^\n]*)/, `$1 — ${data.message}`);
		} else if (type === 'test:pass' || type === 'test:fail' || type === 'test:plan') {
			flush();
			if (type === 'test:pass' && data.skip) {
				// never silently: a skipped case says why
				pending = `SKIP  ${data.name} — ${data.skip === true ? 'no reason given' : data.skip}`;
			} else if (type === 'test:pass') {
				counts.passed++;
				pending = `PASS  ${data.name} (${seconds(data.details.duration_ms)})`;
			} else if (type === 'test:fail') {
				counts.failed++;
				const message = failureText(data.details.error);
				pending = `FAIL  ${data.name} (${seconds(data.details.duration_ms)})\n      ${indent(message)}`;
			}
		}
	}
	flush();
	return counts;
}

module.exports = { report };
