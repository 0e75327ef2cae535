/** The harness's public types. */
import type {
	ExecutionError,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IConnections,
	INode,
	INodeExecutionData,
	INodeType,
	IRun,
	ITaskData,
	IVersionedNodeType,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';

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
