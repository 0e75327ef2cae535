import type { IExecuteFunctions, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';

import {
	addOutputHints,
	RunReport,
} from '../../../../../../nodes/DocumentExtraction/actions/common/hints';
import type { NodeRun } from '../../../../../../nodes/DocumentExtraction/actions/common/itemRunner';
import { DocumentExtraction } from '../../../../../../nodes/DocumentExtraction/DocumentExtraction.node';
import * as submitAndWait from '../../../../../../nodes/DocumentExtraction/actions/document/submitAndWait.operation';
import { createContext } from '../../../../helpers/context';

/** A report with `timedOut` entries (whether a status check was answered), failed tasks and error items. */
const report = (entries: Partial<RunReport>) => Object.assign(new RunReport(), entries);

/** The hints a run with this report adds. */
function outputHints(run: RunReport): NodeExecutionHint[] {
	const added: NodeExecutionHint[] = [];
	const ctx = { addExecutionHints: (...hints: NodeExecutionHint[]) => added.push(...hints) };
	addOutputHints.call(ctx as unknown as IExecuteFunctions, run);
	return added;
}

const LATER = 'fetch them later with Get Status, or raise Max Wait';

describe('the hints after a run', () => {
	it.each([
		['a clean run', {}, []],
		[
			'tasks still running after Max Wait',
			{ timedOut: [true, true, true] },
			[`3 tasks were still running after Max Wait; their task_ids are in the output: ${LATER}`],
		],
		[
			'one task still running',
			{ timedOut: [true] },
			[
				'1 task was still running after Max Wait; its task_id is in the output: fetch it later with Get Status, or raise Max Wait',
			],
		],
		[
			'a task whose status checks were never answered (not "still running")',
			{ timedOut: [false] },
			[
				'1 task has no known status: no status check was answered within Max Wait; its task_id is in the output: fetch it later with Get Status, or raise Max Wait',
			],
		],
		[
			'tasks of both kinds',
			{ timedOut: [false, true] },
			[
				`2 tasks did not finish within Max Wait (1 without any status answer); their task_ids are in the output: ${LATER}`,
			],
		],
		[
			'error items that carry their task_id',
			{ errorItems: [true, true] },
			[
				'2 items failed and are output as error items (On Error → Continue), with the reason in "error"; they carry their task_id: fetch them with Get Status',
			],
		],
		[
			'error items of which some carry it',
			{ errorItems: [true, false] },
			[
				'2 items failed and are output as error items (On Error → Continue), with the reason in "error"; 1 of them had been submitted and carries its task_id: fetch it with Get Status',
			],
		],
		[
			'an error item without one',
			{ errorItems: [false] },
			[
				'1 item failed and is output as an error item (On Error → Continue), with the reason in "error"',
			],
		],
		[
			'tasks that failed at the service, after the timed-out ones',
			{ failedTasks: 2, timedOut: [true] },
			[
				'1 task was still running after Max Wait; its task_id is in the output: fetch it later with Get Status, or raise Max Wait',
				'2 tasks failed at the service; they are output with status "failed" and the service\'s error text',
			],
		],
	])('warns in the output pane about %s', (_name, entries, messages) => {
		const hints = outputHints(report(entries));
		expect(hints.map((hint) => hint.message)).toEqual(messages);
		expect(hints.every((h) => h.type === 'warning' && h.location === 'outputPane')).toBe(true);
	});

	it('names each file File Types left out, with its item, as information', () => {
		const run = new RunReport();
		const skipped = { field: 'attachment_2', fileName: 'notes.txt', mimeType: 'text/plain' };
		run.skippedFiles.push({ itemIndex: 0, ...skipped });
		expect(outputHints(run)).toEqual([
			{
				type: 'info',
				location: 'outputPane',
				message:
					'1 file was not sent, File Types not counting it as a document: item 0 attachment_2 ("notes.txt", text/plain). Add its type to File Types to send it',
			},
		]);
	});

	it('does nothing on an execute context without addExecutionHints', () => {
		const run = report({ timedOut: [true] });
		expect(() => addOutputHints.call({} as IExecuteFunctions, run)).not.toThrow();
	});

	it('come from what the operation recorded, not from what its output items hold', async () => {
		const complete: INodeExecutionData = { json: { status: 'complete', result: {} } };
		const lookalike: INodeExecutionData = { json: { timedOut: true, status: 'failed' } };
		const execute = jest
			.spyOn(submitAndWait, 'execute')
			.mockImplementation(async (run: NodeRun) => {
				run.report.timedOut.push(true);
				return [complete, lookalike];
			});
		const added: NodeExecutionHint[] = [];
		const ctx = Object.assign(
			createContext({ params: { resource: 'document', operation: 'submitAndWait' } }),
			{ addExecutionHints: (...hints: NodeExecutionHint[]) => added.push(...hints) },
		);
		try {
			expect(await new DocumentExtraction().execute.call(ctx)).toEqual([[complete, lookalike]]);
		} finally {
			execute.mockRestore();
		}
		expect(added).toEqual(outputHints(report({ timedOut: [true] })));
	});
});
