import type { IBinaryKeyData } from 'n8n-workflow';

import { DEFAULT_FILE_TYPES } from '../../../../../nodes/DocumentExtraction/constants';
import {
	selectFiles,
	type FileSelection,
} from '../../../../../nodes/DocumentExtraction/input/inputFiles';
import { failureKind } from '../../../../../nodes/shared/transport/errors';
import { node } from '../../../helpers/context';

const ctx = { getNode: () => node };

const file = (fileName: string | undefined, mimeType: string) => ({
	data: 'JVBERi0xLjQK',
	mimeType,
	...(fileName ? { fileName } : {}),
});

/** An email item as n8n's email triggers output it: two invoices and a text file. */
const EMAIL: IBinaryKeyData = {
	attachment_0: file('invoice-1.pdf', 'application/pdf'),
	attachment_1: file('invoice-2.pdf', 'application/pdf'),
	attachment_2: file('notes.txt', 'text/plain'),
};

const all: FileSelection = { filesToSend: 'all', binaryPropertyName: 'data' };
const list = (names: string, fileTypes?: string): FileSelection => ({
	filesToSend: 'list',
	binaryPropertyName: 'data',
	binaryPropertyNames: names,
	...(fileTypes !== undefined ? { fileTypes } : {}),
});

const fields = (binary: IBinaryKeyData | undefined, selection: FileSelection) => {
	const { files, skipped } = selectFiles(ctx, binary, selection, 0);
	return { files: files.map((f) => f.field), skipped: skipped.map((f) => f.field) };
};

/** The invalid_input error selectFiles throws. */
function selectionError(binary: IBinaryKeyData | undefined, selection: FileSelection, item = 0) {
	try {
		selectFiles(ctx, binary, selection, item);
	} catch (error) {
		expect(failureKind(error)).toBe('invalid_input');
		return error as Error & { description: string };
	}
	throw new Error('selectFiles did not throw');
}

describe('Files to Send: Input Binary Field (as before)', () => {
	it('sends the one field named, whatever its type, and skips nothing', () => {
		expect(fields(EMAIL, { filesToSend: 'field', binaryPropertyName: 'attachment_2' })).toEqual({
			files: ['attachment_2'],
			skipped: [],
		});
	});

	it('leaves a missing field to the field check of the item (its message lists the fields)', () => {
		expect(fields(EMAIL, { filesToSend: 'field', binaryPropertyName: 'data' })).toEqual({
			files: ['data'],
			skipped: [],
		});
	});
});

describe('Files to Send: All Binary Fields', () => {
	it('sends every PDF and image in the item order and skips the rest', () => {
		expect(fields(EMAIL, all)).toEqual({
			files: ['attachment_0', 'attachment_1'],
			skipped: ['attachment_2'],
		});
	});

	it('keeps file names and types of what it selects and skips', () => {
		const { files, skipped } = selectFiles(ctx, EMAIL, all, 0);
		expect(files[1]).toEqual({
			field: 'attachment_1',
			fileName: 'invoice-2.pdf',
			mimeType: 'application/pdf',
		});
		expect(skipped).toEqual([
			{ field: 'attachment_2', fileName: 'notes.txt', mimeType: 'text/plain' },
		]);
	});

	it('counts images and a PDF sent as application/octet-stream (judged by its name)', () => {
		const binary = {
			logo: file('logo.png', 'image/png'),
			scan: file('scan.TIFF', 'image/tiff'),
			mailed: file('Rechnung.PDF', 'application/octet-stream'),
			untyped: file('receipt.jpg', ''),
			calendar: file('invite.ics', 'text/calendar'),
			blob: file(undefined, 'application/octet-stream'),
		};
		expect(fields(binary, all)).toEqual({
			files: ['logo', 'scan', 'mailed', 'untyped'],
			skipped: ['calendar', 'blob'],
		});
	});

	it('an item with no file that counts fails, listing what it had', () => {
		const error = selectionError(
			{
				attachment_0: file('notes.txt', 'text/plain'),
				attachment_1: file('invite.ics', 'text/calendar'),
			},
			all,
			3,
		);
		expect(error.message).toBe(
			'No PDF or image on item 3: its 2 files are attachment_0 ("notes.txt", text/plain), attachment_1 ("invite.ics", text/calendar)',
		);
		expect(error.description).toMatch(/Add the type of the file to File Types/);
	});

	it('an item with one file that does not count: the message says so in the singular', () => {
		const error = selectionError({ attachment_0: file('notes.txt', 'text/plain') }, all);
		expect(error.message).toBe(
			'No PDF or image on item 0: its file is attachment_0 ("notes.txt", text/plain)',
		);
	});

	it('an item without binary data fails and says where files come from', () => {
		for (const binary of [undefined, {}]) {
			const error = selectionError(binary, all, 2);
			expect(error.message).toBe('No binary data on item 2: there is no file to send');
			expect(error.description).toMatch(/Download Attachments/);
		}
	});

	it('names the first ten files of a large item and counts the rest', () => {
		const binary: IBinaryKeyData = {};
		for (let i = 0; i < 12; i++) binary[`attachment_${i}`] = file(`f${i}.txt`, 'text/plain');
		expect(selectionError(binary, all).message).toMatch(
			/its 12 files are attachment_0 .* attachment_9 \("f9.txt", text\/plain\) and 2 more$/,
		);
	});
});

