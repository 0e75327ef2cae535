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
	/** Node and credential types of the run (from `loadPackageTypes`). Harness helper nodes are always added. */
	types: LoadedTypes;
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
	/** Called as nodes start / finish (useful to time cancellation). */
	onNodeStart?: (nodeName: string) => void;
	onNodeEnd?: (nodeName: string, taskData: ITaskData) => void;
}

export interface RunResult {
	run: IRun;
	/** Output items of a node (throws if the node did not run). */
	outputOf(nodeName: string, outputIndex?: number, runIndex?: number): INodeExecutionData[];
	/** Error a node failed with (undefined if it succeeded or did not run). */
	errorOf(nodeName: string, runIndex?: number): ExecutionError | undefined;
	/** Reads a binary property of an output item back through n8n-core's BinaryDataService. */
	binaryOf(nodeName: string, itemIndex?: number, propertyName?: string): Promise<Buffer>;
}
