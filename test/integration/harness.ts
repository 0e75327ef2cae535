/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/node-usable-as-tool, @n8n/community-nodes/require-node-api-error, @typescript-eslint/no-require-imports, no-console -- test code: runs under jest on Node, is never shipped or loaded by n8n */
/**
 * Integration harness: runs real n8n workflow JSON through n8n-core's own
 * execution engine (`WorkflowExecute`), with a real credentials helper, real
 * outbound HTTP and n8n-core's `BinaryDataService` in either `default`
 * (in-memory base64) or `filesystem` (files on disk) mode.
 *
 * Nodes and credentials are loaded the way n8n loads a community package (see
 * `loadPackageTypes`), or passed in directly (`nodeTypes` / `credentialTypes`).
 *
 * Runs are serialised: n8n-core resolves its services (binary data, logger,
 * instance settings, ...) from one process-wide DI container, so two runs with
 * different binary modes must not overlap.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
	BinaryDataService,
	BinaryDataConfig,
	ErrorReporter,
	ExecutionLifecycleHooks,
	ExternalSecretsProxy,
	InstanceSettings,
	WorkflowExecute,
	getAdditionalKeys,
} from 'n8n-core';
import type {
	ExecutionError,
	IBinaryData,
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentialsExpressionResolveValues,
	IConnections,
	IDataObject,
	IExecuteData,
	IExecuteFunctions,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	ITaskData,
	ITaskDataConnections,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	Logger as LoggerInterface,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	ICredentials,
	ICredentialsHelper,
	LoggerProxy,
	NodeConnectionTypes,
	NodeHelpers,
	UnexpectedError,
	Workflow,
	createRunExecutionData,
	deepCopy,
	isExpression,
	jsonParse,
} from 'n8n-workflow';

// ---------------------------------------------------------------------------
// n8n-core's own copies of its internal dependencies
// ---------------------------------------------------------------------------

/**
 * n8n-core ships its own nested `@n8n/di` and `@n8n/backend-common` (newer
 * than the copies hoisted to the top-level node_modules by other dev tools).
 * Services must be registered in the container instance n8n-core itself
 * resolves from, so load these relative to n8n-core, through the regular
 * `require` (which keeps one module instance under jest as well).
 */
type Constructor<T> = abstract new (...args: never[]) => T;
interface DiContainer {
	get<T>(type: Constructor<T>): T;
	set<T>(type: Constructor<T>, instance: T): void;
	has(type: Constructor<unknown>): boolean;
}

const coreDir = path.dirname(require.resolve('n8n-core/package.json'));
function requireFromCore<T>(moduleName: string): T {
	return require(require.resolve(moduleName, { paths: [coreDir] })) as T;
}
const { Container } = requireFromCore<{ Container: DiContainer }>('@n8n/di');
const { Logger: CoreLogger } = requireFromCore<{ Logger: Constructor<LoggerInterface> }>(
	'@n8n/backend-common',
);

// ---------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------

export type BinaryMode = 'default' | 'filesystem';

export type NodeTypeMap = Record<string, INodeType | IVersionedNodeType>;
export type CredentialTypeMap = Record<string, ICredentialType>;

export interface LoadedTypes {
	/** Keyed by full node type name, e.g. `n8n-nodes-document-extraction.documentExtraction`. */
	nodeTypes: NodeTypeMap;
	/** Keyed by credential type name, e.g. `documentExtractionApi`. */
	credentialTypes: CredentialTypeMap;
}

export interface WorkflowJson {
	nodes: INode[];
	connections: IConnections;
	settings?: IWorkflowSettings;
	name?: string;
	id?: string;
}

