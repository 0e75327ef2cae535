import type { IBinaryKeyData } from 'n8n-workflow';

import { DEFAULT_FILE_TYPES } from '../constants';
import { extensionOf, fileType } from './downloadedFile';

/**
 * Which files of an item are sent, each as its own document (Files to Send):
 * - `field`: the file in Input Binary Field, as it always was (one document per item);
 * - `all`: every binary field of the item (an email's attachment_0, attachment_1, …);
 * - `list`: the binary fields named in Input Binary Fields, separated by commas.
 * With `all` and `list`, only the files File Types counts are sent; the others are skipped and
 * named in the run's hint. Pure: no n8n context, so that every rule is tested on its own.
 */

export type FilesToSend = 'field' | 'all' | 'list';

/** How many files an error message names before "and N more". */
const LISTED_AT_MOST = 10;

/** What a message says when an item has no binary data. */
export const NO_BINARY_DESCRIPTION =
	'This item has no binary data at all. Put a node that reads the file before this one: an email trigger with Download Attachments on, Read/Write Files from Disk, or HTTP Request with the response format set to File.';

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
export interface SelectedFiles {
	files: ItemFile[];
	skipped: ItemFile[];
}

/** A selection that cannot be made; the caller throws it as the item's error. */
export class FileSelectionError extends Error {
	constructor(
		message: string,
		readonly description: string,
	) {
		super(message);
		this.name = 'FileSelectionError';
	}
}

/** The rules of File Types: MIME types (`image/*` for a whole kind) and extensions (without the dot). */
export interface FileTypeRules {
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
export function parseNameList(text: string): string[] {
	const names = String(text ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean);
	return [...new Set(names)];
}

/** Reads File Types; an entry that is neither a MIME type nor an extension is an error. */
export function parseFileTypes(text: string | undefined): FileTypeRules {
	const entries = parseNameList(text ?? DEFAULT_FILE_TYPES).map((entry) => entry.toLowerCase());
	if (!entries.length) {
		throw new FileSelectionError(
			`File Types is empty: enter MIME types or file extensions, for example ${DEFAULT_FILE_TYPES}, .pdf`,
			'File Types decides which files of the item are sent as documents. Its default sends PDFs and images, the files the service reads.',
		);
	}
	const rules: FileTypeRules = { any: false, mimeTypes: [], extensions: [], label: '' };
	for (const entry of entries) {
		const extension = EXTENSION_PATTERN.exec(entry);
		if (entry === '*' || entry === '*/*') rules.any = true;
		else if (MIME_PATTERN.test(entry)) rules.mimeTypes.push(entry);
		else if (extension) rules.extensions.push(extension[2]);
		else {
			throw new FileSelectionError(
				`File Types: "${entry}" is neither a MIME type nor a file extension. Write it like application/pdf, image/* or .pdf`,
				`File Types is "${String(text)}". Separate its entries with commas.`,
			);
		}
	}
	rules.label = entries.join(', ');
	return rules;
}

/** Whether a file counts as a document under File Types (by its MIME type or its name's extension). */
export function countsAsDocument(file: ItemFile, rules: FileTypeRules): boolean {
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

/** The files as a message lists them, the first few and "and N more". */
export function describeFiles(files: ItemFile[]): string {
	const shown = files.slice(0, LISTED_AT_MOST).map(describeFile).join(', ');
	const more = files.length - LISTED_AT_MOST;
	return more > 0 ? `${shown} and ${more} more` : shown;
}

/** What File Types means in a message: "PDF or image" for the default, else its entries. */
function wantedKind(rules: FileTypeRules): string {
	return rules.label === parseFileTypes(DEFAULT_FILE_TYPES).label
		? 'PDF or image'
		: `file of the types in File Types (${rules.label})`;
}

const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

/** The item's binary fields as ItemFiles, in the item's order. */
export function itemFiles(binary: IBinaryKeyData | undefined): ItemFile[] {
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
			throw new FileSelectionError(
				'No binary field names given in Input Binary Fields: enter them separated by commas, for example attachment_0, attachment_1',
				'Or set Files to Send to All Binary Fields to send every file of the item.',
			);
		}
		const missing = names.filter((name) => !available.some((file) => file.field === name));
		if (missing.length) {
			const what = missing.map((name) => `"${name}"`).join(', ');
			throw new FileSelectionError(
				`No binary field ${what} on item ${itemIndex}: set Input Binary Fields to fields the item has, or Files to Send to All Binary Fields`,
				available.length
					? `This item has these binary fields: ${describeFiles(available)}.`
					: NO_BINARY_DESCRIPTION,
			);
		}
		candidates = names.map((name) => available.find((file) => file.field === name)!);
	}
	if (!candidates.length) {
		throw new FileSelectionError(
			`No binary data on item ${itemIndex}: there is no file to send`,
			NO_BINARY_DESCRIPTION,
		);
	}
	const files = candidates.filter((file) => countsAsDocument(file, rules));
	const skipped = candidates.filter((file) => !files.includes(file));
	if (!files.length) {
		const kind = wantedKind(rules);
		const count = candidates.length;
		throw new FileSelectionError(
			`No ${kind} on item ${itemIndex}: its ${plural(count, 'file is', `${count} files are`)} ${describeFiles(candidates)}`,
			`Only a ${kind} is sent to the service. Add the type of the file to File Types if it is a document after all (for example .pdf for a PDF sent as another type), or leave such items out before this node (an If node on the item's binary data).`,
		);
	}
	return { files, skipped };
}

/** A file left out, with its item. */
export interface SkippedFile extends ItemFile {
	itemIndex: number;
}

/** The run's hint for the files File Types left out, naming them; undefined when none was. */
export function skippedFilesHint(skipped: SkippedFile[]): string | undefined {
	if (!skipped.length) return undefined;
	const count = skipped.length;
	const shown = skipped
		.slice(0, LISTED_AT_MOST)
		.map((file) => `item ${file.itemIndex} ${describeFile(file)}`)
		.join(', ');
	const more = count - LISTED_AT_MOST;
	return `${count} ${plural(count, 'file was', 'files were')} not sent, File Types not counting ${plural(count, 'it', 'them')} as a document: ${shown}${more > 0 ? ` and ${more} more` : ''}. Add ${plural(count, 'its type', 'their types')} to File Types to send ${plural(count, 'it', 'them')}`;
}
