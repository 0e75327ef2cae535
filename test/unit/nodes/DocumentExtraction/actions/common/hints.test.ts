import type { IExecuteFunctions, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';

import {
	addOutputHints,
	RunReport,
} from '../../../../../../nodes/DocumentExtraction/actions/common/hints';
import type { NodeRun } from '../../../../../../nodes/DocumentExtraction/actions/common/itemRunner';
import { router } from '../../../../../../nodes/DocumentExtraction/actions/router';
import * as submitAndWait from '../../../../../../nodes/DocumentExtraction/actions/document/submitAndWait.operation';
import { createContext } from '../../../../helpers/context';

const TASK = '0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01';
const complete: INodeExecutionData = { json: { task_id: TASK, status: 'complete', result: {} } };

/** A report with `timedOut` entries (whether a status check was answered), failed tasks and error items. */
function report({
	timedOut = [] as boolean[],
	failedTasks = 0,
	errorItems = [] as boolean[],
} = {}): RunReport {
	const run = new RunReport();
	run.timedOut.push(...timedOut);
	run.failedTasks = failedTasks;
	run.errorItems.push(...errorItems);
	return run;
}

/** The hints a run with this report adds. */
function outputHints(run: RunReport): NodeExecutionHint[] {
	const added: NodeExecutionHint[] = [];
	const ctx = { addExecutionHints: (...hints: NodeExecutionHint[]) => added.push(...hints) };
	addOutputHints.call(ctx as unknown as IExecuteFunctions, run);
	return added;
}

const messages = (run: RunReport) => outputHints(run).map((hint) => hint.message);

describe('the hints after a run', () => {
	it('names each file File Types left out, with its item, as information', () => {
		const run = new RunReport();
		run.skippedFiles.push({
			itemIndex: 0,
			field: 'attachment_2',
			fileName: 'notes.txt',
			mimeType: 'text/plain',
		});
		expect(outputHints(run)).toEqual([
			{
				type: 'info',
				location: 'outputPane',
				message:
					'1 file was not sent, File Types not counting it as a document: item 0 attachment_2 ("notes.txt", text/plain). Add its type to File Types to send it',
			},
		]);
	});

	it('says nothing about a clean run', () => {
		expect(outputHints(new RunReport())).toEqual([]);
	});

	it('counts the tasks still running after Max Wait, in the output pane, as a warning', () => {
		expect(outputHints(report({ timedOut: [true, true, true] }))).toEqual([
			{
				type: 'warning',
				location: 'outputPane',
				message:
					'3 tasks were still running after Max Wait; their task_ids are in the output: fetch them later with Get Status, or raise Max Wait',
			},
		]);
		expect(messages(report({ timedOut: [true] }))).toEqual([
			'1 task was still running after Max Wait; its task_id is in the output: fetch it later with Get Status, or raise Max Wait',
		]);
	});

	it('does not call a task whose status checks were never answered "still running"', () => {
		expect(messages(report({ timedOut: [false] }))).toEqual([
			'1 task has no known status: no status check was answered within Max Wait; its task_id is in the output: fetch it later with Get Status, or raise Max Wait',
		]);
		expect(messages(report({ timedOut: [false, true] }))).toEqual([
			'2 tasks did not finish within Max Wait (1 without any status answer); their task_ids are in the output: fetch them later with Get Status, or raise Max Wait',
		]);
	});

	it('counts error items and says whether they carry their task_id', () => {
		expect(messages(report({ errorItems: [true, true] }))).toEqual([
			'2 items failed and are output as error items (On Error → Continue), with the reason in "error"; they carry their task_id: fetch them with Get Status',
		]);
		expect(messages(report({ errorItems: [true, false] }))).toEqual([
			'2 items failed and are output as error items (On Error → Continue), with the reason in "error"; 1 of them had been submitted and carries its task_id: fetch it with Get Status',
		]);
		expect(messages(report({ errorItems: [false] }))).toEqual([
			'1 item failed and is output as an error item (On Error → Continue), with the reason in "error"',
		]);
	});

	it('counts tasks that failed at the service and were output as items', () => {
		expect(messages(report({ failedTasks: 2, timedOut: [true] }))).toEqual([
			'1 task was still running after Max Wait; its task_id is in the output: fetch it later with Get Status, or raise Max Wait',
			'2 tasks failed at the service; they are output with status "failed" and the service\'s error text',
		]);
	});
});

describe('addOutputHints', () => {
	it('adds the hints to the run through addExecutionHints', () => {
		const added: NodeExecutionHint[] = [];
		const context = {
			addExecutionHints: (...hints: NodeExecutionHint[]) => added.push(...hints),
		} as unknown as IExecuteFunctions;
		const run = report({ timedOut: [true], errorItems: [true] });
		addOutputHints.call(context, run);
		expect(added.map((hint) => hint.message)).toEqual(messages(run));
	});

	it('does nothing on an execute context without addExecutionHints', () => {
		expect(() =>
			addOutputHints.call({} as IExecuteFunctions, report({ timedOut: [true] })),
		).not.toThrow();
	});
});

describe('router', () => {
	it('adds the hints the operation recorded, not what its output items happen to hold', async () => {
		// an output item that looks like a timed-out task: the hints do not read the output
		const lookalike: INodeExecutionData = {
			json: { timedOut: true, status: 'failed', error: 'x' },
		};
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
			expect(await router.call(ctx as unknown as IExecuteFunctions)).toEqual([
				[complete, lookalike],
			]);
		} finally {
			execute.mockRestore();
		}
		expect(added.map((hint) => hint.message)).toEqual(messages(report({ timedOut: [true] })));
	});
});
