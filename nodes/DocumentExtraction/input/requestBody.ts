import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * The POST /process_file body: the submission fields and the document as base64, built without
 * extra copies (one buffer for a document in memory, a stream for a stored one).
 */

type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

/**
 * Chunk size for streamed files: a multiple of 3, so every chunk but the last encodes to whole
 * base64 quads. Kept small (48 KiB in, 64 KiB of base64 out): the peak resident memory while
 * streaming a file measured lower than with 192 KiB chunks (npm run bench, P2).
 */
const STREAM_CHUNK_BYTES = 3 * 16 * 1024;

export interface SubmissionFields {
	project: string;
	document_type: string;
	max_pages?: number;
}

/**
 * A stored document whose base64 is at most this long (one stream chunk) is read whole and sent
 * as one buffer. Its request then leaves complete, headers and body together: a service that
 * answers before reading the body (a refused key, an overload) cannot close the connection on a
 * body still being sent, which would hide its answer behind a broken connection (EPIPE). It also
 * spares the stream for many small documents.
 */
const SMALL_BODY_BYTES = (STREAM_CHUNK_BYTES / 3) * 4;

/** A document taken from binary data, ready to be sent without extra copies. */
export interface DocumentSource {
	fileName?: string;
	mimeType?: string;
	/** Base64 held in memory by n8n's default binary mode (sent as is, never decoded). */
	base64?: string;
	/** Id of a binary stored outside memory (filesystem and other modes), streamed on send. */
	binaryId?: string;
	/** About how many bytes the document takes in the request body (as base64). */
	bodyBytes?: number;
}

function jsonPrefix(fields: SubmissionFields): string {
	const head = JSON.stringify(fields);
	return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"file_base64":"`;
}

const JSON_SUFFIX = '"}';

/** The POST /process_file body for a document held in memory, as one buffer (one copy of the base64). */
function bufferBody(base64: string, fields: SubmissionFields): Buffer {
	const prefix = jsonPrefix(fields);
	const body = Buffer.allocUnsafe(Buffer.byteLength(prefix) + base64.length + JSON_SUFFIX.length);
	let offset = body.write(prefix, 0, 'utf8');
	offset += body.write(base64, offset, 'latin1');
	body.write(JSON_SUFFIX, offset, 'latin1');
	return body;
}

/**
 * The POST /process_file body for a stored document, as a stream that base64-encodes the file
 * chunk by chunk, so the whole file is never held in memory.
 */
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

/**
 * A factory that builds the request body anew for every attempt of the request. Closing a
 * streamed body (the transport does, however the attempt ends) also closes the file.
 */
export function submissionBodyFactory(
	this: IExecuteFunctions,
	source: DocumentSource,
	fields: SubmissionFields,
): () => Promise<Buffer | BinaryStream> {
	return async () => {
		if (source.base64 !== undefined) return bufferBody(source.base64, fields);
		const file = await this.helpers.getBinaryStream(source.binaryId as string, STREAM_CHUNK_BYTES);
		if ((source.bodyBytes ?? Infinity) <= SMALL_BODY_BYTES) {
			// A small file is read whole (one chunk) and sent as one buffer, with its headers.
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
