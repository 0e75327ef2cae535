/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import path from 'node:path';

import type {
	ICredentialDataDecryptedObject,
	INode,
	INodeExecutionData,
	INodeParameters,
} from 'n8n-workflow';

import {
	binaryItem,
	chainWorkflow,
	loadPackageTypes,
	runWorkflow,
	START_AND_FILES,
	type BinaryMode,
	type LoadedTypes,
} from '../../harness/engine';

export const ROOT = path.resolve(__dirname, '../..');
export const NODE_TYPE = 'n8n-nodes-document-extraction.documentExtraction';

let types: LoadedTypes | undefined;

/** The compiled package, loaded once the way n8n loads a community package. */
export function packageTypes(): LoadedTypes {
	types ??= loadPackageTypes(ROOT);
	return types;
}

/**
 * Parameters of a document operation that sends an invoice of the Invoices project (by name);
 * `extra` adds fields or overrides these.
 */
export const invoiceParameters = (
	operation: string,
	extra: INodeParameters = {},
): INodeParameters => ({
	resource: 'document',
	operation,
	project: { __rl: true, mode: 'id', value: 'Invoices' },
	documentType: 'invoice',
	...extra,
});

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
	return await runWorkflow({
		workflow: chainWorkflow([
			...START_AND_FILES,
			{ name: 'Extract', type: NODE_TYPE, parameters, ...options.nodeSettings },
		]),
		types: packageTypes(),
		credentials: { documentExtractionApi: options.credentials },
		binaryMode: options.binaryMode ?? 'default',
		inputItems: options.items ?? [binaryItem('%PDF-1.7 invoice', 'invoice.pdf', 'application/pdf')],
		signal: options.signal,
	});
}
