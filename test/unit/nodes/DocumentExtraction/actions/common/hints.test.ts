import type { IExecuteFunctions, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';

import {
	addOutputHints,
	outputHints,
} from '../../../../../../nodes/DocumentExtraction/actions/common/hints';
import { findOperation, router } from '../../../../../../nodes/DocumentExtraction/actions/router';
import { createContext } from '../../../../helpers/context';

const TASK = '0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01';
const complete: INodeExecutionData = { json: { task_id: TASK, status: 'complete', result: {} } };
const timedOut: INodeExecutionData = {
	json: { task_id: TASK, status: 'processing', timedOut: true, waitedSeconds: 600 },
};
const failedTask: INodeExecutionData = {
	json: { task_id: TASK, status: 'failed', error: 'Extraction failed: unreadable' },
};
const errorWithTask: INodeExecutionData = { json: { error: 'Extraction failed', task_id: TASK } };
const errorBeforeSubmit: INodeExecutionData = { json: { error: 'No binary field "data"' } };

const messages = (items: INodeExecutionData[]) => outputHints(items).map((hint) => hint.message);

describe('outputHints', () => {
	it('says nothing about a clean run, or about result fields that happen to be called error', () => {
		expect(outputHints([complete, complete])).toEqual([]);
		expect(outputHints([{ json: { error: 'x', status: 'complete' } }])).toEqual([]);
		expect(outputHints([])).toEqual([]);
	});

	it('counts the tasks still running after Max Wait, in the output pane, as a warning', () => {
		expect(outputHints([complete, timedOut, timedOut, timedOut])).toEqual([
			{
				type: 'warning',
				location: 'outputPane',
				message:
					'3 tasks were still running after Max Wait; their task_ids are in the output: fetch them later with Get Status, or raise Max Wait',
			},
		]);
		expect(messages([timedOut])).toEqual([
			'1 task was still running after Max Wait; its task_id is in the output: fetch it later with Get Status, or raise Max Wait',
		]);
	});

	it('does not call a task whose status checks were never answered "still running"', () => {
		const unknown: INodeExecutionData = {
			json: { task_id: TASK, status: null, timedOut: true, statusChecked: false },
		};
		expect(messages([unknown])).toEqual([
			'1 task has no known status: no status check was answered within Max Wait; its task_id is in the output: fetch it later with Get Status, or raise Max Wait',
		]);
		expect(messages([unknown, { json: { ...timedOut.json, statusChecked: true } }])).toEqual([
			'2 tasks did not finish within Max Wait (1 without any status answer); their task_ids are in the output: fetch them later with Get Status, or raise Max Wait',
		]);
	});

	it('counts error items and says whether they carry their task_id', () => {
		expect(messages([errorWithTask, complete, errorWithTask])).toEqual([
			'2 items failed and are output as error items (On Error → Continue), with the reason in "error"; they carry their task_id: fetch them with Get Status',
		]);
		expect(messages([errorWithTask, errorBeforeSubmit])).toEqual([
			'2 items failed and are output as error items (On Error → Continue), with the reason in "error"; 1 of them had been submitted and carries its task_id: fetch it with Get Status',
		]);
		expect(messages([errorBeforeSubmit])).toEqual([
			'1 item failed and is output as an error item (On Error → Continue), with the reason in "error"',
		]);
	});

	it('counts tasks that failed at the service and were output as items', () => {
		expect(messages([failedTask, failedTask, timedOut])).toEqual([
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
		addOutputHints.call(context, [timedOut, errorWithTask]);
		expect(added.map((hint) => hint.message)).toEqual(messages([timedOut, errorWithTask]));
	});

	it('does nothing on an execute context without addExecutionHints', () => {
		expect(() => addOutputHints.call({} as IExecuteFunctions, [timedOut])).not.toThrow();
	});
});

describe('router', () => {
	it("adds the hints of the operation's output after it ran", async () => {
		const handler = findOperation('document', 'submitAndWait')!;
		const execute = jest.spyOn(handler, 'execute').mockResolvedValue([complete, timedOut]);
		const added: NodeExecutionHint[] = [];
		const ctx = Object.assign(
			createContext({ params: { resource: 'document', operation: 'submitAndWait' } }),
			{ addExecutionHints: (...hints: NodeExecutionHint[]) => added.push(...hints) },
		);
		try {
			expect(await router.call(ctx as unknown as IExecuteFunctions)).toEqual([
				[complete, timedOut],
			]);
		} finally {
			execute.mockRestore();
		}
		expect(added.map((hint) => hint.message)).toEqual(messages([timedOut]));
	});
});
