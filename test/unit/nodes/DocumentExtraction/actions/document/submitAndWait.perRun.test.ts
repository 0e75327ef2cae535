import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { execute as submitAndWaitExecute } from '../../../../../../nodes/DocumentExtraction/actions/document/submitAndWait.operation';
import { asOperation, binaryItem, createContext } from '../../../../helpers/context';
import { documentParams, task } from '../../../../helpers/fixtures';

const submitAndWait = asOperation(submitAndWaitExecute);

const taskId = (n: number) => `0b8f2f9e-4a8c-4d1e-9f3a-${String(n).padStart(12, '0')}`;

/**
 * Submit and Wait over `count` documents, 2 request slots: each task is queued at its first
 * status request and complete at the second, so every item waits for a slot and for two polls.
 */
async function run(count: number, signal: AbortSignal) {
	const items = Array.from({ length: count }, (_, i) => binaryItem(`pdf ${i}`));
	const ctx = createContext({
		params: documentParams('submitAndWait', {
			output: 'full',
			options: { pollInterval: 1, maxConcurrency: 2 },
		}),
		items,
		signal,
	});
	const reads = { getCredentials: 0, authenticatedRequests: 0, requests: 0 };
	const polls = new Map<string, number>();
	let uploads = 0;
	const read = ctx.getCredentials.bind(ctx);
	const counted = ctx as unknown as IDataObject & { helpers: IDataObject };
	counted.getCredentials = async (...args: Parameters<IExecuteFunctions['getCredentials']>) => {
		reads.getCredentials++;
		return await read(...args);
	};
	const answer = async (request: IHttpRequestOptions) => {
		reads.requests++;
		const url = String(request.url);
		if (request.method === 'POST' && url.endsWith('/process_file')) {
			return { statusCode: 200, headers: {}, body: { task_id: taskId(uploads++) } };
		}
		const id = url.slice(url.lastIndexOf('/') + 1);
		const seen = (polls.get(id) ?? 0) + 1;
		polls.set(id, seen);
		const status = seen === 1 ? 'queued' : 'complete';
		return { statusCode: 200, headers: {}, body: task(status, { task_id: id }) };
	};
	counted.helpers.httpRequest = answer;
	// n8n's authenticated helper reads and decrypts the credential for every request it sends.
	counted.helpers.httpRequestWithAuthentication = async (
		_type: string,
		request: IHttpRequestOptions,
	) => {
		reads.authenticatedRequests++;
		return await answer(request);
	};
	const out = await submitAndWait.call(ctx, items);
	return { out, reads };
}

/** An execution cancel signal that counts the abort listeners added to it, and the most at once. */
function countingSignal() {
	const signal = new AbortController().signal;
	const counts = { added: 0, most: 0 };
	const add = signal.addEventListener.bind(signal);
	const remove = signal.removeEventListener.bind(signal);
	const listeners = new Set<unknown>();
	signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
		if (args[0] === 'abort') {
			counts.added++;
			listeners.add(args[1]);
			counts.most = Math.max(counts.most, listeners.size);
		}
		add(...args);
	}) as AbortSignal['addEventListener'];
	signal.removeEventListener = ((...args: Parameters<AbortSignal['removeEventListener']>) => {
		if (args[0] === 'abort') listeners.delete(args[1]);
		remove(...args);
	}) as AbortSignal['removeEventListener'];
	return { signal, counts };
}

describe('Submit and Wait: costs per run, not per request', () => {
	it('reads the credential once, and adds a bounded number of listeners to the cancel signal, however many items wait', async () => {
		const small = countingSignal();
		await run(5, small.signal);
		const large = countingSignal();
		const { out, reads } = await run(40, large.signal);
		expect(out.map((item) => (item.json as IDataObject).status)).toEqual(
			Array(40).fill('complete'),
		);
		// 40 uploads and 80 status requests, 120 waits for 2 request slots and for polls
		expect(reads).toEqual({ getCredentials: 1, authenticatedRequests: 0, requests: 120 });
		expect(large.counts.added).toBe(small.counts.added);
		expect(large.counts.most).toBeLessThanOrEqual(2);
	});
});
