import type { INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	outputItem,
	processItems,
} from '../../../../../../nodes/DocumentExtraction/actions/common/itemRunner';
import { binaryItem, createContext, failureOf } from '../../../../helpers/context';

const ctx = (continueOnFail = false) => createContext({ params: {}, continueOnFail });

describe('outputItem', () => {
	it('pairs the output with its input and carries the binary only when asked', () => {
		const item = binaryItem('pdf');
		expect(outputItem(item, 3, { a: 1 }, { includeInputBinary: true })).toEqual({
			json: { a: 1 },
			pairedItem: { item: 3 },
			binary: item.binary,
		});
		expect(outputItem(item, 3, { a: 1 }, { includeInputBinary: false }).binary).toBeUndefined();
	});
});

describe('processItems', () => {
	const items: INodeExecutionData[] = [{ json: {} }, { json: {} }, { json: {} }];

	it('outputs items in input order, paired, whatever order they finish in', async () => {
		const out = await processItems.call(ctx(), items, async (i) => {
			await sleep(0);
			return { json: { i }, pairedItem: { item: i } };
		});
		expect(out.map((o) => o.json.i)).toEqual([0, 1, 2]);
	});

	it('runs one item at a time with concurrency 1', async () => {
		let inFlight = 0;
		let maxInFlight = 0;
		await processItems.call(
			ctx(),
			items,
			async (i) => {
				maxInFlight = Math.max(maxInFlight, ++inFlight);
				await sleep(0);
				inFlight--;
				return { json: { i } };
			},
			{ concurrency: 1 },
		);
		expect(maxInFlight).toBe(1);
	});

	it('makes a failed item an error item under continueOnFail, with its task id', async () => {
		const out = await processItems.call(
			ctx(true),
			items,
			async (i) => {
				if (i === 1) throw new Error('broken');
				return { json: { i }, pairedItem: { item: i } };
			},
			{ submittedTasks: new Map([[1, 'task-1']]) },
		);
		expect(out[1]).toEqual({
			json: { error: 'broken', task_id: 'task-1' },
			pairedItem: { item: 1 },
		});
	});

	it('otherwise throws the first failure with its item index, naming the other tasks', async () => {
		const error = await failureOf(
			processItems.call(
				ctx(),
				items,
				async (i) => {
					if (i > 0) throw new Error(`broken ${i}`);
					return { json: {} };
				},
				{ submittedTasks: new Map([[0, 'task-0']]) },
			),
		);
		expect(error.message).toBe('broken 1');
		expect((error as unknown as { context: { itemIndex: number } }).context.itemIndex).toBe(1);
		expect(error.description).toContain('item 0: task-0');
	});
});
