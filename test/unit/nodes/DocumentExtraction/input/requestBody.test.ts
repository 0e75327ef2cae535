import {
	bufferBody,
	SMALL_BODY_BYTES,
	STREAM_CHUNK_BYTES,
	streamBody,
	submissionBodyFactory,
} from '../../../../../nodes/DocumentExtraction/input/requestBody';
import { createContext } from '../../../helpers/context';

const fields = { project: 'Invoices', document_type: 'invoice', max_pages: 2 };

async function collect(stream: AsyncIterable<Buffer>): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(Buffer.from(chunk));
	return Buffer.concat(chunks).toString('utf8');
}

describe('request bodies', () => {
	it('builds the JSON body around base64 held in memory', () => {
		const base64 = Buffer.from('%PDF-1.7').toString('base64');
		expect(JSON.parse(bufferBody(base64, fields).toString('utf8'))).toEqual({
			...fields,
			file_base64: base64,
		});
	});

	it('streams the same body for a stored file, whatever the chunk boundaries', async () => {
		const bytes = Buffer.alloc(STREAM_CHUNK_BYTES * 2 + 5);
		for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + 3) % 256;
		const store = new Map([['fs-1', bytes]]);
		// Chunks of a size that is not a multiple of 3, as a binary store may hand them out.
		const file = await createContext({ params: {}, store }).helpers.getBinaryStream('fs-1', 1000);
		const body = await collect(streamBody(file, fields) as AsyncIterable<Buffer>);
		expect(body).toBe(bufferBody(bytes.toString('base64'), fields).toString('utf8'));
	});

	it('sends a small stored file as one buffer, and a larger one as a stream', async () => {
		const small = Buffer.alloc(STREAM_CHUNK_BYTES, 5);
		const large = Buffer.alloc(STREAM_CHUNK_BYTES + 1, 6);
		const store = new Map([
			['fs-small', small],
			['fs-large', large],
		]);
		const ctx = createContext({ params: {}, store });
		const source = (id: string, bytes: Buffer) => ({
			binaryId: id,
			bodyBytes: Math.ceil(bytes.length / 3) * 4,
		});
		expect(source('fs-small', small).bodyBytes).toBe(SMALL_BODY_BYTES);

		const smallBody = await submissionBodyFactory.call(ctx, source('fs-small', small), fields)();
		// A buffer goes out whole with its headers: no connection closed under a body half sent.
		expect(Buffer.isBuffer(smallBody)).toBe(true);
		expect((smallBody as Buffer).equals(bufferBody(small.toString('base64'), fields))).toBe(true);

		const largeBody = await submissionBodyFactory.call(ctx, source('fs-large', large), fields)();
		expect(Buffer.isBuffer(largeBody)).toBe(false);
		expect(await collect(largeBody as AsyncIterable<Buffer>)).toBe(
			bufferBody(large.toString('base64'), fields).toString('utf8'),
		);
	});
});