export interface RunOptions {
	/** n8n workflow JSON (as exported from the editor). */
	workflow: WorkflowJson;
	/** Node / credential types available to the run (e.g. from `loadPackageTypes`). Harness helper nodes are always added. */
	types?: Partial<LoadedTypes>;
	/** Extra node types keyed by full type name (merged over `types.nodeTypes`). */
	nodeTypes?: NodeTypeMap;
	/** Extra credential types keyed by name (merged over `types.credentialTypes`). */
	credentialTypes?: ICredentialType[] | CredentialTypeMap;
	/**
	 * Decrypted credential data keyed by credential type name, e.g.
	 * `{ documentExtractionApi: { apiKey, baseUrl } }`. Nodes whose type declares
	 * one of these credential types and has none set get it assigned automatically.
	 */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** n8n binary data mode: `default` = inline base64, `filesystem` = files under a temp dir. Default: `default`. */
	binaryMode?: BinaryMode;
	/** Items fed to the start node (a webhook trigger or the harness start/source nodes pass them on). */
	inputItems?: INodeExecutionData[];
	/** Name of the node to start from. Default: the first node without incoming connections. */
	startNode?: string;
	/** Workflow execute mode. Default: `manual`. */
	mode?: WorkflowExecuteMode;
	/** Aborting it cancels the execution the way n8n's "stop" does (cancels the engine's PCancelable). */
	signal?: AbortSignal;
	/** Called as nodes start / finish (useful to time cancellation). */
	onNodeStart?: (nodeName: string) => void;
	onNodeEnd?: (nodeName: string, taskData: ITaskData) => void;
}

export interface RunResult {
	run: IRun;
	/** Node names in the order they finished. */
	executionOrder: string[];
	/**
	 * True when the run was cancelled through `signal`. n8n's CLI records such an
	 * execution as canceled; the engine's own `run.status` is `canceled` only when
	 * no node failed first (a node aborted mid-request/sleep reports `error`).
	 */
	canceled: boolean;
	/** Binary storage path of this run (files live here in `filesystem` mode). */
	storagePath: string;
	/** Output items of a node (throws if the node did not run). */
	outputOf(nodeName: string, outputIndex?: number, runIndex?: number): INodeExecutionData[];
	/** Error a node failed with (undefined if it succeeded or did not run). */
	errorOf(nodeName: string, runIndex?: number): ExecutionError | undefined;
	/** Reads a binary property of an output item back through n8n-core's BinaryDataService. */
	binaryOf(nodeName: string, itemIndex?: number, propertyName?: string): Promise<Buffer>;
}

// ---------------------------------------------------------------------------
// Helper node types (n8n-core-like)
// ---------------------------------------------------------------------------

export const HARNESS_START_NODE_TYPE = 'harness.start';
export const HARNESS_SOURCE_NODE_TYPE = 'harness.source';
/** Registered under n8n's own type name too, so workflows exported from n8n run unchanged. */
export const MANUAL_TRIGGER_NODE_TYPE = 'n8n-nodes-base.manualTrigger';

/** Manual-trigger-like start node: emits its input items (the run's `inputItems`) or a single empty item. */
export class HarnessStart implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Manual Trigger (harness)',
		name: 'start',
		group: ['trigger'],
		version: 1,
		description: 'Starts the workflow with the items given to the run',
		defaults: { name: 'Start' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		return [items.length > 0 ? items : [{ json: {} }]];
	}
}

/**
 * Emits given items, storing their binary data through
 * `helpers.prepareBinaryData` so it lands in the active binary data mode
 * (inline base64 or a file on disk). Items come from the `items` parameter
 * (JSON array) when set, otherwise from its input.
 */
export class HarnessSource implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Source (harness)',
		name: 'source',
		group: ['transform'],
		version: 1,
		description: 'Emits given items, with binary data stored in the active binary mode',
		defaults: { name: 'Source' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{
				displayName: 'Items (JSON)',
				name: 'items',
				type: 'string',
				default: '',
				description: 'JSON array of n8n items; binary entries carry base64 in "data"',
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0, '') as string;
		const fromParameter = raw !== '';
		const items: INodeExecutionData[] = fromParameter
			? jsonParse<INodeExecutionData[]>(raw, {
					errorMessage: 'Parameter "items" is not a valid JSON array of items',
				})
			: this.getInputData();

		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const item = items[i];
			const binary: Record<string, IBinaryData> = {};
			for (const [key, data] of Object.entries(item.binary ?? {})) {
				binary[key] = data.id
					? data
					: await this.helpers.prepareBinaryData(
							Buffer.from(data.data, 'base64'),
							data.fileName,
							data.mimeType,
						);
			}
			out.push({
				json: item.json ?? {},
				...(item.binary ? { binary } : {}),
				pairedItem: fromParameter ? { item: 0 } : { item: i },
			});
		}
		return [out];
	}
}

