import nock from 'nock';

import { execute as getStatusExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/getStatus.operation';
import {
	asOperation,
	BASE_URL,
	binaryItem,
	createContext,
	failureOf,
	useOfflineNock,
} from '../../../../helpers/context';
import { TASK, task } from '../../../../helpers/fixtures';

const getStatus = asOperation(getStatusExecute);

useOfflineNock();

describe('Get Status', () => {
	const statusParams = (taskId: string, output = 'result') => ({
		resource: 'document',
		operation: 'getStatus',
		taskId,
		output,
		options: {},
	});

	it('refuses a task ID that is not a UUID without sending a request', async () => {
		const scope = nock(BASE_URL).get(/.*/).reply(200, {});
		const error = await failureOf(
			getStatus.call(createContext({ params: statusParams('INV-2024-17') }), [{ json: {} }]),
		);
		expect(error.message).toBe('"INV-2024-17" is not a task ID');
		expect(scope.isDone()).toBe(false);
	});

	it('passes the input binary on only with Include Input Binary', async () => {
		nock(BASE_URL)
			.get(`/task_status/${TASK}`)
			.twice()
			.reply(200, task('complete', { result: { total: 9 } }));
		const items = [binaryItem('pdf')];
		const plain = await getStatus.call(createContext({ params: statusParams(TASK), items }), items);
		expect(plain[0].json).toEqual({ total: 9 });
		expect(plain[0].binary).toBeUndefined();
		const kept = await getStatus.call(
			createContext({
				params: { ...statusParams(TASK), options: { includeInputBinary: true } },
				items,
			}),
			items,
		);
		expect(kept[0].binary?.data.fileName).toBe('invoice.pdf');
	});

	it('maps an unknown task to a 404 that names it', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(404, { detail: 'Task not found' });
		const error = await failureOf(
			getStatus.call(createContext({ params: statusParams(TASK) }), [{ json: {} }]),
		);
		expect(error.message).toContain('Not found (404): Task not found');
		expect(error.description).toContain(`task ${TASK}`);
	});

	it('outputs a task the service answers 404 for as a "not_found" item with Output Unknown Tasks as Items, next to the others', async () => {
		const OTHER = '1c9e6b7a-2d3f-4e5a-8b6c-7d8e9f0a1b2c';
		nock(BASE_URL)
			.get(`/task_status/${TASK}`)
			.reply(404, { detail: `Task '${TASK}' not found` });
		nock(BASE_URL)
			.get(`/task_status/${OTHER}`)
			.reply(200, task('complete', { result: { total: 9 } }));
		const ids = [TASK, OTHER];
		const items = ids.map((id) => ({ json: { id } }));
		const ctx = createContext({
			params: (name: string, i: number) =>
				({ ...statusParams(ids[i], 'full'), options: { outputNotFoundAsItems: true } })[
					name as keyof ReturnType<typeof statusParams>
				],
			items,
		});
		const out = await getStatus.call(ctx, items);
		expect(out.map((o) => o.json.status)).toEqual(['not_found', 'complete']);
		expect(out[0].json).toEqual({
			task_id: TASK,
			status: 'not_found',
			error: `Not found (404): Task '${TASK}' not found`,
		});
		expect(out[0].pairedItem).toEqual({ item: 0 });
	});

	it('still fails the item for other errors with Output Unknown Tasks as Items', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(401, { detail: 'Invalid or missing API key' });
		const error = await failureOf(
			getStatus.call(
				createContext({
					params: { ...statusParams(TASK), options: { outputNotFoundAsItems: true } },
				}),
				[{ json: {} }],
			),
		);
		expect(error.message).toContain('(401)');
	});

	it('gives the error item of a status request that fails, under Continue On Fail, the task_id it asked about', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(402, { detail: 'Subscription inactive' });
		const ctx = createContext({ params: statusParams(TASK), continueOnFail: true });
		const [item] = await getStatus.call(ctx, [{ json: {} }]);
		expect(item.json).toMatchObject({ task_id: TASK, kind: 'refused', httpCode: 402 });
		expect(item.pairedItem).toEqual({ item: 0 });
	});
});
