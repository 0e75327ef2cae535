import type { IBinaryKeyData } from 'n8n-workflow';

import { DEFAULT_FILE_TYPES } from '../constants';
import { MESSAGES } from '../messages';
import { extensionOf, fileType } from './downloadedFile';

/**
 * Which files of an item are sent, each as its own document (Files to Send):
 * - `field`: the file in Input Binary Field, as it always was (one document per item);
 * - `all`: every binary field of the item (an email's attachment_0, attachment_1, …);
 * - `list`: the binary fields named in Input Binary Fields, separated by commas.
 * With `all` and `list`, only the files File Types counts are sent; the others are skipped and
 * named in the run's hint (hints.ts). Pure: no n8n context, so that every rule is tested on its own.
 */

export type FilesToSend = 'field' | 'all' | 'list';

/** How many files an error message names before "and N more". */
const LISTED_AT_MOST = 10;

/** What selects the files of one item. */
export interface FileSelection {
	filesToSend: FilesToSend;
	/** Input Binary Field (`field`). */
	binaryPropertyName: string;
	/** Input Binary Fields (`list`): names separated by commas. */
	binaryPropertyNames?: string;
	/** File Types (`all`, `list`): MIME types and file extensions separated by commas. */
	fileTypes?: string;
}

/** A file of an item: its binary field, its file name when it has one, and its MIME type. */
export interface ItemFile {
	field: string;
	fileName?: string;
	mimeType: string;
}

/** The files of an item to send, in the item's order, and those File Types left out. */
interface SelectedFiles {
	files: ItemFile[];
	skipped: ItemFile[];
}

/** A selection that cannot be made; the caller throws it as the item's error. */
export class FileSelectionError extends Error {
	readonly description: string;

	constructor({ message, description }: { message: string; description: string }) {
		super(message);
		this.description = description;
		this.name = 'FileSelectionError';
	}
}

/** The rules of File Types: MIME types (`image/*` for a whole kind) and extensions (without the dot). */
interface FileTypeRules {
	/** Everything counts (`*` or `*∕*`). */
	any: boolean;
	mimeTypes: string[];
	extensions: string[];
	/** The option as it reads in a message. */
	label: string;
}

const MIME_PATTERN = /^[a-z0-9][a-z0-9.+-]*\/(\*|[a-z0-9][a-z0-9.+-]*)$/;
const EXTENSION_PATTERN = /^(\*?\.)?([a-z0-9]+)$/;

/** The names of a comma-separated list: trimmed, without empty entries or repeats. */
function parseNameList(text: string): string[] {
	const names = String(text ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean);
	return [...new Set(names)];
}

/** Reads File Types; an entry that is neither a MIME type nor an extension is an error. */
function parseFileTypes(text: string | undefined): FileTypeRules {
	const entries = parseNameList(text ?? DEFAULT_FILE_TYPES).map((entry) => entry.toLowerCase());
	if (!entries.length) {
		throw new FileSelectionError(MESSAGES.noFileTypes);
	}
	const rules: FileTypeRules = { any: false, mimeTypes: [], extensions: [], label: '' };
	for (const entry of entries) {
		const extension = EXTENSION_PATTERN.exec(entry);
		if (entry === '*' || entry === '*/*') rules.any = true;
		else if (MIME_PATTERN.test(entry)) rules.mimeTypes.push(entry);
		else if (extension) rules.extensions.push(extension[2]);
		else {
			throw new FileSelectionError(MESSAGES.badFileType(entry, String(text)));
		}
	}
	rules.label = entries.join(', ');
	return rules;
}

/** Whether a file counts as a document under File Types (by its MIME type or its name's extension). */
function countsAsDocument(file: ItemFile, rules: FileTypeRules): boolean {
	if (rules.any) return true;
	const mimeType = fileType(file.fileName ?? '', file.mimeType ?? '');
	const byType = rules.mimeTypes.some((pattern) =>
		pattern.endsWith('/*')
			? mimeType.startsWith(pattern.slice(0, -1))
			: mimeType === pattern || (pattern === 'application/pdf' && mimeType === 'application/x-pdf'),
	);
	return byType || rules.extensions.includes(extensionOf(file.fileName ?? ''));
}

/** A file as a message names it: `attachment_2 ("notes.txt", text/plain)`. */
export function describeFile(file: ItemFile): string {
	const type = file.mimeType || 'no type';
	return `${file.field} (${file.fileName ? `"${file.fileName}", ` : ''}${type})`;
}

/** The files as a message lists them (each as `describe` names it), the first few and "and N more". */
export function describeFiles<F extends ItemFile>(
	files: F[],
	describe: (file: F) => string = describeFile,
): string {
	const shown = files.slice(0, LISTED_AT_MOST).map(describe).join(', ');
	const more = files.length - LISTED_AT_MOST;
	return more > 0 ? `${shown} and ${more} more` : shown;
}

/** What File Types means in a message: "PDF or image" for the default, else its entries. */
function wantedKind(rules: FileTypeRules): string {
	return MESSAGES.wantedKind(rules.label === parseFileTypes(DEFAULT_FILE_TYPES).label, rules.label);
}

/** The item's binary fields as ItemFiles, in the item's order. */
function itemFiles(binary: IBinaryKeyData | undefined): ItemFile[] {
	return Object.entries(binary ?? {}).map(([field, data]) => ({
		field,
		...(data?.fileName ? { fileName: data.fileName } : {}),
		mimeType: data?.mimeType ?? '',
	}));
}

/**
 * The files of one item to send, per the selection. With `field`, the one field named, checked
 * later as always (a missing field is that field's own error). With `all` and `list`: every
 * file, or the files named, that File Types counts; the others are `skipped`. An item without
 * binary data, a name it does not have, or no file that counts is a FileSelectionError naming
 * what the item has.
 */
export function selectFiles(
	binary: IBinaryKeyData | undefined,
	selection: FileSelection,
	itemIndex: number,
): SelectedFiles {
	const available = itemFiles(binary);
	if (selection.filesToSend === 'field') {
		const field = selection.binaryPropertyName;
		const found = available.find((file) => file.field === field);
		return { files: [found ?? { field, mimeType: '' }], skipped: [] };
	}
	const rules = parseFileTypes(selection.fileTypes);
	let candidates = available;
	if (selection.filesToSend === 'list') {
		const names = parseNameList(selection.binaryPropertyNames ?? '');
		if (!names.length) {
			throw new FileSelectionError(MESSAGES.noFieldNames);
		}
		const missing = names.filter((name) => !available.some((file) => file.field === name));
		if (missing.length) {
			const what = missing.map((name) => `"${name}"`).join(', ');
			throw new FileSelectionError(
				MESSAGES.missingFields(what, itemIndex, describeFiles(available)),
			);
		}
		candidates = names.map((name) => available.find((file) => file.field === name)!);
	}
	if (!candidates.length) {
		throw new FileSelectionError(MESSAGES.noBinaryData(itemIndex));
	}
	const files = candidates.filter((file) => countsAsDocument(file, rules));
	const skipped = candidates.filter((file) => !files.includes(file));
	if (!files.length) {
		throw new FileSelectionError(
			MESSAGES.noDocumentFile(
				wantedKind(rules),
				itemIndex,
				candidates.length,
				describeFiles(candidates),
			),
		);
	}
	return { files, skipped };
}
