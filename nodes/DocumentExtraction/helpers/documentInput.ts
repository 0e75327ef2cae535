import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import {
	DEFAULT_DOWNLOAD_TIMEOUT_S,
	DEFAULT_MAX_DOWNLOAD_MB,
	downloadDocument,
	parseDocumentUrl,
} from '../../shared/transport/download';
import { getDocumentSource, type DocumentSource } from './binary';

/** The document of one item, and the downloaded file when it came from a URL. */
export interface DocumentInput {
	source: DocumentSource;
	downloaded?: IBinaryData;
}

/** Whether the document of Submit / Submit and Wait comes from a URL (else from a binary field). */
export function isUrlInput(this: IExecuteFunctions, itemIndex: number): boolean {
	return this.getNodeParameter('inputSource', itemIndex, 'binary') === 'url';
}

/** A source for the request body built from stored (or in-memory) binary data. */
export async function sourceOfBinary(
	this: IExecuteFunctions,
	binaryData: IBinaryData,
): Promise<DocumentSource> {
	const source: DocumentSource = { fileName: binaryData.fileName, mimeType: binaryData.mimeType };
	if (binaryData.id) {
		source.binaryId = binaryData.id;
		const { fileSize } = await this.helpers.getBinaryMetadata(binaryData.id);
		source.bodyBytes = Math.ceil(fileSize / 3) * 4;
	} else {
		source.base64 = binaryData.data;
		source.bodyBytes = source.base64.length;
	}
	return source;
}

function positive(value: unknown, fallback: number): number {
	const number = Number(value);
	return Number.isFinite(number) && number > 0 ? number : fallback;
}

/**
 * Reads the item's document per the Input Source: the binary field, or a download of the
 * Document URL into n8n's binary data store (streamed, checked, within the size limit and
 * the timeout of the options).
 */
export async function readDocumentInput(
	this: IExecuteFunctions,
	itemIndex: number,
	options: {
		maxDownloadSize?: unknown;
		downloadTimeout?: unknown;
		allowPrivateAddresses?: unknown;
	},
): Promise<DocumentInput> {
	if (!isUrlInput.call(this, itemIndex)) {
		const binaryPropertyName = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
		return { source: await getDocumentSource.call(this, itemIndex, binaryPropertyName) };
	}
	const url = parseDocumentUrl.call(
		this,
		this.getNodeParameter('documentUrl', itemIndex, ''),
		itemIndex,
	);
	const downloaded = await downloadDocument.call(this, url, {
		itemIndex,
		maxBytes: Math.floor(positive(options.maxDownloadSize, DEFAULT_MAX_DOWNLOAD_MB) * 1024 * 1024),
		timeoutMs: Math.round(positive(options.downloadTimeout, DEFAULT_DOWNLOAD_TIMEOUT_S) * 1000),
		allowPrivateAddresses: options.allowPrivateAddresses === true,
	});
	return { source: await sourceOfBinary.call(this, downloaded), downloaded };
}

/**
 * An output item of Submit / Submit and Wait. For a URL input (`downloaded` set, null when the
 * file was not kept) it carries the downloaded document as binary field "data" when "Include
 * Downloaded File" is on; otherwise the input's binary data is passed through per "Include
 * Input Binary".
 */
export function documentOutput(
	item: INodeExecutionData,
	json: IDataObject,
	itemIndex: number,
	options: IDataObject,
	downloaded: IBinaryData | null | undefined,
): INodeExecutionData {
	const output: INodeExecutionData = { json, pairedItem: { item: itemIndex } };
	if (downloaded !== undefined) {
		if (downloaded && options.includeDownloadedFile === true) output.binary = { data: downloaded };
	} else if (options.includeInputBinary === true && item.binary) {
		output.binary = item.binary;
	}
	return output;
}
