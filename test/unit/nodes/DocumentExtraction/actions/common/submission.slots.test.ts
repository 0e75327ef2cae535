import nock from 'nock';

import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { execute as submitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submit.operation';
import { execute as submitAndWaitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submitAndWait.operation';
import {
	asOperation,
	BASE_URL,
	binaryItem,
	createContext,
	useOfflineNock,
} from '../../../../helpers/context';
import { documentParams, task } from '../../../../helpers/fixtures';

const submit = asOperation(submitExecute);
const submitAndWait = asOperation(submitAndWaitExecute);

/**
 * Max Concurrent Requests bounds every request the node makes, downloads included, and status
 * checks are not starved by uploads waiting for a slot.
 */

useOfflineNock();
afterEach(() => expect(nock.pendingMocks()).toEqual([]));

const FILE_HOST = 'http://files.example.test';
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2048, 1)]);
const taskId = (n: number) => `0b8f2f9e-4a8c-4d1e-9f3a-${String(n).padStart(12, '0')}`;

/** Counts the requests of `ctx` in flight (service and downloads together), and the most at once. */
function countInFlight(ctx: IExecuteFunctions) {
	const counts = { inFlight: 0, max: 0, downloads: 0, maxDownloads: 0 };
	const wrap = <F extends (...args: never[]) => Promise<unknown>>(send: F) =>
		(async (...args: Parameters<F>) => {
			// Downloads go to the file host; requests to the service, to its Base URL.
			const download = String((args[0] as { url?: string })?.url).startsWith(FILE_HOST);
			counts.inFlight++;
			counts.max = Math.max(counts.max, counts.inFlight);
			if (download) {
				counts.downloads++;
				counts.maxDownloads = Math.max(counts.maxDownloads, counts.downloads);
			}
			let open = false;
			const done = () => {
				counts.inFlight--;
				if (download) counts.downloads--;
			};
			try {
				const response = (await send.apply(ctx, args)) as IDataObject;
				// A download is open until its body has been read into the binary store.
				const body = response?.body as NodeJS.ReadableStream | undefined;
				if (download && body && typeof body.once === 'function') {
					open = true;
					let closed = false;
					const close = () => {
						if (!closed) done();
						closed = true;
					};
					body.once('end', close);
					body.once('close', close);
					body.once('error', close);
				}
				return response;
			} finally {
				if (!open) done();
			}
		}) as unknown as F;
	ctx.helpers.httpRequest = wrap(ctx.helpers.httpRequest);
	return counts;
}

describe('one limit for every request', () => {
	it('with 12 URL items and a limit of 2, never has more than 2 requests or downloads open', async () => {
		const n = 12;
		nock(FILE_HOST)
			.get(/\/doc-\d+\.pdf/)
			.times(n)
			.delay(50)
			.reply(200, PDF, {
				'Content-Type': 'application/pdf',
			});
		let next = 0;
		nock(BASE_URL)
			.post('/process_file')
			.times(n)
			.delay(30)
			.reply(200, () => ({ task_id: taskId(next++) }));
		const items: INodeExecutionData[] = Array.from({ length: n }, () => ({ json: {} }));
		const params = (name: string, itemIndex: number) =>
			(
				({
					...documentParams('submit', { options: { maxConcurrency: 2 } }),
					inputSource: 'url',
					documentUrl: `${FILE_HOST}/doc-${itemIndex}.pdf`,
				}) as Record<string, unknown>
			)[name];
		const ctx = createContext({ params, items });
		const counts = countInFlight(ctx);
		const out = await submit.call(ctx, items);
		expect(out).toHaveLength(n);
		expect(out.every((o) => typeof o.json.task_id === 'string')).toBe(true);
		expect(counts.maxDownloads).toBeLessThanOrEqual(2);
		expect(counts.max).toBeLessThanOrEqual(2);
	});

	it('an item whose Max Wait runs out while it waits for a request slot is not sent, and says why', async () => {
		// one slot, uploads of 400 ms, Max Wait 1 s: the third item cannot start in its time
		let next = 0;
		nock(BASE_URL)
			.post('/process_file')
			.times(2)
			.delay(400)
			.reply(200, () => ({ task_id: taskId(next++) }));
		// whether the first items get a status check in their time depends on the clock
		nock(BASE_URL)
			.get(/\/task_status\//)
			.optionally()
			.times(2)
			.reply(200, (uri) => ({ ...task('complete'), task_id: uri.split('/').pop() }));
		const items = Array.from({ length: 3 }, (_, i) => binaryItem(`doc ${i}`));
		const ctx = createContext({
			params: documentParams('submitAndWait', {
				output: 'full',
				options: { maxConcurrency: 1, maxWait: 1, pollInterval: 1 },
			}),
			items,
			continueOnFail: true,
		});
		const out = await submitAndWait.call(ctx, items);
		expect(out[2].json).toMatchObject({ kind: 'out_of_time' });
		expect(out[2].json.error).toMatch(/all 1 request slots stayed busy/);
		expect(out[2].json.task_id).toBeUndefined();
	});
});
