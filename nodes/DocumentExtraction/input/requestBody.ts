import type { IExecuteFunctions } from 'n8n-workflow';

type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

// A multiple of 3 (whole base64 quads); 48 KiB measured a lower peak memory than 192 KiB (bench P2).
const STREAM_CHUNK_BYTES = 3 * 16 * 1024;

export interface SubmissionFields {
	project: string;
	document_type: string;
	max_pages?: number;
}

// A stored document up to one chunk is sent as one buffer: a service that answers before reading
// the body (a refused key) would otherwise close the connection on it and hide its answer (EPIPE).
const SMALL_BODY_BYTES = (STREAM_CHUNK_BYTES / 3) * 4;

export interface DocumentSource {
	/** Base64 held in memory by n8n's default binary mode (sent as is). */
	base64?: string;
	binaryId?: string;
	/** About how many bytes of base64 the document takes in the body. */
	bodyBytes?: number;
}

function jsonPrefix(fields: SubmissionFields): string {
	const head = JSON.stringify(fields);
	return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"file_base64":"`;
}

const JSON_SUFFIX = '"}';

/** The body as one buffer: one copy of the base64. */
function bufferBody(base64: string, fields: SubmissionFields): Buffer {
	const prefix = jsonPrefix(fields);
	const body = Buffer.allocUnsafe(Buffer.byteLength(prefix) + base64.length + JSON_SUFFIX.length);
	let offset = body.write(prefix, 0, 'utf8');
	offset += body.write(base64, offset, 'latin1');
	body.write(JSON_SUFFIX, offset, 'latin1');
	return body;
}

/** The body as a stream that base64-encodes the file chunk by chunk. */
function streamBody(file: BinaryStream, fields: SubmissionFields): BinaryStream {
	const prefix = jsonPrefix(fields);
	return file.compose(async function* (chunks: AsyncIterable<Buffer>) {
		yield Buffer.from(prefix, 'utf8');
		let carry = Buffer.alloc(0);
		for await (const chunk of chunks) {
			const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
			const whole = data.length - (data.length % 3);
			if (whole) yield Buffer.from(data.subarray(0, whole).toString('base64'), 'latin1');
			carry = Buffer.from(data.subarray(whole));
		}
		yield Buffer.from(`${carry.toString('base64')}${JSON_SUFFIX}`, 'latin1');
	}) as unknown as BinaryStream;
}

/** Builds the POST /process_file body anew for every attempt; closing a streamed one closes the file. */
export function submissionBodyFactory(
	this: IExecuteFunctions,
	source: DocumentSource,
	fields: SubmissionFields,
): () => Promise<Buffer | BinaryStream> {
	return async () => {
		if (source.base64 !== undefined) return bufferBody(source.base64, fields);
		const file = await this.helpers.getBinaryStream(source.binaryId as string, STREAM_CHUNK_BYTES);
		if ((source.bodyBytes ?? Infinity) <= SMALL_BODY_BYTES) {
			const chunks: Buffer[] = [];
			for await (const chunk of file) chunks.push(Buffer.from(chunk as Buffer));
			return bufferBody(Buffer.concat(chunks).toString('base64'), fields);
		}
		const body = streamBody(file, fields);
		body.once('close', () => {
			if (!file.destroyed) file.destroy();
		});
		return body;
	};
}
