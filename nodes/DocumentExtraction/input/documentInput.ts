import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import { downloadTime } from '../../shared/transport/deadline';
import { parseHttpUrl } from '../../shared/urls';
import { MESSAGES, refusal } from '../messages';
import { downloadDocument } from './download';
import type { DocumentSource } from './requestBody';

/** The http(s) address in a URL field of an item; `whenEmpty` is the message for nothing given. */
export function readUrlField(
	this: IExecuteFunctions,
	raw: unknown,
	itemIndex: number,
	{ whenEmpty, description }: { whenEmpty?: string; description: string },
): URL {
	const text = typeof raw === 'string' ? raw.trim() : '';
	const url = parseHttpUrl(text);
	if (url) return url;
	const message = text || !whenEmpty ? MESSAGES.notAUrl(text) : whenEmpty;
	throw refusal(this, { message, description }, itemIndex);
}

/** Where an item's document comes from; a Document URL is checked when its download starts. */
export type DocumentSourceSettings =
	| { urlInput: false; binaryPropertyName: string }
	| {
			urlInput: true;
			documentUrl: unknown;
			maxBytes: number;
			timeoutMs: number;
			allowPrivateAddresses: boolean;
	  };

/** A source for the request body: stored binary data (streamed on send) or base64 in memory. */
async function documentSourceOf(
	this: IExecuteFunctions,
	binaryData: IBinaryData,
): Promise<DocumentSource> {
	if (!binaryData.id) return { base64: binaryData.data, bodyBytes: binaryData.data.length };
	const { fileSize } = await this.helpers.getBinaryMetadata(binaryData.id);
	return { binaryId: binaryData.id, bodyBytes: Math.ceil(fileSize / 3) * 4 };
}

/** The item's document, and the downloaded file for a URL (no download starts after `deadline`). */
export async function readDocumentInput(
	this: IExecuteFunctions,
	itemIndex: number,
	source: DocumentSourceSettings,
	signal?: AbortSignal,
	deadline?: number,
): Promise<{ source: DocumentSource; downloaded?: IBinaryData }> {
	if (!source.urlInput) {
		// the document in the item's binary field, refused when the field is missing or the file empty
		const field = source.binaryPropertyName;
		const available = Object.keys(this.getInputData()[itemIndex]?.binary ?? {});
		if (!available.includes(field)) {
			throw refusal(this, MESSAGES.noInputBinaryField(field, itemIndex, available), itemIndex);
		}
		const binaryData = this.helpers.assertBinaryData(itemIndex, field);
		const fromField = await documentSourceOf.call(this, binaryData);
		if (!fromField.bodyBytes) {
			throw refusal(this, MESSAGES.emptyFile(field, binaryData.fileName), itemIndex);
		}
		return { source: fromField };
	}
	const url = readUrlField.call(this, source.documentUrl, itemIndex, MESSAGES.documentUrlField);
	const downloaded = await downloadDocument.call(this, url, {
		itemIndex,
		maxBytes: source.maxBytes,
		timeoutMs: downloadTime(this, source.timeoutMs, deadline, itemIndex),
		allowPrivateAddresses: source.allowPrivateAddresses,
		signal,
	});
	return { source: await documentSourceOf.call(this, downloaded), downloaded };
}
