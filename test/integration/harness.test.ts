/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/node-usable-as-tool, @n8n/community-nodes/require-node-api-error -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';

import nock from 'nock';
import type {
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError, sleep } from 'n8n-workflow';

import {
	binaryItem,
	chainWorkflow,
	disposeHarness,
	loadPackageTypes,
	MANUAL_TRIGGER_NODE_TYPE,
	runWorkflow,
	START_AND_FILES,
	type RunOptions,
} from '../../harness/engine';

// ---------------------------------------------------------------------------
// A tiny programmatic node and credential type, defined only for these tests
// ---------------------------------------------------------------------------

class UploadTestApi implements ICredentialType {
	name = 'uploadTestApi';
	displayName = 'Upload Test API';
	properties: ICredentialType['properties'] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: 'http://127.0.0.1:9' },
		{ displayName: 'Tenant', name: 'tenant', type: 'string', default: '' },
	];
	authenticate = {
		type: 'generic' as const,
		properties: {
			headers: { Authorization: '=Bearer {{$credentials.apiKey}}' },
			qs: { tenant: '={{$credentials.tenant || "none"}}' },
		},
	};
}

const UPLOADER_TYPE = 'n8n-nodes-harness-test.uploader';

/**
 * Reads each item's binary, POSTs it base64-encoded to {baseUrl}/v1/upload
 * and outputs the JSON response plus a small result file as binary.
 */
class Uploader implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Uploader',
		name: 'uploader',
		group: ['transform'],
		version: 1,
		description: 'Uploads binary data',
		defaults: { name: 'Uploader' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'uploadTestApi', required: true }],
		properties: [
			{
				displayName: 'Binary Property',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
			},
			{ displayName: 'Delay (ms)', name: 'delayMs', type: 'number', default: 0 },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		const credentials = await this.getCredentials<{ baseUrl: string }>('uploadTestApi');
		for (let i = 0; i < items.length; i++) {
			try {
				const delayMs = this.getNodeParameter('delayMs', i) as number;
				if (delayMs > 0) await sleep(delayMs, this.getExecutionCancelSignal());

				const property = this.getNodeParameter('binaryPropertyName', i) as string;
				const binary = this.helpers.assertBinaryData(i, property);
				const buffer = await this.helpers.getBinaryDataBuffer(i, property);
				let readVia = 'buffer';
				if (binary.id) {
					const stream: Readable = await this.helpers.getBinaryStream(binary.id);
					const chunks: Buffer[] = [];
					for await (const chunk of stream) chunks.push(chunk as Buffer);
					if (!Buffer.concat(chunks).equals(buffer)) {
						throw new NodeOperationError(this.getNode(), 'stream and buffer differ', {
							itemIndex: i,
						});
					}
					readVia = 'stream';
				}

				const response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'uploadTestApi',
					{
						method: 'POST',
						url: `${credentials.baseUrl}/v1/upload`,
						body: {
							fileName: binary.fileName,
							mimeType: binary.mimeType,
							content: buffer.toString('base64'),
						},
						json: true,
					},
				)) as IDataObject;

				const result = await this.helpers.prepareBinaryData(
					Buffer.from(JSON.stringify(response)),
					'result.json',
					'application/json',
				);
				out.push({ json: { ...response, readVia }, binary: { result }, pairedItem: { item: i } });
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				throw error;
			}
		}
		return [out];
	}
}

// ---------------------------------------------------------------------------
// Workflow builders
// ---------------------------------------------------------------------------

const API = 'http://127.0.0.1:9';

function uploadWorkflow(uploader: Partial<INode> = {}): RunOptions['workflow'] {
	return chainWorkflow([...START_AND_FILES, { name: 'Upload', type: UPLOADER_TYPE, ...uploader }]);
}

