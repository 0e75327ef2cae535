import { submissionBodyFactory } from '../../../../../nodes/DocumentExtraction/input/requestBody';
import { createContext } from '../../../helpers/context';

const fields = { project: 'Invoices', document_type: 'invoice', max_pages: 2 };
/** The chunk a stored file is read in (48 KiB): a file up to it is sent as one buffer. */
const CHUNK = 3 * 16 * 1024;

async function text(body: Buffer | AsyncIterable<Buffer>): Promise<string> {
	if (Buffer.isBuffer(body)) return body.toString('utf8');
	const chunks: Buffer[] = [];
	for await (const chunk of body) chunks.push(Buffer.from(chunk));
	return Buffer.concat(chunks).toString('utf8');
}

const expected = (bytes: Buffer) => ({ ...fields, file_base64: bytes.toString('base64') });

describe('the POST /process_file body', () => {
	it('sends a small stored file as one buffer, and a larger one as a stream, whatever the chunk boundaries', async () => {
		const small = Buffer.alloc(CHUNK, 5);
		const large = Buffer.alloc(CHUNK * 2 + 5);
		for (let i = 0; i < large.length; i++) large[i] = (i * 7 + 3) % 256;
		const store = new Map([
			['fs-small', small],
			['fs-large', large],
		]);
		const ctx = createContext({ params: {}, store });
		// chunks of a size that is not a multiple of 3, as a binary store may hand them out
		const { getBinaryStream } = ctx.helpers;
		ctx.helpers.getBinaryStream = async (id: string) => await getBinaryStream(id, 1000);
		const source = (binaryId: string, bytes: Buffer) => ({
			binaryId,
			bodyBytes: Math.ceil(bytes.length / 3) * 4,
		});
		// A buffer goes out whole with its headers: no connection closed under a body half sent.
		const smallBody = await submissionBodyFactory.call(ctx, source('fs-small', small), fields)();
		expect(Buffer.isBuffer(smallBody)).toBe(true);
		expect(JSON.parse(await text(smallBody as Buffer))).toEqual(expected(small));
		const largeBody = await submissionBodyFactory.call(ctx, source('fs-large', large), fields)();
		expect(Buffer.isBuffer(largeBody)).toBe(false);
		expect(JSON.parse(await text(largeBody as AsyncIterable<Buffer>))).toEqual(expected(large));
	});
});
