import nock from 'nock';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

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

/** Get Status of `taskIds` (one per item), Result Only, with these options. */
function run(
	taskIds: string[],
	options: IDataObject = {},
	{ continueOnFail = false, items = taskIds.map((): INodeExecutionData => ({ json: {} })) } = {},
) {
	const params = (name: string, i: number) =>
		({
			resource: 'document',
			operation: 'getStatus',
			taskId: taskIds[i],
			output: 'result',
			options,
		})[name];
	return getStatus.call(createContext({ params, items, continueOnFail }));
}

describe('Get Status', () => {
	it('refuses a task ID that is not a UUID without sending a request', async () => {
		const scope = nock(BASE_URL).get(/.*/).reply(200, {});
		const error = await failureOf(run(['INV-2024-17']));
		expect(error.message).toBe('"INV-2024-17" is not a task ID');
		expect(scope.isDone()).toBe(false);
		nock.cleanAll();
	});

	it('outputs the result fields, and passes the input binary on only with Include Input Binary', async () => {
		nock(BASE_URL)
			.get(`/task_status/${TASK}`)
			.twice()
			.reply(200, task('complete', { result: { total: 9 } }));
		const items = [binaryItem('pdf')];
		const plain = await run([TASK], {}, { items });
		expect(plain).toEqual([{ json: { total: 9 }, pairedItem: { item: 0 } }]);
		const kept = await run([TASK], { includeInputBinary: true }, { items });
		expect(kept[0].binary?.data.fileName).toBe('invoice.pdf');
	});

	it('maps an unknown task to a 404 that names it', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(404, { detail: 'Task not found' });
		const error = await failureOf(run([TASK]));
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
		const out = await run([TASK, OTHER], { outputNotFoundAsItems: true });
		expect(out).toEqual([
			{
				json: {
					task_id: TASK,
					status: 'not_found',
					error: `Not found (404): Task '${TASK}' not found`,
				},
				pairedItem: { item: 0 },
			},
			{ json: { total: 9 }, pairedItem: { item: 1 } },
		]);
	});

	it('still fails the item for other errors with Output Unknown Tasks as Items', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(401, { detail: 'Invalid or missing API key' });
		const error = await failureOf(run([TASK], { outputNotFoundAsItems: true }));
		expect(error.message).toContain('(401)');
	});

	it('gives the error item of a status request that fails, under Continue On Fail, the task_id it asked about', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(402, { detail: 'Subscription inactive' });
		const [item] = await run([TASK], {}, { continueOnFail: true });
		expect(item.json).toMatchObject({ task_id: TASK, kind: 'refused', httpCode: 402 });
		expect(item.pairedItem).toEqual({ item: 0 });
	});
});