export function harnessNodeTypes(): NodeTypeMap {
	const start = new HarnessStart();
	return {
		[HARNESS_START_NODE_TYPE]: start,
		[MANUAL_TRIGGER_NODE_TYPE]: start,
		[HARNESS_SOURCE_NODE_TYPE]: new HarnessSource(),
	};
}

/**
 * A workflow of the given nodes connected one after the other (main output to main input), laid
 * out left to right. Each node is typeVersion 1 with no parameters unless it says otherwise.
 */
export function chainWorkflow(
	nodes: Array<Pick<INode, 'name' | 'type'> & Partial<INode>>,
): WorkflowJson {
	const connections: IConnections = {};
	nodes.slice(1).forEach((node, i) => {
		connections[nodes[i].name] = {
			main: [[{ node: node.name, type: NodeConnectionTypes.Main, index: 0 }]],
		};
	});
	return {
		nodes: nodes.map((node, i) => ({
			id: String(i + 1),
			typeVersion: 1,
			position: [200 * i, 0],
			parameters: {},
			...node,
		})),
		connections,
	};
}

/** The start of most test workflows: Manual trigger → Files (stores its input items' binary in the active binary mode). */
export const START_AND_FILES = [
	{ name: 'Start', type: MANUAL_TRIGGER_NODE_TYPE },
	{ name: 'Files', type: HARNESS_SOURCE_NODE_TYPE },
] as const;

/** Builds an input item carrying one binary property (inline base64, as n8n would before storage). */
export function binaryItem(
	content: Buffer | string,
	fileName: string,
	mimeType: string,
	json: IDataObject = {},
	propertyName = 'data',
): INodeExecutionData {
	const buffer = typeof content === 'string' ? Buffer.from(content) : content;
	return {
		json,
		binary: {
			[propertyName]: {
				data: buffer.toString('base64'),
				mimeType,
				fileName,
				fileExtension: path.extname(fileName).replace(/^\./, '') || undefined,
			},
		},
	};
}

// ---------------------------------------------------------------------------
// Loading a compiled community package
// ---------------------------------------------------------------------------

interface PackageJson {
	name?: string;
	n8n?: { nodes?: string[]; credentials?: string[] };
}

function loadExportedClass<T>(
	packageRoot: string,
	relPath: string,
	suffix: RegExp,
	kind: string,
): T {
	const filePath = path.resolve(packageRoot, relPath);
	if (!existsSync(filePath)) {
		throw new Error(
			`loadPackageTypes: ${kind} file "${relPath}" listed in ${path.join(packageRoot, 'package.json')} does not exist (${filePath}). Build the package first.`,
		);
	}
	const className = path.basename(filePath).replace(suffix, '');
	const mod = require(filePath) as Record<string, unknown>;
	const Exported = mod[className];
	if (typeof Exported !== 'function') {
		throw new Error(
			`loadPackageTypes: ${kind} file "${relPath}" does not export a class named "${className}" (exports: ${Object.keys(mod).join(', ') || 'none'})`,
		);
	}
	return new (Exported as new () => T)();
}

/**
 * Loads a compiled community node package the way n8n does: reads the `n8n`
 * section of its package.json and instantiates, from each listed file, the
 * exported class named after the file (`dist/nodes/Foo/Foo.node.js` → `Foo`).
 * Node types are keyed `<package name>.<description.name>`, credential types by name.
 */
export function loadPackageTypes(packageRoot: string): LoadedTypes {
	const pkgPath = path.join(packageRoot, 'package.json');
	if (!existsSync(pkgPath)) {
		throw new Error(`loadPackageTypes: no package.json in ${packageRoot}`);
	}
	const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as PackageJson;
	if (!pkg.name) throw new Error(`loadPackageTypes: ${pkgPath} has no "name"`);
	if (!pkg.n8n) throw new Error(`loadPackageTypes: ${pkgPath} has no "n8n" section`);

	const nodeTypes: NodeTypeMap = {};
	for (const relPath of pkg.n8n.nodes ?? []) {
		const nodeType = loadExportedClass<INodeType | IVersionedNodeType>(
			packageRoot,
			relPath,
			/\.node\.js$/,
			'node',
		);
		nodeTypes[`${pkg.name}.${nodeType.description.name}`] = nodeType;
	}

	const credentialTypes: CredentialTypeMap = {};
	for (const relPath of pkg.n8n.credentials ?? []) {
		const credentialType = loadExportedClass<ICredentialType>(
			packageRoot,
			relPath,
			/\.credentials\.js$/,
			'credential',
		);
		credentialTypes[credentialType.name] = credentialType;
	}
	return { nodeTypes, credentialTypes };
}

