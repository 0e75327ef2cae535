import type { IBinaryKeyData } from 'n8n-workflow';

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

/** A file whose size n8n keeps in its metadata (IBinaryData.bytes), as its binary data helpers do. */
const sized = (fileName: string, mimeType: string, bytes: number) => ({
	...file(fileName, mimeType),
	bytes,
});

/** An email item as n8n's email triggers output it: two invoices and a text file. */
const EMAIL: IBinaryKeyData = {
	attachment_0: file('invoice-1.pdf', 'application/pdf'),
	attachment_1: file('invoice-2.pdf', 'application/pdf'),
	attachment_2: file('notes.txt', 'text/plain'),
};
const TYPES = {
	a: file('a.pdf', 'application/pdf'),
	b: file('b.txt', 'text/plain'),
	c: file('c.xml', 'application/xml'),
	d: file('d.png', 'image/png'),
};

const all = (fileTypes?: string): FileSelection => ({ filesToSend: 'all', fileTypes });
const list = (names: string): FileSelection => ({
	filesToSend: 'list',
	binaryPropertyNames: names,
});

const fields = (binary: IBinaryKeyData | undefined, selection: FileSelection) => {
	const { files, skipped } = selectFiles(ctx, binary, selection, 0);
	return { files: files.map((f) => f.field), skipped: skipped.map((f) => f.field) };
};

