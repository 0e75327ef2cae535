import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	DEFAULT_DOWNLOAD_TIMEOUT_S,
	DEFAULT_MAX_CONCURRENCY,
	DEFAULT_MAX_DOWNLOAD_MB,
} from '../../constants';
import type { DocumentSourceSettings } from '../../input/documentInput';
import type { FileSelection, FilesToSend } from '../../input/inputFiles';
import type { SubmissionFields } from '../../input/requestBody';
import { readProjectField } from '../../../shared/projects';
import { nodeError } from '../../../shared/transport/errors';
import { MESSAGES } from '../../messages';

/**
 * The node's fields and options, read into typed settings: once per run for what holds for the
 * whole run (RunSettings), once per item for the rest (an expression may give each item its
 * own value). An operation reads its settings here and hands them on; nothing further down
 * reads a parameter.
 */

/** What holds for a whole run of the node. */
interface RunSettings {
	/** Max Concurrent Requests: one limit for the run, read from the first item. */
	maxConcurrency: number;
	/** Input Source is URL (else a binary field). It takes no expression: the same for every item. */
	urlInput: boolean;
}

/** The "Options" collection of an operation, read for one item. */
export function readOptions(this: IExecuteFunctions, itemIndex: number): IDataObject {
	return this.getNodeParameter('options', itemIndex, {}) as IDataObject;
}

interface NumberOptionSpec {
	/** The option's name in the Options collection. */
	name: string;
	/** The option's display name, used in the error message. */
	label: string;
	itemIndex: number;
	/** The smallest value allowed; 1 unless set. */
	minimum?: number;
	/** Whether only whole numbers are allowed. */
	integer?: boolean;
}

/**
 * A number from the Options collection that is at least `minimum` (and whole, with
 * `integer`), or undefined when the option is not set. A bad value is a clear error.
 */
function numberOption(
	this: IExecuteFunctions,
	options: IDataObject,
	{ name, label, itemIndex, minimum = 1, integer = false }: NumberOptionSpec,
): number | undefined {
	const raw = options[name];
	if (raw === undefined || raw === null || raw === '') return undefined;
	const value = Number(raw);
	if (!Number.isFinite(value) || value < minimum) {
		const { message, description } = MESSAGES.notANumber(label, minimum, raw);
		throw nodeError(this, 'invalid_input', message, { itemIndex, description });
	}
	if (integer && !Number.isInteger(value)) {
		const { message, description } = MESSAGES.notWhole(label, minimum, value);
		throw nodeError(this, 'invalid_input', message, { itemIndex, description });
	}
	return value;
}

/** Like `numberOption` (a bad value is an error), with `fallback` when the option is not set. */
export function numberOptionOr(
	this: IExecuteFunctions,
	options: IDataObject,
	spec: NumberOptionSpec & { fallback: number },
): number {
	return numberOption.call(this, options, spec) ?? spec.fallback;
}

/** The settings of a run, read once: Max Concurrent Requests from the first item, Input Source. */
export function readRunSettings(this: IExecuteFunctions): RunSettings {
	return {
		maxConcurrency: numberOptionOr.call(this, readOptions.call(this, 0), {
			name: 'maxConcurrency',
			label: 'Max Concurrent Requests',
			fallback: DEFAULT_MAX_CONCURRENCY,
			itemIndex: 0,
		}),
		urlInput: this.getNodeParameter('inputSource', 0, 'binary') === 'url',
	};
}

/** The settings of one item of Submit and Submit and Wait. */
export interface SubmissionSettings {
	fields: SubmissionFields;
	source: DocumentSourceSettings;
	/** Include Input Binary (a binary input's data passed through to the output). */
	includeInputBinary: boolean;
	/** Include Downloaded File (a URL input's file output as binary field "data"). */
	includeDownloadedFile: boolean;
	/** Keep Input Fields: the input item's JSON goes with each output item. */
	keepInputFields: boolean;
	/** The binary field of the document when it is one of several files of the item. */
	file?: string;
}

/** `value` when it is a positive number, else `fallback` (no error: the field shows its minimum). */
function positiveOr(value: unknown, fallback: number): number {
	const number = Number(value);
	return Number.isFinite(number) && number > 0 ? number : fallback;
}

/**
 * The document fields and options of one item of Submit / Submit and Wait: Project and
 * Document Type (refused when empty), Max Pages, the document's source and what is output.
 * `file` names the binary field of one of several files of the item (Files to Send); without
 * it, the document is in Input Binary Field.
 */
export function readSubmissionSettings(
	this: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
	run: Pick<RunSettings, 'urlInput'>,
	file?: string,
): SubmissionSettings {
	const project = readProjectField(this, itemIndex);
	const documentType = String(this.getNodeParameter('documentType', itemIndex, '')).trim();
	if (!project) {
		throw nodeError(this, 'invalid_input', MESSAGES.noProject.message, {
			itemIndex,
			description: MESSAGES.noProject.description,
		});
	}
	if (!documentType) {
		throw nodeError(this, 'invalid_input', MESSAGES.noDocumentType.message, {
			itemIndex,
			description: MESSAGES.noDocumentType.description,
		});
	}
	const fields: SubmissionFields = { project, document_type: documentType };
	const maxPages = numberOption.call(this, options, {
		name: 'maxPages',
		label: 'Max Pages',
		itemIndex,
		integer: true,
	});
	if (maxPages !== undefined) fields.max_pages = maxPages;
	const source: DocumentSourceSettings = run.urlInput
		? {
				urlInput: true,
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
				urlInput: false,
				binaryPropertyName:
					file ?? (this.getNodeParameter('binaryPropertyName', itemIndex) as string),
			};
	return {
		fields,
		source,
		includeInputBinary: options.includeInputBinary === true,
		includeDownloadedFile: options.includeDownloadedFile === true,
		keepInputFields: options.keepInputFields === true,
		...(file !== undefined ? { file } : {}),
	};
}

/**
 * Files to Send of one item (binary input): Input Binary Field (the default: one document, as
 * before), or every binary field or those named in Input Binary Fields, with File Types.
 */
export function readFileSelection(
	this: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
): FileSelection {
	const filesToSend = this.getNodeParameter('filesToSend', itemIndex, 'field') as FilesToSend;
	if (filesToSend !== 'all' && filesToSend !== 'list') {
		return {
			filesToSend: 'field',
			binaryPropertyName: this.getNodeParameter('binaryPropertyName', itemIndex) as string,
		};
	}
	const names =
		filesToSend === 'list'
			? String(this.getNodeParameter('binaryPropertyNames', itemIndex, '') ?? '')
			: undefined;
	return {
		filesToSend,
		binaryPropertyName: '',
		...(names !== undefined ? { binaryPropertyNames: names } : {}),
		...(options.fileTypes !== undefined ? { fileTypes: String(options.fileTypes) } : {}),
	};
}
