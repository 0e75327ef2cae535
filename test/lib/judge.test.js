'use strict';

/**
 * The e2e cases' judge (test/e2e/lib/judge.js) decides from the run n8n printed, whatever way
 * `n8n execute` exited: a finished run passes after a crash on exit, a failed run fails after a
 * clean exit.
 */

const { parseRun } = require('../../harness/n8n.js');
const { expectSuccess, expectFailure } = require('../e2e/lib/judge.js');

/** What `n8n execute --id` prints (N8N_LOG_LEVEL=info), with `run` after the ==== line. */
const printed = (headline, run) =>
	`${headline}\n====================================\n${JSON.stringify(run, null, 2)}\n`;

const succeeded = {
	data: {
		resultData: { runData: { Submit: [{ data: { main: [[{ json: { task_id: 't' } }]] } }] } },
	},
	mode: 'cli',
	startedAt: '2026-01-01T00:00:00.000Z',
	stoppedAt: '2026-01-01T00:00:01.000Z',
	status: 'success',
	finished: true,
};
const failed = {
	data: {
		resultData: {
			runData: { Submit: [{ error: { message: 'The service refused the key' } }] },
			error: { message: 'The service refused the key', description: 'Check the API key' },
			lastNodeExecuted: 'Submit',
		},
	},
	mode: 'cli',
	startedAt: '2026-01-01T00:00:00.000Z',
	stoppedAt: '2026-01-01T00:00:01.000Z',
	status: 'error',
};

const SUCCESS_OUTPUT = printed('Execution was successful:', succeeded);
const FAILURE_OUTPUT = printed(
	'Execution was NOT successful. See log message for details.',
	failed,
);

/** How the CLI may end: cleanly, with the run's exit code, or crashing after it printed the run. */
const EXITS = [
	['exit 0', { code: 0, signal: null }],
	['exit 1', { code: 1, signal: null }],
	['SIGSEGV', { code: null, signal: 'SIGSEGV' }],
	['SIGABRT', { code: null, signal: 'SIGABRT' }],
	['SIGKILL', { code: null, signal: 'SIGKILL' }],
];

const result = (output, exit) => ({
	...exit,
	output: `${output}\nFATAL ERROR: crashed on exit`,
	run: parseRun(output),
});

describe('e2e judge', () => {
	it.each(EXITS)(
		'passes a run that finished successfully, when n8n execute ended with %s',
		(_, exit) => {
			expect(() => expectSuccess(result(SUCCESS_OUTPUT, exit))).not.toThrow();
		},
	);

	it.each(EXITS)('fails a run that failed, when n8n execute ended with %s', (_, exit) => {
		expect(() => expectSuccess(result(FAILURE_OUTPUT, exit))).toThrow(
			/execution status error, not finished: The service refused the key/,
		);
	});

	it.each(EXITS)(
		'returns the error of an expected failure, when n8n execute ended with %s',
		(_, exit) => {
			expect(expectFailure(result(FAILURE_OUTPUT, exit))).toMatch(
				/^The service refused the key\nCheck the API key$/,
			);
		},
	);

	it.each(EXITS)(
		'fails an expected failure that succeeded, when n8n execute ended with %s',
		(_, exit) => {
			expect(() => expectFailure(result(SUCCESS_OUTPUT, exit))).toThrow(/the run should fail/);
		},
	);

	it.each([
		['canceled', { ...succeeded, status: 'canceled', finished: false }],
		['crashed', { ...succeeded, status: 'crashed', finished: false }],
		['not finished', { ...succeeded, finished: false }],
		[
			'holding an error',
			{
				...succeeded,
				data: { resultData: { ...succeeded.data.resultData, error: failed.data.resultData.error } },
			},
		],
	])('fails a run %s', (_, run) => {
		expect(() => expectSuccess({ code: 0, signal: null, run })).toThrow();
	});

	it('names the exit in the message, without deciding from it', () => {
		expect(() => expectSuccess(result(FAILURE_OUTPUT, { code: null, signal: 'SIGABRT' }))).toThrow(
			/\(n8n execute: signal SIGABRT\)/,
		);
	});
});