// ---------------------------------------------------------------------------
// Node types registry
// ---------------------------------------------------------------------------

export class HarnessNodeTypes implements INodeTypes {
	constructor(private readonly types: NodeTypeMap) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types[nodeType];
		if (!type) {
			throw new UnexpectedError(
				`Unknown node type "${nodeType}" (known: ${Object.keys(this.types).join(', ')})`,
			);
		}
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return Object.fromEntries(Object.keys(this.types).map((name) => [name, { className: name }]));
	}
}

// ---------------------------------------------------------------------------
// Credentials helper
// ---------------------------------------------------------------------------

class InMemoryCredentials extends ICredentials {
	constructor(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		private store: ICredentialDataDecryptedObject,
	) {
		super(nodeCredentials, type);
	}

	async getData(): Promise<ICredentialDataDecryptedObject> {
		return deepCopy(this.store);
	}

	getDataToSave() {
		return { id: this.id, name: this.name, type: this.type, data: JSON.stringify(this.store) };
	}

	async setData(data: ICredentialDataDecryptedObject): Promise<void> {
		this.store = { ...data };
	}

	async updateData(
		toUpdate: Partial<ICredentialDataDecryptedObject>,
		toDelete: string[] = [],
	): Promise<void> {
		const next = { ...this.store, ...toUpdate } as ICredentialDataDecryptedObject;
		for (const key of toDelete) delete next[key];
		this.store = next;
	}
}

const CREDENTIAL_MOCK_NODE: INode = {
	id: 'credential-resolution',
	name: '',
	type: 'mock',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/**
 * In-memory counterpart of n8n's CLI `CredentialsHelper`: credentials data is
 * held per credential type instead of in the database; defaults, expression
 * resolution, `authenticate` (function or generic) and `preAuthentication`
 * follow n8n's implementation.
 */
export class HarnessCredentialsHelper extends ICredentialsHelper {
	/** Credential data after the run (e.g. after a preAuthentication token refresh). */
	readonly store: Record<string, ICredentialDataDecryptedObject>;

	constructor(
		private readonly credentialTypes: CredentialTypeMap,
		credentials: Record<string, ICredentialDataDecryptedObject> = {},
	) {
		super();
		this.store = deepCopy(credentials);
	}

	private getType(typeName: string): ICredentialType {
		const type = this.credentialTypes[typeName];
		if (!type) {
			throw new UnexpectedError(
				`Unknown credential type "${typeName}" (known: ${Object.keys(this.credentialTypes).join(', ')})`,
			);
		}
		return type;
	}

	getParentTypes(typeName: string): string[] {
		const parents = this.credentialTypes[typeName]?.extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions as IHttpRequestOptions;
		const { authenticate } = this.getType(typeName);
		if (!authenticate) return requestOptions;

		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions);
		}

		if (authenticate.type === 'generic') {
			if (!workflow || !node) {
				throw new UnexpectedError(
					'Workflow and node are required for declarative credential authentication',
				);
			}
			if (requestOptions.headers === undefined) requestOptions.headers = {};
			const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
			for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
				for (const [key, value] of Object.entries(outerValue as Record<string, string>)) {
					const keyResolved = this.resolveValue(key, credentials, workflow, node);
					const valueResolved = this.resolveValue(value, credentials, workflow, node);
					if (!target[outerKey]) target[outerKey] = {};
					target[outerKey][keyResolved] = valueResolved;
				}
			}
		}
		return requestOptions;
	}

	private resolveValue(
		value: string,
		credentials: ICredentialDataDecryptedObject,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(value)) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			{ $credentials: credentials },
			undefined,
			'',
		);
		return resolved ? resolved.toString() : '';
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.getType(typeName);
		const expirable = credentialType.properties.find(
			(p) => p.type === 'hidden' && p.typeOptions?.expirable === true,
		);
		if (expirable?.name === undefined || typeof credentialType.preAuthentication !== 'function') {
			return undefined;
		}
		if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;

		const output = (await credentialType.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
		if (output[expirable.name] === undefined) return undefined;
		if (node.credentials) {
			await this.updateCredentials(node.credentials[typeName], typeName, {
				...credentials,
				...output,
			});
		}
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const { preAuthentication } = this.getType(typeName);
		if (typeof preAuthentication !== 'function') return undefined;
		const output = await preAuthentication.call(helpers, credentials);
		return (output as ICredentialDataDecryptedObject) ?? undefined;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		return new InMemoryCredentials(nodeCredentials, type, this.getStored(type));
	}

	private getStored(type: string): ICredentialDataDecryptedObject {
		const data = this.store[type];
		if (!data) {
			throw new UnexpectedError(`No credentials of type "${type}" were given to runWorkflow()`);
		}
		return data;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const original = deepCopy(this.getStored(type));
		if (raw === true) return original;

		let data = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			original as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (original.oauthTokenData !== undefined) data.oauthTokenData = original.oauthTokenData;

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			try {
				data = expressionResolveValues.workflow.expression.getParameterValue(
					data as INodeParameters,
					expressionResolveValues.runExecutionData,
					expressionResolveValues.runIndex,
					expressionResolveValues.itemIndex,
					expressionResolveValues.node.name,
					expressionResolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					data,
				) as ICredentialDataDecryptedObject;
			} catch (e) {
				(e as Error).message += ' [Error resolving credentials]';
				throw e;
			}
		} else {
			const workflow = new Workflow({
				nodes: [CREDENTIAL_MOCK_NODE],
				connections: {},
				active: false,
				nodeTypes: new HarnessNodeTypes({}),
			});
			data = workflow.expression.getComplexParameterValue(
				CREDENTIAL_MOCK_NODE,
				data as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				data,
			) as ICredentialDataDecryptedObject;
		}
		return data;
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.store[type] = deepCopy(data);
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.store[type] = { ...this.getStored(type), oauthTokenData: data.oauthTokenData };
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialType = this.getType(type);
		if (!credentialType.extends) return credentialType.properties;
		const combined: INodeProperties[] = [];
		for (const parent of credentialType.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, credentialType.properties);
		return combined;
	}
}

