import { NO_DOCUMENTS, readDocuments } from '../../../../nodes/DocumentExtractionIntake/documents';

const URL = 'https://files.example.com/inv-1.pdf';
const one = (doc: unknown) => readDocuments({ documents: [doc] })![0];

describe('readDocuments', () => {
	it.each([
		undefined,
		null,
		'text',
		[],
		{},
		{ documents: [] },
		{ documents: 'a.pdf' },
		{ documents: {} },
	])('gives nothing for a body without a usable documents list: %j', (body) => {
		expect(readDocuments(body)).toBeUndefined();
		expect(NO_DOCUMENTS.kind).toBe('no_documents');
	});

	it('gives each document its key, url, file_name, position and context: every other field, as JSON', () => {
		const fields = { customer: { id: 5 }, order_id: 7, tags: ['a'], paid: false, none: null };
		expect(
			readDocuments({ documents: [{ key: 'INV-1', url: URL, file_name: 'a.pdf', ...fields }] }),
		).toEqual([
			{
				document_key: 'INV-1',
				url: URL,
				file_name: 'a.pdf',
				context: JSON.stringify({ file_name: 'a.pdf', ...fields }),
				position: 1,
			},
		]);
	});

	it.each<[string, unknown, Partial<Record<string, unknown>>]>([
		['a number key, as text', { key: 42, url: URL }, { document_key: '42' }],
		[
			'no key: the url names it',
			{ url: URL },
			{ document_key: URL, file_name: null, context: '{}' },
		],
		['a null key: the url names it', { key: null, url: URL }, { document_key: URL }],
		[
			'a null file_name',
			{ url: URL, file_name: null },
			{ file_name: null, context: '{"file_name":null}' },
		],
		['an http url', { url: 'http://127.0.0.1:8790/a.pdf' }, { url: 'http://127.0.0.1:8790/a.pdf' }],
		['context of exactly 10,000 characters', { url: URL, n: 'x'.repeat(9992) }, { position: 1 }],
	])('takes %s', (_, doc, expected) => {
		const read = one(doc);
		expect(read).toMatchObject(expected);
		expect(read.reason).toBeUndefined();
	});

	it.each<[unknown, string]>([
		['a.pdf', 'a document is a JSON object: {"url": "https://…", "key": "…", …}'],
		[null, 'a document is a JSON object: {"url": "https://…", "key": "…", …}'],
		[[URL], 'a document is a JSON object: {"url": "https://…", "key": "…", …}'],
		[{ key: 'A' }, 'url is missing'],
		[{ key: 'A', url: null }, 'url is missing'],
		[{ key: 'A', url: '' }, 'url is missing'],
		[{ key: 'A', url: 5 }, 'url is not an http or https address'],
		[{ key: 'A', url: 'ftp://files.example.com/a.pdf' }, 'url is not an http or https address'],
		[{ key: 'A', url: 'https://files.example.com/a b.pdf' }, 'url is not an http or https address'],
		[{ key: { id: 1 }, url: URL }, 'key is neither text nor a number'],
		[{ key: true, url: URL }, 'key is neither text nor a number'],
		[{ key: '', url: URL }, 'key is neither text nor a number'],
		[{ url: URL, file_name: { name: 'a' } }, 'file_name is not text'],
		[
			{ url: URL, n: 'x'.repeat(9993) },
			'its other fields take 10001 characters as JSON, more than 10000',
		],
	])('refuses %j: %s', (doc, reason) => {
		expect(one(doc).reason).toBe(reason);
	});

	it('refuses a key that repeats an earlier document it takes, in the post’s order', () => {
		const documents = [
			{ key: 'A', url: URL, file_name: 5 },
			{ key: 'A', url: URL },
			{ key: 'A', url: `${URL}?2` },
			{ url: URL },
			{ key: URL, url: `${URL}?3` },
			{ key: 1, url: URL },
			{ key: '1', url: URL },
		];
		expect(
			readDocuments({ documents })!.map((d) => [d.position, d.document_key, d.reason]),
		).toEqual([
			[1, 'A', 'file_name is not text'],
			[2, 'A', undefined],
			[3, 'A', 'the key repeats an earlier document of this post'],
			[4, URL, undefined],
			[5, URL, 'the key repeats an earlier document of this post'],
			[6, '1', undefined],
			[7, '1', 'the key repeats an earlier document of this post'],
		]);
	});
});