const baseOptions = (overrides: Partial<RunOptions> = {}): RunOptions => ({
	workflow: uploadWorkflow(),
	nodeTypes: { [UPLOADER_TYPE]: new Uploader() },
	credentialTypes: [new UploadTestApi()],
	credentials: { uploadTestApi: { apiKey: 'secret-key' } },
	inputItems: [
		binaryItem('%PDF-1.4 first', 'first.pdf', 'application/pdf', { n: 1 }),
		binaryItem('second file', 'second.txt', 'text/plain', { n: 2 }),
	],
	...overrides,
});

type UploadBody = { fileName: string; mimeType: string; content: string };

function mockUpload(status = 200) {
	const seen: Array<{ authorization?: string; tenant?: string; body: UploadBody }> = [];
	const scope = nock(API)
		.post('/v1/upload')
		.query(true)
		.times(2)
		.reply(function (uri, body) {
			const b = body as UploadBody;
			seen.push({
				authorization: this.req.headers.authorization as string | undefined,
				tenant: new URL(uri, API).searchParams.get('tenant') ?? undefined,
				body: b,
			});
			return status === 200
				? [
						200,
						{
							id: `task-${seen.length}`,
							received: b.fileName,
							size: Buffer.from(b.content, 'base64').length,
						},
					]
				: [status, { error: 'server exploded' }];
		});
	return { scope, seen };
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => {
	nock.enableNetConnect();
	// Later test files in this process share Node's http module: take nock out of it.
	nock.restore();
	disposeHarness();
});

// ---------------------------------------------------------------------------