// ---------------------------------------------------------------------------
// n8n-core services
// ---------------------------------------------------------------------------

type LogLevel = 'error' | 'warn' | 'info' | 'debug';
const LOG_LEVELS: LogLevel[] = ['error', 'warn', 'info', 'debug'];

/** Logs collected from n8n-core during runs; printed only when N8N_HARNESS_LOG=<level> is set. */
export const harnessLogs: Array<{ level: LogLevel; message: string; meta?: unknown }> = [];

function createQuietLogger(): LoggerInterface & { scoped(): LoggerInterface } {
	const printLevel = process.env.N8N_HARNESS_LOG as LogLevel | undefined;
	const maxIndex = printLevel ? LOG_LEVELS.indexOf(printLevel) : -1;
	const log = (level: LogLevel) => (message: string, meta?: unknown) => {
		harnessLogs.push({ level, message, meta });
		if (harnessLogs.length > 1000) harnessLogs.shift();
		if (LOG_LEVELS.indexOf(level) <= maxIndex) {
			console.log(`[n8n-core ${level}] ${message}`, meta ?? '');
		}
	};
	const logger = {
		error: log('error'),
		warn: log('warn'),
		info: log('info'),
		debug: log('debug'),
		scoped: () => logger,
	};
	return logger;
}

interface HarnessState {
	rootDir: string;
	logger: LoggerInterface;
}

let state: HarnessState | undefined;

function ensureCoreServices(): HarnessState {
	if (state) return state;

	const rootDir = mkdtempSync(path.join(tmpdir(), 'n8n-harness-'));
	const logger = createQuietLogger();
	Container.set(CoreLogger, logger);
	LoggerProxy.init(logger);

	// A real InstanceSettings, with its settings file in the temp dir rather
	// than in ~/.n8n (node contexts read instanceId / hmac secret from it).
	const n8nFolder = path.join(rootDir, '.n8n');
	const instanceSettings = new InstanceSettings(
		{
			n8nFolder,
			userHome: rootDir,
			encryptionKey: randomBytes(24).toString('base64'),
			enforceSettingsFilePermissions: false,
		} as unknown as ConstructorParameters<typeof InstanceSettings>[0],
		logger as unknown as ConstructorParameters<typeof InstanceSettings>[1],
	);
	Container.set(InstanceSettings, instanceSettings);

	state = { rootDir, logger };
	return state;
}

