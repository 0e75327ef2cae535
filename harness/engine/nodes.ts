/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/node-usable-as-tool, @typescript-eslint/no-require-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
/** The harness's own nodes, workflow builders, and loading a package's node and credential types. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type {
	IBinaryData,
	ICredentialType,
	IConnections,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers, UnexpectedError } from 'n8n-workflow';
import type { CredentialTypeMap, LoadedTypes, NodeTypeMap, WorkflowJson } from './types';

// ---------------------------------------------------------------------------
// Helper node types (n8n-core-like)
// ---------------------------------------------------------------------------

export const HARNESS_SOURCE_NODE_TYPE = 'harness.source';
/** The start node, under n8n's own type name, so workflows exported from n8n run unchanged. */
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
 * Emits its input items, storing their binary data through `helpers.prepareBinaryData` so it lands
 * in the active binary data mode (inline base64 or a file on disk).
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
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();

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
				pairedItem: { item: i },
			});
		}
		return [out];
	}
}

export function harnessNodeTypes(): NodeTypeMap {
	return {
		[MANUAL_TRIGGER_NODE_TYPE]: new HarnessStart(),
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
