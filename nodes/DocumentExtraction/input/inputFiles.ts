import type { IBinaryKeyData } from 'n8n-workflow';

import type { NodeContext } from '../../shared/transport/errors';
import { DEFAULT_FILE_TYPES } from '../constants';
import { MESSAGES, refusal, type Words } from '../messages';
import { extensionOf, fileType } from './downloadedFile';

/** Files to Send with several files per item: every binary field, or those listed (by commas). */
export interface FileSelection {
	filesToSend: 'all' | 'list';
	binaryPropertyNames?: string;
	fileTypes?: string;
	minImageKb?: number;
	skipWithoutDocument?: boolean;
}

export interface ItemFile {
	field: string;
	fileName?: string;
	mimeType: string;
	bytes?: number;
	/** An image under Skip Images Smaller Than: not sent. */
	small?: boolean;
	/** The item of a file a hint names. */
	itemIndex?: number;
}

/** File Types read: `any` for `*` or `*∕*`, extensions without the dot, `label` as messages show it. */
type FileTypeRules = { any: boolean; mimeTypes: string[]; extensions: string[]; label: string };

const MIME_PATTERN = /^[a-z0-9][a-z0-9.+-]*\/(\*|[a-z0-9][a-z0-9.+-]*)$/;
const EXTENSION_PATTERN = /^(\*?\.)?([a-z0-9]+)$/;

/** The names of a comma-separated list: trimmed, without empty entries or repeats. */
function parseNameList(text: string): string[] {
	const names = String(text ?? '').split(',');
	return [...new Set(names.map((name) => name.trim()))].filter(Boolean);
}

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
	const mimeType = fileType(file.fileName ?? '', file.mimeType ?? '');
	const byType = rules.mimeTypes.some((pattern) =>
		pattern.endsWith('/*') ? mimeType.startsWith(pattern.slice(0, -1)) : mimeType === pattern,
	);
	return rules.any || byType || rules.extensions.includes(extensionOf(file.fileName ?? ''));
}

/** The size n8n 1.x keeps only in words, pretty-bytes' "7.1 kB" (2.x keeps `bytes` too). */
function sizeOf(words = ''): number | undefined {
	const [, value, unit] = /^([\d.]+) (B|kB|MB|GB)$/.exec(words) ?? [];
	return value ? Number(value) * 1000 ** ['B', 'kB', 'MB', 'GB'].indexOf(unit) : undefined;
}

/** An image under Skip Images Smaller Than: an email's logo or pixel (a file of unknown size is not). */
const isSmall = (file: ItemFile, { minImageKb = 0 }: FileSelection) =>
	fileType(file.fileName ?? '', file.mimeType).startsWith('image/') &&
	file.bytes! < minImageKb * 1024;

/** A file as a message names it: `attachment_2 ("notes.txt", text/plain)`, after its item in a hint. */
function describeFile(file: ItemFile): string {
	const item = file.itemIndex === undefined ? '' : `item ${file.itemIndex} `;
	const name = file.fileName ? `"${file.fileName}", ` : '';
	const size = file.small ? `, ${Math.ceil(file.bytes! / 102.4) / 10} KB` : '';
	return `${item}${file.field} (${name}${file.mimeType || 'no type'}${size})`;
}

/** The files as a message lists them, the first ten and "and N more". */
export function describeFiles(files: ItemFile[]): string {
	const shown = files.slice(0, 10).map(describeFile).join(', ');
	const more = files.length - 10;
	return more > 0 ? `${shown} and ${more} more` : shown;
}

/** The files of one item to send and those left out; an item without any fails (invalid_input) unless skipped. */
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
		bytes: data?.bytes ?? sizeOf(data?.fileSize),
	}));
	const refuse = (words: Words) => refusal(ctx, words, itemIndex);
	const rules = parseFileTypes(selection.fileTypes);
	if ('message' in rules) throw refuse(rules);
	let candidates = available;
	if (selection.filesToSend === 'list') {
		const names = parseNameList(selection.binaryPropertyNames ?? '');
		if (!names.length) throw refuse(MESSAGES.noFieldNames);
		const missing = names.filter((name) => !available.some((file) => file.field === name));
		if (missing.length)
			throw refuse(MESSAGES.missingFields(missing, itemIndex, describeFiles(available)));
		candidates = names.map((name) => available.find((file) => file.field === name)!);
	}
	const judged = candidates.map((file) => ({ ...file, small: isSmall(file, selection) }));
	const files = judged.filter((file) => !file.small && countsAsDocument(file, rules));
	const skipped = judged.filter((file) => !files.includes(file));
	if (files.length || selection.skipWithoutDocument) return { files, skipped };
	if (!candidates.length) throw refuse(MESSAGES.noBinaryData(itemIndex));
	const kind = MESSAGES.wantedKind(rules.label, selection.minImageKb);
	throw refuse(MESSAGES.noDocumentFile(kind, itemIndex, judged.length, describeFiles(judged)));
}