/**
 * Installs a BinaryDataService for `mode` into n8n-core's container, storing
 * files (filesystem mode) under `storagePath`.
 */
async function installBinaryDataService(
	mode: BinaryMode,
	storagePath: string,
): Promise<BinaryDataService> {
	const { logger } = ensureCoreServices();
	const config = {
		availableModes: ['default', 'filesystem'],
		mode,
		localStoragePath: storagePath,
		signingSecret: randomBytes(16).toString('hex'),
		dbMaxFileSize: 512,
	} as unknown as BinaryDataConfig;
	Container.set(BinaryDataConfig, config);
	const service = new BinaryDataService(
		config,
		Container.get(ErrorReporter),
		logger as unknown as ConstructorParameters<typeof BinaryDataService>[2],
	);
	await service.init();
	Container.set(BinaryDataService, service);
	return service;
}

/** Removes the harness temp directory (binary files, settings). Call from afterAll. */
export function disposeHarness(): void {
	if (!state) return;
	rmSync(state.rootDir, { recursive: true, force: true });
	state = undefined;
}

// ---------------------------------------------------------------------------
// Running a workflow
// ---------------------------------------------------------------------------

let queue: Promise<unknown> = Promise.resolve();
let runCounter = 0;

function toCredentialTypeMap(types?: ICredentialType[] | CredentialTypeMap): CredentialTypeMap {
	if (!types) return {};
	if (Array.isArray(types)) return Object.fromEntries(types.map((t) => [t.name, t]));
	return types;
}

function pickStartNode(workflow: Workflow, nodes: INode[], startNode?: string): INode {
	if (startNode) {
		const node = workflow.getNode(startNode);
		if (!node) throw new Error(`runWorkflow: start node "${startNode}" is not in the workflow`);
		return node;
	}
	const first = nodes.find((n) => !n.disabled && workflow.getParentNodes(n.name).length === 0);
	if (!first) throw new Error('runWorkflow: the workflow has no node without incoming connections');
	return workflow.getNode(first.name)!;
}

/** Assigns the given credentials to nodes whose type declares them and has none set. */
function assignCredentials(
	nodes: INode[],
	nodeTypes: HarnessNodeTypes,
	credentials: Record<string, ICredentialDataDecryptedObject>,
): void {
	for (const node of nodes) {
		let declared: string[] = [];
		try {
			declared = (
				nodeTypes.getByNameAndVersion(node.type, node.typeVersion).description.credentials ?? []
			).map((c) => c.name);
		} catch {
			continue;
		}
		for (const type of declared) {
			if (!(type in credentials) || node.credentials?.[type]) continue;
			node.credentials = { ...node.credentials, [type]: { id: `${type}-id`, name: type } };
		}
	}
}

export async function runWorkflow(opts: RunOptions): Promise<RunResult> {
	const previous = queue;
	let release!: () => void;
	queue = new Promise<void>((resolve) => (release = resolve));
	await previous.catch(() => undefined);
	try {
		return await runWorkflowNow(opts);
	} finally {
		release();
	}
}

