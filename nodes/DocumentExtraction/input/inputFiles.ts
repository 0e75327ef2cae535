import type { IBinaryKeyData } from 'n8n-workflow';

import type { NodeContext } from '../../shared/transport/errors';
import { DEFAULT_FILE_TYPES } from '../constants';
import { MESSAGES, refusal, type Words } from '../messages';
import { extensionOf, fileType } from './downloadedFile';

/** How many files an error message names before "and N more". */
const LISTED_AT_MOST = 10;

/** Files to Send with several files per item: every binary field, or those listed (by commas). */
export interface FileSelection {
	filesToSend: 'all' | 'list';
	binaryPropertyNames?: string;
	/** File Types: MIME types and file extensions separated by commas. */
	fileTypes?: string;
}

export interface ItemFile {
	field: string;
	fileName?: string;
	mimeType: string;
}

/** File Types read: `any` for `*` or `*∕*`, extensions without the dot, `label` as messages show it. */
interface FileTypeRules {
	any: boolean;
	mimeTypes: string[];
	extensions: string[];
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

/** Reads File Types, or why it cannot be read. */
function parseFileTypes(text: string | undefined): FileTypeRules | Words {
	const entries = parseNameList(text ?? DEFAULT_FILE_TYPES).map((entry) => entry.toLowerCase());
	if (!entries.length) return MESSAGES.noFileTypes;
	const rules: FileTypeRules = { any: false, mimeTypes: [], extensions: [], label: '' };
	for (const entry of entries) {
		const extension = EXTENSION_PATTERN.exec(entry);
		if (entry === '*' || entry === '*/*') rules.any = true;
		else if (MIME_PATTERN.test(entry)) rules.mimeTypes.push(entry);
		else if (extension) rules.extensions.push(extension[2]);
		else return MESSAGES.badFileType(entry, String(text));
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

/** The files of one item to send, and those File Types left out; or the item's invalid_input error. */
export function selectFiles(
	ctx: NodeContext,
	binary: IBinaryKeyData | undefined,
	selection: FileSelection,
	itemIndex: number,
): { files: ItemFile[]; skipped: ItemFile[] } {
	const available: ItemFile[] = Object.entries(binary ?? {}).map(([field, data]) => ({
		field,
		...(data?.fileName ? { fileName: data.fileName } : {}),
		mimeType: data?.mimeType ?? '',
	}));
	const refuse = (words: Words) => refusal(ctx, words, itemIndex);
	const rules = parseFileTypes(selection.fileTypes);
	if ('message' in rules) throw refuse(rules);
	let candidates = available;
	if (selection.filesToSend === 'list') {
		const names = parseNameList(selection.binaryPropertyNames ?? '');
		if (!names.length) throw refuse(MESSAGES.noFieldNames);
		const missing = names.filter((name) => !available.some((file) => file.field === name));
		if (missing.length) {
			const what = missing.map((name) => `"${name}"`).join(', ');
			throw refuse(MESSAGES.missingFields(what, itemIndex, describeFiles(available)));
		}
		candidates = names.map((name) => available.find((file) => file.field === name)!);
	}
	if (!candidates.length) throw refuse(MESSAGES.noBinaryData(itemIndex));
	const files = candidates.filter((file) => countsAsDocument(file, rules));
	if (!files.length) {
		const isDefault = rules.label === (parseFileTypes(DEFAULT_FILE_TYPES) as FileTypeRules).label;
		const kind = MESSAGES.wantedKind(isDefault, rules.label);
		const count = candidates.length;
		throw refuse(MESSAGES.noDocumentFile(kind, itemIndex, count, describeFiles(candidates)));
	}
	return { files, skipped: candidates.filter((file) => !files.includes(file)) };
}
