import type { INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	eachItem,
	NodeRun,
	notStarted,
	runUnits,
	type Unit,
} from '../../../../../../nodes/DocumentExtraction/actions/common/itemRunner';
import { nodeError } from '../../../../../../nodes/shared/transport/errors';
import { createContext, failureOf } from '../../../../helpers/context';

const items: INodeExecutionData[] = [{ json: {} }, { json: {} }, { json: {} }];
const ctx = (continueOnFail = false, input = items) =>
	createContext({ params: {}, continueOnFail, items: input });
const runOf = (context: ReturnType<typeof ctx>) => new NodeRun(context);

describe('NodeRun', () => {
	it('halts on a failure only without Continue On Fail', () => {
		const stopping = runOf(ctx(false));
		stopping.failed();
		expect(stopping.halted).toBe(true);
		const going = runOf(ctx(true));
		going.failed();
		expect(going.halted).toBe(false);
	});
});

describe('runUnits, once for every item', () => {
	it('outputs items in input order, paired, whatever order they finish in', async () => {
		const context = ctx();
		const out = await runUnits.call(context, runOf(context), eachItem, async ({ itemIndex: i }) => {
			await sleep(3 - i);
			return { json: { i }, pairedItem: { item: i } };
		});
		expect(out.map((o) => o.json.i)).toEqual([0, 1, 2]);
	});

	it('runs one item at a time when asked', async () => {
		let inFlight = 0;
		let maxInFlight = 0;
		const context = ctx();
		await runUnits.call(
			context,
			runOf(context),
			eachItem,
			async ({ itemIndex: i }) => {
				maxInFlight = Math.max(maxInFlight, ++inFlight);
				await sleep(0);
				inFlight--;
				return { json: { i } };
			},
			{ oneAtATime: true },
		);
		expect(maxInFlight).toBe(1);
	});

	it('makes a failed item an error item under Continue On Fail, with its kind and task id', async () => {
		const context = ctx(true);
		const run = runOf(context);
		const out = await runUnits.call(context, run, eachItem, async ({ itemIndex: i }) => {
			if (i === 1) {
				run.tasks.set({ itemIndex: 1 }, 'other-unit-of-the-item');
				throw nodeError(context, 'may_have_arrived', 'may have');
			}
			if (i === 2) throw new Error('broken');
			return { json: { i }, pairedItem: { item: i } };
		});
		expect(out[1]).toEqual({
			json: { error: 'may have', kind: 'may_have_arrived' },
			pairedItem: { item: 1 },
		});
		expect(out[2].json).toEqual({ error: 'broken', kind: 'unexpected' });
		expect(run.report.errorItems).toEqual([false, false]);
	});
});

describe('runUnits', () => {
	const file = (field: string, fileName?: string) => ({
		field,
		...(fileName ? { fileName } : {}),
		mimeType: 'application/pdf',
	});

	it('runs the files of an item as units: error items name their file and carry their own task', async () => {
		const context = ctx(true, [{ json: {} }]);
		const run = runOf(context);
		const units = [file('attachment_0', 'a.pdf'), file('attachment_1', 'b.pdf')];
		const out = await runUnits.call(
			context,
			run,
			(itemIndex) => units.map((f) => ({ itemIndex, file: f })),
			async (unit: Unit) => {
				run.tasks.set(unit, `task-${unit.file!.field}`);
				if (unit.file!.field === 'attachment_1') throw new Error('lost');
				return { json: { done: true }, pairedItem: { item: 0 } };
			},
		);
		expect(out.map((o) => o.json)).toEqual([
			{ binaryField: 'attachment_0', fileName: 'a.pdf', done: true },
			{
				binaryField: 'attachment_1',
				fileName: 'b.pdf',
				error: 'lost',
				kind: 'unexpected',
				task_id: 'task-attachment_1',
			},
		]);
	});

	it('without Continue On Fail names the failed file in the message and its task in the context', async () => {
		const context = ctx(false, [{ json: {} }]);
		const run = runOf(context);
		const error = await failureOf(
			runUnits.call(
				context,
				run,
				(itemIndex) => [{ itemIndex, file: file('attachment_1', 'b.pdf') }],
				async (unit: Unit) => {
					run.tasks.set(unit, 'task-b');
					throw nodeError(context, 'task_failed', 'Extraction failed: unreadable', {
						itemIndex: 0,
					});
				},
			),
		);
		expect(error.message).toBe('Extraction failed: unreadable ("b.pdf" in attachment_1)');
		expect((error as unknown as { context: object }).context).toMatchObject({
			kind: 'task_failed',
			task_id: 'task-b',
		});
		expect(error.description).toContain("This item's task: task-b");
	});

	it('a failure in planning is the item’s failure; units not started are counted, not thrown', async () => {
		const context = ctx(false);
		const error = await failureOf(
			runUnits.call(
				context,
				runOf(context),
				(itemIndex) => {
					if (itemIndex === 0) throw nodeError(context, 'invalid_input', 'no files', { itemIndex });
					return [{ itemIndex }];
				},
				async () => {
					throw notStarted(context);
				},
			),
		);
		expect(error.message).toBe('no files');
		expect(error.description).toContain('2 items were not submitted because of this failure.');
	});
});