describe('Files to Send: Listed Binary Fields', () => {
	it('sends the fields named, in the order named, trimmed and without repeats', () => {
		expect(fields(EMAIL, list(' attachment_1 ,attachment_0,, attachment_1'))).toEqual({
			files: ['attachment_1', 'attachment_0'],
			skipped: [],
		});
	});

	it('a named file that does not count is skipped, not sent', () => {
		expect(fields(EMAIL, list('attachment_0, attachment_2'))).toEqual({
			files: ['attachment_0'],
			skipped: ['attachment_2'],
		});
	});

	it('a name the item does not have fails, listing the fields it has', () => {
		const error = selectionError(EMAIL, list('attachment_0, attachment_5'), 1);
		expect(error.message).toBe(
			'No binary field "attachment_5" on item 1: set Input Binary Fields to fields the item has, or Files to Send to All Binary Fields',
		);
		expect(error.description).toBe(
			'This item has these binary fields: attachment_0 ("invoice-1.pdf", application/pdf), attachment_1 ("invoice-2.pdf", application/pdf), attachment_2 ("notes.txt", text/plain).',
		);
	});

	it('an empty list fails with an example of one', () => {
		expect(selectionError(EMAIL, list(' , ')).message).toMatch(
			/^No binary field names given in Input Binary Fields: .* for example attachment_0, attachment_1$/,
		);
	});

	it('only named files that do not count: the item fails', () => {
		expect(selectionError(EMAIL, list('attachment_2')).message).toBe(
			'No PDF or image on item 0: its file is attachment_2 ("notes.txt", text/plain)',
		);
	});
});

describe('File Types', () => {
	it('defaults to PDFs and images', () => {
		const binary = {
			a: file('a.pdf', 'application/pdf'),
			b: file('b.txt', 'text/plain'),
			d: file('d.png', 'image/png'),
		};
		expect(fields(binary, all)).toEqual({ files: ['a', 'd'], skipped: ['b'] });
		expect(DEFAULT_FILE_TYPES).toBe('application/pdf, image/*');
	});

	it('takes MIME types and extensions, with or without the dot', () => {
		const binary = {
			a: file('a.pdf', 'application/pdf'),
			b: file('b.txt', 'text/plain'),
			c: file('c.xml', 'application/xml'),
			d: file('d.png', 'image/png'),
		};
		expect(fields(binary, { ...all, fileTypes: 'text/plain, .xml' })).toEqual({
			files: ['b', 'c'],
			skipped: ['a', 'd'],
		});
		expect(fields(binary, { ...all, fileTypes: 'PDF' })).toEqual({
			files: ['a'],
			skipped: ['b', 'c', 'd'],
		});
		expect(fields(binary, { ...all, fileTypes: '*' }).files).toEqual(['a', 'b', 'c', 'd']);
	});

	it('a message with other File Types names them', () => {
		expect(
			selectionError({ a: file('a.pdf', 'application/pdf') }, { ...all, fileTypes: '.xml' })
				.message,
		).toBe(
			'No file of the types in File Types (.xml) on item 0: its file is a ("a.pdf", application/pdf)',
		);
	});

	it.each([
		['', /^File Types is empty: enter MIME types or file extensions/],
		[
			'application/pdf, pdf files',
			/^File Types: "pdf files" is neither a MIME type nor a file extension/,
		],
	])('%p is refused: %p', (fileTypes, message) => {
		expect(selectionError(EMAIL, { ...all, fileTypes }).message).toMatch(message);
	});
});

describe('name lists', () => {
	it('splits on commas and trims, without repeats', () => {
		expect(fields(EMAIL, list(' attachment_1 ,attachment_0,,attachment_1'))).toEqual({
			files: ['attachment_1', 'attachment_0'],
			skipped: [],
		});
	});
});
