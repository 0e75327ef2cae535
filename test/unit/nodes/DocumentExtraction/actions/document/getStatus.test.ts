import nock from 'nock';

import { execute as getStatus } from '../../../../../../nodes/DocumentExtraction/actions/document/getStatus.operation';
import { BASE_URL, createContext, failureOf, useOfflineNock } from '../../../../helpers/context';
import { TASK, task } from '../../../../helpers/fixtures';

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

	it('returns the result fields of a complete task, or the whole task', async () => {
		nock(BASE_URL)
			.get(`/task_status/${TASK}`)
			.twice()
			.reply(200, task('complete', { result: { total: 9 } }));
		const result = await getStatus.call(createContext({ params: statusParams(TASK) }), [
			{ json: {} },
		]);
		expect(result[0].json).toEqual({ total: 9 });
		const full = await getStatus.call(createContext({ params: statusParams(TASK, 'full') }), [
			{ json: {} },
		]);
		expect(full[0].json).toMatchObject({ task_id: TASK, status: 'complete', result: { total: 9 } });
	});

	it('returns a running task whole even in Result Only mode', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, task('processing'));
		const out = await getStatus.call(createContext({ params: statusParams(TASK) }), [{ json: {} }]);
		expect(out[0].json).toMatchObject({ task_id: TASK, status: 'processing' });
	});

	it('maps an unknown task to a 404 that names it', async () => {
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(404, { detail: 'Task not found' });
		const error = await failureOf(
			getStatus.call(createContext({ params: statusParams(TASK) }), [{ json: {} }]),
		);
		expect(error.message).toContain('Not found (404): Task not found');
		expect(error.description).toContain(`task ${TASK}`);
	});
});