async function runWorkflowNow(opts: RunOptions): Promise<RunResult> {
	const { rootDir } = ensureCoreServices();
	const runNo = ++runCounter;
	const executionId = `${runNo}`;
	const workflowId = opts.workflow.id ?? 'harness-workflow';
	const mode = opts.mode ?? 'manual';
	const binaryMode = opts.binaryMode ?? 'default';

	const storagePath = path.join(rootDir, `run-${runNo}`);
	mkdirSync(storagePath, { recursive: true });
	const binaryDataService = await installBinaryDataService(binaryMode, storagePath);

	const nodeTypes = new HarnessNodeTypes({
		...(opts.types?.nodeTypes ?? {}),
		...(opts.nodeTypes ?? {}),
		...harnessNodeTypes(),
	});
	const credentialTypes = {
		...(opts.types?.credentialTypes ?? {}),
		...toCredentialTypeMap(opts.credentialTypes),
	};
	const credentialsHelper = new HarnessCredentialsHelper(credentialTypes, opts.credentials);

	const nodes = deepCopy(opts.workflow.nodes);
	assignCredentials(nodes, nodeTypes, opts.credentials ?? {});
	const connections = deepCopy(opts.workflow.connections);
	const settings: IWorkflowSettings = { executionOrder: 'v1', ...(opts.workflow.settings ?? {}) };

	const workflow = new Workflow({
		id: workflowId,
		name: opts.workflow.name ?? 'Harness workflow',
		nodes,
		connections,
		active: false,
		nodeTypes,
		settings,
	});

	const workflowData = {
		id: workflowId,
		name: workflow.name,
		active: false,
		isArchived: false,
		nodes,
		connections,
		settings,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as unknown as IWorkflowBase;
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	const executionOrder: string[] = [];
	hooks.addHandler('nodeExecuteBefore', (nodeName) => opts.onNodeStart?.(nodeName));
	hooks.addHandler('nodeExecuteAfter', (nodeName, taskData) => {
		executionOrder.push(nodeName);
		opts.onNodeEnd?.(nodeName, taskData);
	});

	const notSupported = (what: string) => async () => {
		throw new UnexpectedError(`${what} is not supported by the integration harness`);
	};
	const additionalData = {
		credentialsHelper,
		hooks,
		executionId,
		workflowId,
		userId: 'harness-user',
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678',
		formBaseUrl: 'http://localhost:5678/form',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		formTestBaseUrl: 'http://localhost:5678/form-test',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		mcpBaseUrl: 'http://localhost:5678/mcp',
		mcpTestBaseUrl: 'http://localhost:5678/mcp-test',
		variables: {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		executeWorkflow: notSupported('Executing sub-workflows'),
		startRunnerTask: notSupported('Task runners'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		sendDataToUI: () => {},
		setExecutionStatus: () => {},
	} as unknown as IWorkflowExecuteAdditionalData;

	const startNode = pickStartNode(workflow, nodes, opts.startNode);
	const startData: ITaskDataConnections = {
		main: [opts.inputItems ? deepCopy(opts.inputItems) : [{ json: {} }]],
	};
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: startNode, data: startData, source: null }],
		},
	});

	const workflowExecute = new WorkflowExecute(additionalData, mode, runExecutionData);
	const execution = workflowExecute.processRunExecutionData(workflow);

	let canceled = false;
	const cancel = () => {
		canceled = true;
		execution.cancel();
	};
	if (opts.signal?.aborted) cancel();
	opts.signal?.addEventListener('abort', cancel, { once: true });
	let run: IRun;
	try {
		run = await execution;
	} finally {
		opts.signal?.removeEventListener('abort', cancel);
	}

	const runData = run.data.resultData.runData;
	const taskOf = (nodeName: string, runIndex: number): ITaskData => {
		const task = runData[nodeName]?.[runIndex];
		if (!task) {
			const errors = Object.entries(runData)
				.filter(([, tasks]) => tasks.some((t) => t.error))
				.map(([name, tasks]) => `${name}: ${tasks.find((t) => t.error)!.error!.message}`);
			const workflowError = run.data.resultData.error?.message;
			throw new Error(
				`Node "${nodeName}" has no run #${runIndex} (ran: ${Object.keys(runData).join(', ') || 'none'}` +
					`${errors.length ? `; errors: ${errors.join('; ')}` : ''}` +
					`${workflowError ? `; workflow error: ${workflowError}` : ''})`,
			);
		}
		return task;
	};
	const outputOf = (nodeName: string, outputIndex = 0, runIndex = 0) =>
		taskOf(nodeName, runIndex).data?.main?.[outputIndex] ?? [];

	return {
		run,
		executionOrder,
		canceled,
		storagePath,
		outputOf,
		errorOf: (nodeName, runIndex = 0) => runData[nodeName]?.[runIndex]?.error,
		binaryOf: async (nodeName, itemIndex = 0, propertyName = 'data') => {
			const binary = outputOf(nodeName)[itemIndex]?.binary?.[propertyName];
			if (!binary) {
				throw new Error(
					`Item ${itemIndex} of "${nodeName}" has no binary property "${propertyName}"`,
				);
			}
			return await binaryDataService.getAsBuffer(binary);
		},
	};
}
