/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import path from 'node:path';

import type {
	ICredentialDataDecryptedObject,
	INode,
	INodeExecutionData,
	INodeParameters,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import {
	binaryItem,
	HARNESS_SOURCE_NODE_TYPE,
	loadPackageTypes,
	MANUAL_TRIGGER_NODE_TYPE,
	runWorkflow,
	type BinaryMode,
	type LoadedTypes,
} from './harness';

export const ROOT = path.resolve(__dirname, '../..');
export const NODE_TYPE = 'n8n-nodes-document-extraction.documentExtraction';

let types: LoadedTypes | undefined;

/** The compiled package, loaded once the way n8n loads a community package. */
export function packageTypes(): LoadedTypes {
	types ??= loadPackageTypes(ROOT);
	return types;
}

export interface ExtractRunOptions {
	items?: INodeExecutionData[];
	binaryMode?: BinaryMode;
	credentials: ICredentialDataDecryptedObject;
	/** Node settings such as `onError: 'continueRegularOutput'` (n8n's "Continue On Fail"). */
	nodeSettings?: Partial<INode>;
	signal?: AbortSignal;
}

/**
 * Runs Manual trigger → Files (stores the input binary in the active binary mode) →
 * Extract (the Document Extraction node with `parameters`) through n8n-core's engine.
 */
export async function runExtract(parameters: INodeParameters, options: ExtractRunOptions) {
	const nodes: INode[] = [
		{
			id: 'a',
			name: 'Start',
			type: MANUAL_TRIGGER_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'b',
			name: 'Files',
			type: HARNESS_SOURCE_NODE_TYPE,
			typeVersion: 1,
			position: [200, 0],
			parameters: {},
		},
		{
			id: 'c',
			name: 'Extract',
			type: NODE_TYPE,
			typeVersion: 1,
			position: [400, 0],
			parameters,
			...options.nodeSettings,
		},
	];
	return await runWorkflow({
		workflow: {
			nodes,
			connections: {
				Start: { main: [[{ node: 'Files', type: NodeConnectionTypes.Main, index: 0 }]] },
				Files: { main: [[{ node: 'Extract', type: NodeConnectionTypes.Main, index: 0 }]] },
			},
		},
		types: packageTypes(),
		credentials: { documentExtractionApi: options.credentials },
		binaryMode: options.binaryMode ?? 'default',
		inputItems: options.items ?? [binaryItem('%PDF-1.7 invoice', 'invoice.pdf', 'application/pdf')],
		signal: options.signal,
	});
}
