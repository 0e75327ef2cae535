import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { DEFAULT_DOWNLOAD_TIMEOUT_S, DEFAULT_MAX_DOWNLOAD_MB } from '../../constants';
import type { DocumentSourceSettings } from '../../input/documentInput';
import type { SubmissionFields } from '../../input/requestBody';
import { readProjectField } from '../../../shared/projects';
import { MESSAGES, refusal } from '../../messages';

// Nothing below the operations reads a parameter: they read their settings here and hand them on.

export function readOptions(this: IExecuteFunctions, itemIndex: number): IDataObject {
	return this.getNodeParameter('options', itemIndex, {}) as IDataObject;
}

/** A number option of at least `minimum` (1 unless set), whole with `integer`; undefined when unset. */
export function numberOption(
	this: IExecuteFunctions,
	options: IDataObject,
	spec: { name: string; label: string; itemIndex: number; minimum?: number; integer?: boolean },
): number | undefined {
	const { name, label, itemIndex, minimum = 1 } = spec;
	const raw = options[name];
	if (raw === undefined || raw === null || raw === '') return undefined;
	const value = Number(raw);
	const refused =
		!Number.isFinite(value) || value < minimum
			? MESSAGES.notANumber(label, minimum, raw)
			: spec.integer && !Number.isInteger(value)
				? MESSAGES.notWhole(label, minimum, value)
				: undefined;
	if (refused) throw refusal(this, refused, itemIndex);
	return value;
}

/** `value` when it is a positive number, else `fallback` (no error: the field shows its minimum). */
function positiveOr(value: unknown, fallback: number): number {
	const number = Number(value);
	return Number.isFinite(number) && number > 0 ? number : fallback;
}

/** The settings of one document of Submit and Submit and Wait; Project and Document Type are required. */
export function readSubmissionSettings(
	this: IExecuteFunctions,
	unit: { itemIndex: number; options: IDataObject; file?: { field: string } },
	urlInput: boolean,
) {
	const { itemIndex, options } = unit;
	const file = unit.file?.field;
	const project = readProjectField(this, itemIndex);
	const documentType = String(this.getNodeParameter('documentType', itemIndex, '')).trim();
	const missing = !project ? MESSAGES.noProject : !documentType ? MESSAGES.noDocumentType : null;
	if (missing) throw refusal(this, missing, itemIndex);
	const fields: SubmissionFields = { project, document_type: documentType };
	const maxPages = numberOption.call(this, options, {
		name: 'maxPages',
		label: 'Max Pages',
		itemIndex,
		integer: true,
	});
	if (maxPages !== undefined) fields.max_pages = maxPages;
	const source: DocumentSourceSettings = urlInput
		? {
				urlInput,
				documentUrl: this.getNodeParameter('documentUrl', itemIndex, ''),
				maxBytes: Math.floor(
					positiveOr(options.maxDownloadSize, DEFAULT_MAX_DOWNLOAD_MB) * 1024 * 1024,
				),
				timeoutMs: Math.round(
					positiveOr(options.downloadTimeout, DEFAULT_DOWNLOAD_TIMEOUT_S) * 1000,
				),
				allowPrivateAddresses: options.allowPrivateAddresses === true,
			}
		: {
				urlInput,
				binaryPropertyName:
					file ?? (this.getNodeParameter('binaryPropertyName', itemIndex) as string),
			};
	return {
		fields,
		source,
		includeInputBinary: options.includeInputBinary === true,
		includeDownloadedFile: options.includeDownloadedFile === true,
		keepInputFields: options.keepInputFields === true,
		// the binary field of the document when it is one of several files of the item
		...(file !== undefined ? { file } : {}),
	};
}
