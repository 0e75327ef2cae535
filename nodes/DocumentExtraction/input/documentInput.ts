import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import { downloadTime } from '../../shared/transport/deadline';
import { nodeError } from '../../shared/transport/errors';
import { MESSAGES } from '../messages';
import { downloadDocument } from './download';
import type { DocumentSource } from './requestBody';
import { readUrlField } from './urlField';

/** Where an item's document comes from, and the limits of a download. */
export type DocumentSourceSettings =
	| { urlInput: false; binaryPropertyName: string }
	| {
			urlInput: true;
			/** The Document URL as given; it is checked when the download starts. */
			documentUrl: unknown;
			/** The largest file accepted, in bytes (Max Download Size). */
			maxBytes: number;
			/** Time for the whole download, in milliseconds (Download Timeout). */
			timeoutMs: number;
			allowPrivateAddresses: boolean;
	  };

/** The document of one item, and the downloaded file when it came from a URL. */
interface DocumentInput {
	source: DocumentSource;
	downloaded?: IBinaryData;
}

/**
 * A source for the request body built from binary data, stored (sent as a stream) or in memory
 * (sent as is). `bodyBytes` is 0 for an empty file.
 */
async function documentSourceOf(
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

/**
 * Finds the document in the item's binary field and checks it is usable. The error for a
 * missing field names the field and lists the binary fields the item has.
 */
async function readBinaryField(
	this: IExecuteFunctions,
	itemIndex: number,
	binaryPropertyName: string,
): Promise<DocumentSource> {
	const item = this.getInputData()[itemIndex];
	const available = Object.keys(item?.binary ?? {});
	if (!available.includes(binaryPropertyName)) {
		const { message, description } = MESSAGES.noInputBinaryField(
			binaryPropertyName,
			itemIndex,
			available,
		);
		throw nodeError(this, 'invalid_input', message, { itemIndex, description });
	}

	const binaryData: IBinaryData = this.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const source = await documentSourceOf.call(this, binaryData);
	if (!source.bodyBytes) {
		const { message, description } = MESSAGES.emptyFile(binaryPropertyName, binaryData.fileName);
		throw nodeError(this, 'invalid_input', message, { itemIndex, description });
	}
	return source;
}

/**
 * Reads the item's document per its source settings: the binary field, or a download of the
 * Document URL into n8n's binary data store (streamed, checked, within the size limit and the
 * timeout of the options, and by `deadline` when set).
 */
export async function readDocumentInput(
	this: IExecuteFunctions,
	itemIndex: number,
	source: DocumentSourceSettings,
	signal?: AbortSignal,
	deadline?: number,
): Promise<DocumentInput> {
	if (!source.urlInput) {
		return { source: await readBinaryField.call(this, itemIndex, source.binaryPropertyName) };
	}
	const url = readUrlField.call(this, source.documentUrl, itemIndex, MESSAGES.documentUrlField);
	const downloaded = await downloadDocument.call(this, url, {
		itemIndex,
		maxBytes: source.maxBytes,
		// no download starts when the deadline leaves no time for one
		timeoutMs: downloadTime(this, source.timeoutMs, deadline, itemIndex),
		allowPrivateAddresses: source.allowPrivateAddresses,
		signal,
	});
	return { source: await documentSourceOf.call(this, downloaded), downloaded };
}
