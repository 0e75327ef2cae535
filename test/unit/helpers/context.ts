/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { Readable } from 'node:stream';

import { httpRequest as n8nHttpRequest } from '@n8n/backend-network/testing';
import nock from 'nock';

import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { NodeRun } from '../../../nodes/DocumentExtraction/actions/common/itemRunner';
import { Pacer, pacerFor } from '../../../nodes/shared/transport/pacer';

type FetchBody = NonNullable<Parameters<typeof fetch>[1]>['body'];

export const BASE_URL = 'http://127.0.0.1:9';
export const API_KEY = 'vnd_unit_test_key';

export const node: INode = {
	id: 'node-1',
	name: 'Document Extraction',
	type: 'n8n-nodes-document-extraction.documentExtraction',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

type Extra = { extractValue?: boolean } | undefined;
/** A value as n8n's getNodeParameter returns it: a resource locator's value with extractValue. */
const locatorValue = (value: unknown, extra: Extra) =>
	extra?.extractValue && value && typeof value === 'object' && '__rl' in value
		? (value as IDataObject).value
		: value;

/** n8n's getNodeParameter on `value`; `rest`: [fallback, options], the fallback when missing. */
export function parameterValue(name: string, value: unknown, rest: unknown[]): unknown {
	if (value !== undefined) return locatorValue(value, rest[1] as Extra);
	if (rest.length) return rest[0];
	throw new Error(`Could not get parameter "${name}"`);
}

type Params = Record<string, unknown> | ((name: string, itemIndex: number) => unknown);

export interface ContextOptions {
	params: Params;
	items?: INodeExecutionData[];
	credentials?: IDataObject;
	continueOnFail?: boolean;
	signal?: AbortSignal;
	/** Binary stored outside memory (filesystem mode): binary id → bytes. */
	store?: Map<string, Buffer>;
	/** Where prepareBinaryData keeps what it is given: in the store (filesystem mode) or inline. */
	binaryMode?: 'filesystem' | 'default';
	/** The node type, e.g. …documentExtractionTool for the tool variant. */
	nodeType?: string;
	executionId?: string;
	mode?: string;
	/** getContext('node'): the same object for tries of one execution, a copy for a retry from the list. */
	nodeContext?: IDataObject;
}

/**
 * n8n's plain httpRequest for the service's requests (JSON, full response, status errors ignored
 * when asked), over fetch so that nock can answer and fail it: headers and abort signal included.
 */
export async function sendPlain(options: IHttpRequestOptions) {
	const headers = (options.headers ?? {}) as Record<string, string>;
	let body = options.body as unknown;
	if (body && typeof (body as Readable).pipe === 'function') {
		body = Buffer.concat(await (body as Readable).toArray());
	} else if (typeof body === 'object' && body !== null && !Buffer.isBuffer(body)) {
		body = JSON.stringify(body);
		headers['Content-Type'] ??= 'application/json';
	}
	const signals = [
		options.abortSignal as AbortSignal | undefined,
		options.timeout ? AbortSignal.timeout(options.timeout) : undefined,
	].filter((s): s is AbortSignal => s !== undefined);
	let response: Response;
	try {
		response = await fetch(options.url, {
			method: options.method ?? 'GET',
			headers,
			body: (body ?? undefined) as FetchBody,
			redirect: options.disableFollowRedirect ? 'manual' : 'follow',
			signal: signals.length ? AbortSignal.any(signals) : undefined,
		});
	} catch (error) {
		throw httpClientError(error as Error, options);
	}
	const text = await response.text();
	let parsed: unknown = text;
	try {
		parsed = text ? JSON.parse(text) : undefined;
	} catch {
		// not JSON: the text as it came
	}
	if (!options.ignoreHttpStatusErrors && response.status >= 400) {
		throw new Error(`Request failed with status code ${response.status}`);
	}
	return options.returnFullResponse
		? { statusCode: response.status, headers: Object.fromEntries(response.headers), body: parsed }
		: parsed;
}

/** The error n8n's HTTP client (axios) throws: a code (ECONNABORTED for a timeout), the request sent. */
export function httpClientError(error: Error, request: IHttpRequestOptions): Error {
	const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
	const timedOut = error.name === 'TimeoutError';
	const code = timedOut ? 'ECONNABORTED' : (cause?.code ?? (error as { code?: string }).code);
	const message = timedOut
		? `timeout of ${request.timeout}ms exceeded`
		: (cause?.message ?? error.message);
	return Object.assign(new Error(message), {
		name: 'AxiosError',
		code,
		isAxiosError: true,
		config: { url: request.url, method: request.method, headers: request.headers },
	});
}

/** An item with `content` in binary field `field` (a PDF named invoice.pdf unless `extra` says). */
export function binaryItem(
	content: Buffer | string,
	extra: Partial<IBinaryData> = {},
	field = 'data',
) {
	const data = Buffer.from(content).toString('base64');
	const binary = { data, mimeType: 'application/pdf', fileName: 'invoice.pdf', ...extra };
	return { json: {}, binary: { [field]: binary as IBinaryData } } as INodeExecutionData;
}

/** An item whose binary lives in the store, like n8n's filesystem binary mode. */
export function storedItem(store: Map<string, Buffer>, id: string, content: Buffer | string) {
	store.set(id, Buffer.isBuffer(content) ? content : Buffer.from(content));
	return binaryItem('', { id, data: 'filesystem-v2', fileName: `${id}.pdf` });
}

export function createContext(options: ContextOptions) {
	const items: INodeExecutionData[] = options.items ?? [{ json: {} }];
	const credentials = options.credentials ?? { apiKey: API_KEY, baseUrl: BASE_URL };
	const serviceUrl = String(credentials.baseUrl ?? BASE_URL)
		.trim()
		.replace(/\/+$/, '');
	const signal = options.signal ?? new AbortController().signal;
	const store = options.store ?? new Map<string, Buffer>();
	const param = (name: string, itemIndex: number) =>
		typeof options.params === 'function' ? options.params(name, itemIndex) : options.params[name];

	const thisNode = options.nodeType ? { ...node, type: options.nodeType } : node;
	const nodeContext = options.nodeContext ?? {};
	let stored = 0;
	return {
		getNode: () => thisNode,
		getExecutionId: () => options.executionId ?? '',
		getMode: () => options.mode ?? 'manual',
		getContext: () => nodeContext,
		getWorkflow: () => ({ id: 'workflow-1', name: 'Workflow', active: false }),
		getInputData: () => items,
		continueOnFail: () => options.continueOnFail === true,
		getExecutionCancelSignal: () => signal,
		getCredentials: async () => credentials,
		getNodeParameter: (name: string, itemIndex: number, ...rest: unknown[]) =>
			parameterValue(name, param(name, itemIndex), rest),
		helpers: {
			// requests to the service over fetch (sendPlain), which nock can fail reliably; others
			// through n8n's own request function
			httpRequest: async (request: IHttpRequestOptions) =>
				String(request.url).startsWith(serviceUrl)
					? await sendPlain(request)
					: await n8nHttpRequest(request as Parameters<typeof n8nHttpRequest>[0]),
			async prepareBinaryData(data: Buffer | Readable, fileName?: string, mimeType?: string) {
				const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(await data.toArray());
				const binary = { mimeType: mimeType ?? 'text/plain', fileName, data: '' } as IBinaryData;
				if (options.binaryMode === 'filesystem') {
					const id = `filesystem-v2:download-${++stored}`;
					store.set(id, bytes);
					return { ...binary, id, data: 'filesystem-v2', fileSize: String(bytes.length) };
				}
				return { ...binary, data: bytes.toString('base64') };
			},
			assertBinaryData(itemIndex: number, name: string): IBinaryData {
				const binary = items[itemIndex].binary?.[name];
				if (!binary) throw new NodeOperationError(node, `expects binary "${name}"`);
				return binary;
			},
			getBinaryMetadata: async (id: string) => ({
				fileName: `${id}.pdf`,
				mimeType: 'application/pdf',
				fileSize: store.get(id)!.length,
			}),
			async getBinaryStream(id: string, chunkSize = 64 * 1024) {
				const bytes = store.get(id)!;
				const count = Math.ceil(bytes.length / chunkSize);
				const chunk = (i: number) => bytes.subarray(i * chunkSize, (i + 1) * chunkSize);
				return Readable.from(Array.from({ length: count }, (_, i) => chunk(i)));
			},
		},
	} as unknown as IExecuteFunctions;
}

/** A load-options context whose Project field holds `project`. */
export function loadOptionsContext(project?: unknown, documentType?: string) {
	return {
		...createContext({ params: {} }),
		getCurrentNodeParameter: (name: string, extra: Extra) =>
			name === 'documentType' ? documentType : locatorValue(project, extra),
	} as unknown as ILoadOptionsFunctions;
}

/** The error a promise rejects with; fails the test when it resolves. */
export async function failureOf<E = NodeOperationError & NodeApiError>(
	promise: Promise<unknown>,
): Promise<E> {
	try {
		await promise;
	} catch (error) {
		return error as E;
	}
	throw new Error('expected a failure');
}

/** The service accepts every document (up to `times`) as task "task-<content>"; returns the contents. */
export function acceptEachDocument(times = 10): string[] {
	const received: string[] = [];
	nock(BASE_URL)
		.post('/process_file')
		.times(times)
		.reply((_uri, body) => {
			const content = Buffer.from((body as IDataObject).file_base64 as string, 'base64').toString();
			received.push(content);
			return [200, { task_id: `task-${content}` }];
		});
	return received;
}

/** No real network and no leftover mock in this file; afterwards nock leaves Node's http module. */
export function useOfflineNock(): void {
	beforeAll(() => nock.disableNetConnect());
	afterAll(() => {
		nock.enableNetConnect();
		nock.restore();
	});
	beforeEach(() => {
		nock.cleanAll();
		// every test starts from a fresh pace of the test credential
		Object.assign(pacerFor(BASE_URL, API_KEY), new Pacer(() => Date.now()));
	});
}

/** An operation as the tests call it, `op.call(ctx)`, on the run the node builds. */
export function asOperation(
	execute: (this: IExecuteFunctions, run: NodeRun) => Promise<INodeExecutionData[]>,
) {
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[]> {
		return await execute.call(this, new NodeRun(this));
	};
}