describe.each(['default', 'filesystem'] as const)('binary mode "%s"', (binaryMode) => {
	it('runs the node through WorkflowExecute with real auth, HTTP and binary data', async () => {
		const { scope, seen } = mockUpload();
		const result = await runWorkflow(baseOptions({ binaryMode }));

		expect(result.run.status).toBe('success');
		expect(result.executionOrder).toEqual(['Start', 'Files', 'Upload']);
		expect(scope.isDone()).toBe(true);

		// Credential type's generic `authenticate` was applied by n8n's request helper.
		expect(seen.map((s) => s.authorization)).toEqual(['Bearer secret-key', 'Bearer secret-key']);
		expect(seen.map((s) => s.tenant)).toEqual(['none', 'none']);
		expect(seen.map((s) => Buffer.from(s.body.content, 'base64').toString())).toEqual([
			'%PDF-1.4 first',
			'second file',
		]);
		expect(seen[0].body).toMatchObject({ fileName: 'first.pdf', mimeType: 'application/pdf' });

		const output = result.outputOf('Upload');
		expect(output.map((i) => i.json)).toEqual([
			{
				id: 'task-1',
				received: 'first.pdf',
				size: 14,
				readVia: binaryMode === 'filesystem' ? 'stream' : 'buffer',
			},
			{
				id: 'task-2',
				received: 'second.txt',
				size: 11,
				readVia: binaryMode === 'filesystem' ? 'stream' : 'buffer',
			},
		]);
		expect(output.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(result.errorOf('Upload')).toBeUndefined();

		// Binary data produced by prepareBinaryData, in the selected storage mode.
		const inputBinary = result.outputOf('Files')[0].binary!.data;
		const resultBinary = output[1].binary!.result;
		expect(resultBinary).toMatchObject({ fileName: 'result.json', mimeType: 'application/json' });
		if (binaryMode === 'default') {
			expect(inputBinary.id).toBeUndefined();
			expect(Buffer.from(inputBinary.data, 'base64').toString()).toBe('%PDF-1.4 first');
			expect(resultBinary.id).toBeUndefined();
		} else {
			expect(inputBinary.data).toBe('filesystem-v2');
			expect(inputBinary.id).toMatch(/^filesystem-v2:workflows\/.+\/binary_data\//);
			const onDisk = path.join(result.storagePath, inputBinary.id!.replace(/^filesystem-v2:/, ''));
			expect(existsSync(onDisk)).toBe(true);
			expect(readFileSync(onDisk, 'utf8')).toBe('%PDF-1.4 first');
			expect(resultBinary.id).toMatch(/^filesystem-v2:/);
		}
		expect(JSON.parse((await result.binaryOf('Upload', 1, 'result')).toString())).toEqual({
			id: 'task-2',
			received: 'second.txt',
			size: 11,
		});
	});
});

describe('errors', () => {
	it('turns per-item failures into error items when the node continues on fail', async () => {
		const { seen } = mockUpload();
		const result = await runWorkflow(
			baseOptions({
				workflow: uploadWorkflow({ onError: 'continueRegularOutput' }),
				inputItems: [{ json: { n: 1 } }, binaryItem('ok', 'ok.txt', 'text/plain')],
			}),
		);

		expect(result.run.status).toBe('success');
		const output = result.outputOf('Upload');
		expect(output).toHaveLength(2);
		expect(output[0].json.error).toMatch(
			/expects the node's input data to contain a binary file 'data'/,
		);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[1].json).toMatchObject({ id: 'task-1', received: 'ok.txt' });
		expect(output[1].pairedItem).toEqual({ item: 1 });
		expect(seen).toHaveLength(1);
	});

	it('reports HTTP failures as error items with continueOnFail, and as a node error without', async () => {
		mockUpload(500);
		const tolerant = await runWorkflow(
			baseOptions({
				workflow: uploadWorkflow({ continueOnFail: true }),
				inputItems: [binaryItem('x', 'x.txt', 'text/plain')],
			}),
		);
		expect(tolerant.outputOf('Upload').map((i) => i.json.error)).toEqual([
			'The service was not able to process your request',
		]);

		mockUpload(500);
		const strict = await runWorkflow(
			baseOptions({ inputItems: [binaryItem('x', 'x.txt', 'text/plain')] }),
		);
		expect(strict.run.status).toBe('error');
		const error = strict.errorOf('Upload');
		expect(error).toBeDefined();
		expect(error!.name).toBe('NodeApiError');
		expect((error as unknown as { httpCode?: string }).httpCode).toBe('500');
		expect(strict.run.data.resultData.error?.message).toBe(error!.message);
		expect(() => strict.outputOf('Upload')).not.toThrow();
		expect(strict.outputOf('Upload')).toEqual([]);
	});

	it('explains a missing credential', async () => {
		const result = await runWorkflow(baseOptions({ credentials: {} }));
		expect(result.run.status).toBe('error');
		expect(result.errorOf('Upload')?.message).toBe('Node does not have any credentials set');
	});
});

describe('cancellation', () => {
	it('aborts a node sleeping on the execution cancel signal', async () => {
		const controller = new AbortController();
		const started = Date.now();
		let abortedAt = 0;
		const result = await runWorkflow(
			baseOptions({
				workflow: uploadWorkflow({ parameters: { delayMs: 10_000 } }),
				signal: controller.signal,
				onNodeStart: (name) => {
					if (name === 'Upload') {
						setTimeout(() => {
							abortedAt = Date.now();
							controller.abort();
						}, 50);
					}
				},
			}),
		);
		const finished = Date.now();

		expect(abortedAt).toBeGreaterThan(0);
		expect(finished - abortedAt).toBeLessThan(1000);
		expect(finished - started).toBeLessThan(5000);
		expect(result.canceled).toBe(true);
		// The node's sleep rejected with the engine's abort reason; the engine reports
		// the node failure (n8n's CLI would record the execution as canceled).
		expect(result.errorOf('Upload')).toBeDefined();
		expect(result.run.data.resultData.runData.Upload[0].executionStatus).not.toBe('success');
		expect(result.executionOrder).toEqual(['Start', 'Files']);
	});

	it('cancels before the first node when the signal is already aborted', async () => {
		const result = await runWorkflow(baseOptions({ signal: AbortSignal.abort() }));
		expect(result.canceled).toBe(true);
		expect(result.run.status).toBe('canceled');
		expect(result.run.data.resultData.error?.name).toBe('ManualExecutionCancelledError');
		expect(result.executionOrder).toEqual([]);
	});
});

describe('real HTTP', () => {
	let server: Server;
	let baseUrl: string;
	const requests: Array<{
		method?: string;
		url?: string;
		headers: IncomingHttpHeaders;
		body: string;
	}> = [];

	beforeAll(async () => {
		nock.enableNetConnect('127.0.0.1');
		server = createServer((req, res) => {
			let body = '';
			req.on('data', (c: Buffer) => (body += c.toString()));
			req.on('end', () => {
				requests.push({ method: req.method, url: req.url, headers: req.headers, body });
				res.setHeader('content-type', 'application/json');
				res.end(
					JSON.stringify({ echoed: new URL(req.url!, 'http://x').searchParams.get('message') }),
				);
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});

	afterAll(async () => {
		nock.disableNetConnect();
		await new Promise((resolve) => server.close(resolve));
	});

	it('sends the upload to a local server over a socket', async () => {
		const result = await runWorkflow(
			baseOptions({
				credentials: { uploadTestApi: { apiKey: 'k2', baseUrl, tenant: 'acme' } },
				inputItems: [binaryItem('abc', 'a.txt', 'text/plain')],
			}),
		);
		expect(result.run.status).toBe('success');
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ method: 'POST', url: '/v1/upload?tenant=acme' });
		expect(requests[0].headers.authorization).toBe('Bearer k2');
		expect(JSON.parse(requests[0].body)).toMatchObject({ fileName: 'a.txt', content: 'YWJj' });
	});

	it('runs nodes loaded from a compiled package (function authenticate)', async () => {
		requests.length = 0;
		const types = loadPackageTypes(path.join(__dirname, 'fixtures', 'sample-package'));
		const result = await runWorkflow({
			types,
			credentials: { echoApi: { apiKey: 'echo-key', baseUrl } },
			workflow: chainWorkflow([
				{ name: 'Start', type: MANUAL_TRIGGER_NODE_TYPE },
				{
					name: 'Echo',
					type: 'n8n-nodes-harness-fixture.echo',
					parameters: { message: '={{ "hi " + $json.who }}' },
				},
			]),
			inputItems: [{ json: { who: 'a' } }, { json: { who: 'b' } }],
		});
		expect(result.run.status).toBe('success');
		expect(result.outputOf('Echo')).toEqual([
			{ json: { echoed: 'hi a' }, pairedItem: { item: 0 } },
			{ json: { echoed: 'hi b' }, pairedItem: { item: 1 } },
		]);
		expect(requests.map((r) => r.headers['x-api-key'])).toEqual(['echo-key', 'echo-key']);
	});
});

describe('loadPackageTypes', () => {
	it('instantiates the classes listed in package.json "n8n"', () => {
		const { nodeTypes, credentialTypes } = loadPackageTypes(
			path.join(__dirname, 'fixtures', 'sample-package'),
		);
		expect(Object.keys(nodeTypes)).toEqual(['n8n-nodes-harness-fixture.echo']);
		expect(nodeTypes['n8n-nodes-harness-fixture.echo'].constructor.name).toBe('Echo');
		expect(Object.keys(credentialTypes)).toEqual(['echoApi']);
		expect(typeof credentialTypes.echoApi.authenticate).toBe('function');
	});

	it('names a listed file that does not exist', () => {
		expect(() =>
			loadPackageTypes(path.join(__dirname, 'fixtures', 'missing-file-package')),
		).toThrow(/node file "dist\/nodes\/Missing\/Missing\.node\.js".*does not exist/);
	});

	it('reads the repository package the same way', () => {
		const root = path.resolve(__dirname, '..', '..');
		const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
		const listed: string[] = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
		const missing = listed.find((p) => !existsSync(path.join(root, p)));
		if (missing) {
			expect(() => loadPackageTypes(root)).toThrow(missing);
		} else {
			const { nodeTypes, credentialTypes } = loadPackageTypes(root);
			expect(Object.keys(nodeTypes).length).toBe(pkg.n8n.nodes.length);
			expect(Object.keys(credentialTypes).length).toBe(pkg.n8n.credentials.length);
		}
	});
});