describe('Files to Send: the files selected', () => {
	it.each([
		[
			'every PDF and image, in the item order',
			EMAIL,
			all(),
			['attachment_0', 'attachment_1'],
			['attachment_2'],
		],
		[
			'the fields named, in that order, trimmed, without repeats',
			EMAIL,
			list(' attachment_1 ,attachment_0,, attachment_1'),
			['attachment_1', 'attachment_0'],
			[],
		],
		[
			'of the fields named, those that count',
			EMAIL,
			list('attachment_0, attachment_2'),
			['attachment_0'],
			['attachment_2'],
		],
		[
			'images and a PDF sent as application/octet-stream (judged by its name)',
			{
				logo: file('logo.png', 'image/png'),
				scan: file('scan.TIFF', 'image/tiff'),
				mailed: file('Rechnung.PDF', 'application/octet-stream'),
				untyped: file('receipt.jpg', ''),
				calendar: file('invite.ics', 'text/calendar'),
				blob: file(undefined, 'application/octet-stream'),
			},
			all(),
			['logo', 'scan', 'mailed', 'untyped'],
			['calendar', 'blob'],
		],
		[
			'File Types by MIME type and extension',
			TYPES,
			all('text/plain, .xml'),
			['b', 'c'],
			['a', 'd'],
		],
		['File Types by an extension without the dot', TYPES, all('PDF'), ['a'], ['b', 'c', 'd']],
		['File Types *', TYPES, all('*'), ['a', 'b', 'c', 'd'], []],
	])('sends %s, and skips the others', (_name, binary, selection, files, skipped) => {
		expect(fields(binary, selection)).toEqual({ files, skipped });
	});

	it.each([
		[
			'an item with no file that counts, listing what it had',
			{
				attachment_0: file('notes.txt', 'text/plain'),
				attachment_1: file('invite.ics', 'text/calendar'),
			},
			all(),
			3,
			'No PDF or image on item 3: its 2 files are attachment_0 ("notes.txt", text/plain), attachment_1 ("invite.ics", text/calendar)',
			/Add the type of the file to File Types/,
		],
		[
			'an item with one file that does not count, in the singular',
			{ attachment_0: file('notes.txt', 'text/plain') },
			all(),
			0,
			'No PDF or image on item 0: its file is attachment_0 ("notes.txt", text/plain)',
			undefined,
		],
		[
			'an item without binary data, naming the email without attachments and the option that lets it pass',
			undefined,
			all(),
			2,
			'No binary data on item 2: there is no file to send',
			/^An email without attachments gives such an item, Download Attachments on or off\. .*set the option Items Without a Document to Skip/,
		],
		[
			'an item whose only image is under Skip Images Smaller Than, naming its size',
			{ attachment_0: sized('image001.png', 'image/png', 7000) },
			{ ...all(), minImageKb: 20 },
			0,
			'No PDF or image (images from 20 KB) on item 0: its file is attachment_0 ("image001.png", image/png, 6.9 KB)',
			/Items Without a Document to Skip/,
		],
		[
			'a name the item does not have, listing the fields it has',
			EMAIL,
			list('attachment_0, attachment_5'),
			1,
			'No binary field "attachment_5" on item 1: set Input Binary Fields to fields the item has, or Files to Send to All Binary Fields',
			/^This item has these binary fields: attachment_0 \("invoice-1.pdf", application\/pdf\), attachment_1 .*, attachment_2 \("notes.txt", text\/plain\)\.$/,
		],
		[
			'an empty list',
			EMAIL,
			list(' , '),
			0,
			/^No binary field names given in Input Binary Fields: .* for example attachment_0, attachment_1$/,
			undefined,
		],
		[
			'only named files that do not count',
			EMAIL,
			list('attachment_2'),
			0,
			'No PDF or image on item 0: its file is attachment_2 ("notes.txt", text/plain)',
			undefined,
		],
		[
			'other File Types, naming them',
			{ a: file('a.pdf', 'application/pdf') },
			all('.xml'),
			0,
			'No file of the types in File Types (.xml) on item 0: its file is a ("a.pdf", application/pdf)',
			undefined,
		],
		[
			'empty File Types',
			EMAIL,
			all(''),
			0,
			/^File Types is empty: enter MIME types or file extensions/,
			undefined,
		],
		[
			'a File Types entry that is neither',
			EMAIL,
			all('application/pdf, pdf files'),
			0,
			/^File Types: "pdf files" is neither a MIME type nor a file extension/,
			undefined,
		],
	])('refuses %s', (_name, binary, selection, itemIndex, message, description) => {
		let error: (Error & { description?: string }) | undefined;
		try {
			selectFiles(ctx, binary as IBinaryKeyData | undefined, selection, itemIndex);
		} catch (thrown) {
			error = thrown as Error & { description?: string };
		}
		expect(failureKind(error)).toBe('invalid_input');
		expect(error!.message).toMatch(message);
		if (description) expect(error!.description).toMatch(description);
	});

	it('Skip Images Smaller Than: an image under it is not sent, by the size n8n keeps (2.x: bytes; 1.x: only the words of fileSize); a PDF of any size and an image of unknown size are', () => {
		const stored = {
			id: 'filesystem-v2:workflows/1/executions/2/binary_data/3',
			data: 'filesystem-v2',
		};
		const binary: IBinaryKeyData = {
			logo: sized('image001.png', 'image/png', 7 * 1024),
			receipt: sized('receipt.jpg', 'image/jpeg', 20 * 1024),
			pixel: { ...file('pixel.gif', 'image/gif'), fileSize: '43 B' },
			icon: { ...file('x.png', 'image/png'), ...stored, fileSize: '1.1 kB' },
			scan: { ...file('scan.png', 'image/png'), ...stored, fileSize: '1.2 MB' },
			tiny: sized('credit-note.pdf', 'application/pdf', 900),
			unknown: { ...file('photo.png', 'image/png'), ...stored },
		};
		const { files, skipped } = selectFiles(ctx, binary, { ...all(), minImageKb: 20 }, 0);
		expect(files.map((f) => f.field)).toEqual(['receipt', 'scan', 'tiny', 'unknown']);
		expect(skipped.map((f) => [f.field, f.bytes, f.small])).toEqual([
			['logo', 7 * 1024, true],
			['pixel', 43, true],
			['icon', 1100, true],
		]);
		expect(fields(binary, all())).toEqual({ files: Object.keys(binary), skipped: [] });
	});

	it.each([
		['no binary data', undefined, []],
		['only a text file', { attachment_0: file('notes.txt', 'text/plain') }, ['attachment_0']],
		['only a small logo', { attachment_0: sized('logo.png', 'image/png', 3000) }, ['attachment_0']],
	])(
		'Items Without a Document: Skip: an item with %s gives no file and no error',
		(_name, binary, skipped) => {
			const selection = { ...all(), minImageKb: 20, skipWithoutDocument: true };
			expect(fields(binary, selection)).toEqual({ files: [], skipped });
		},
	);

	it('names the first ten files of a large item and counts the rest', () => {
		const binary: IBinaryKeyData = {};
		for (let i = 0; i < 12; i++) binary[`attachment_${i}`] = file(`f${i}.txt`, 'text/plain');
		expect(() => selectFiles(ctx, binary, all(), 0)).toThrow(
			/its 12 files are attachment_0 .* attachment_9 \("f9.txt", text\/plain\) and 2 more$/,
		);
	});
});
