import nock from 'nock';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../../../../helpers/sleep').workflowWithFakeClock(),
);

import { useFakeClock } from '../../../../helpers/sleep';

import { execute as submitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submit.operation';
import { execute as submitAndWaitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submitAndWait.operation';
import {
	acceptEachDocument,
	asOperation,
	BASE_URL,
	binaryItem,
	createContext,
	failureOf,
	useOfflineNock,
} from '../../../../helpers/context';
import { documentParams, TASK, task } from '../../../../helpers/fixtures';

const submit = asOperation(submitExecute);
const submitAndWait = asOperation(submitAndWaitExecute);

const params = (options: IDataObject = {}, operation = 'submitAndWait') =>
	documentParams(operation, { output: 'full', options: { pollInterval: 2, ...options } });

useOfflineNock();
useFakeClock();
afterEach(() => {
	expect(nock.pendingMocks()).toEqual([]);
});

describe('fail-fast without Continue On Fail', () => {
	function tenItems(badIndex: number): INodeExecutionData[] {
		return Array.from({ length: 10 }, (_, index) =>
			index === badIndex ? { json: {} } : binaryItem(`doc-${index}`),
		);
	}

	it('submits nothing after the first failure and names the task already sent', async () => {
		const sent = acceptEachDocument();
		const items = tenItems(1);
		const error = await failureOf(
			submit.call(createContext({ params: params({ maxConcurrency: 1 }, 'submit'), items }), items),
		);
		nock.cleanAll();
		expect(error.message).toBe('No binary field "data" on item 1');
		expect((error as unknown as { context: object }).context).toMatchObject({
			itemIndex: 1,
			kind: 'invalid_input',
		});
		expect(sent).toEqual(['doc-0']);
		expect(error.description).toContain('item 0: task-doc-0');
		expect(error.description).toContain('8 items were not submitted');
	});

	it('lets the items already sent finish before failing, with Submit and Wait', async () => {
		nock(BASE_URL).post('/process_file').reply(200, { task_id: TASK });
		nock(BASE_URL).get(`/task_status/${TASK}`).reply(200, task('complete'));
		const items = [binaryItem('doc-0'), { json: {} }, binaryItem('doc-2')];
		const error = await failureOf(
			submitAndWait.call(createContext({ params: params({ maxConcurrency: 1 }), items }), items),
		);
		expect(error.message).toBe('No binary field "data" on item 1');
		expect(error.description).toContain(`item 0: ${TASK}`);
		expect(error.description).toContain('1 item was not submitted');
	});
});
