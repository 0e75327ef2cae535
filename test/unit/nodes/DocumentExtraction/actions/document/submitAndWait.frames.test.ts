import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../../../../helpers/sleep').workflowWithFakeClock(),
);

import { useFakeClock } from '../../../../helpers/sleep';

import { execute } from '../../../../../../nodes/DocumentExtraction/actions/document/submitAndWait.operation';
import { asOperation, binaryItem, createContext } from '../../../../helpers/context';
import { documentParams, TASK, task } from '../../../../helpers/fixtures';

useFakeClock();

/** The product's frames of a stack, from the operation's execute to n8n's request helper. */
const productFrames = (stack: string) =>
	stack
		.split('\n')
		.filter((line) => /\/nodes\/(?:shared|DocumentExtraction)\//.test(line))
		.filter((line) => !line.includes('/test/'))
		.map((line) => line.trim().replace(/\(.*\/nodes\//, '(nodes/'));

describe('Submit and Wait: from execute() to the wire', () => {
	it("an upload reaches n8n's request helper in at most six frames of the product", async () => {
		const limit = Error.stackTraceLimit;
		Error.stackTraceLimit = 100;
		const params = documentParams('submitAndWait', {
			output: 'full',
			options: { pollInterval: 2 },
		});
		const ctx = createContext({ params, items: [binaryItem('pdf')] });
		let upload = '';
		ctx.helpers.httpRequest = (async (request: IHttpRequestOptions) => {
			if (request.method === 'POST') upload = new Error('at the request helper').stack ?? '';
			const body = request.method === 'POST' ? { task_id: TASK } : task('complete');
			return { statusCode: 200, headers: {}, body };
		}) as IExecuteFunctions['helpers']['httpRequest'];
		try {
			await asOperation(execute).call(ctx);
		} finally {
			Error.stackTraceLimit = limit;
		}
		const frames = productFrames(upload);
		expect(frames[0]).toMatch(/^at Object\.apiRequest /);
		expect(frames.at(-1)).toMatch(
			/^at Object\.execute \(nodes\/DocumentExtraction\/actions\/document\//,
		);
		expect(frames.length).toBeLessThanOrEqual(6);
	});
});
