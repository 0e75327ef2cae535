'use strict';

/**
 * Sample documents served by URL, for nodes that download a document themselves:
 * GET /_emulator/files/<name> (no authentication). Query parameters shape the answer:
 *
 *   type=<mime>        Content-Type (default from the name: .pdf, .png, .jpg, .txt, .html, .json;
 *                      else application/octet-stream); type=none sends none
 *   size=<bytes>       the body is the sample padded (or cut) to exactly this many bytes
 *   redirect=<n>       answers 302 n times (to the same URL with redirect=n-1) before the file
 *   status=<code>      answers this status with a JSON detail instead of the file
 *   empty=1            200 with an empty body
 *   disposition=<name> Content-Disposition: attachment; filename="<name>"
 *   chunked=1          no Content-Length (chunked transfer)
 *   delay_ms=<ms>      waits this long before answering
 *
 * The body is generated in chunks (large files are never held whole) and is the same for the
 * same name and size; the X-Content-SHA256 header carries its SHA-256. Every answered file is
 * listed by GET /_emulator/files as {name, size, sha256, at}.
 */

const crypto = require('node:crypto');

const { sleep, nowIso } = require('./context.js');
const { sendJson } = require('./http.js');
const { samplePdf } = require('./pdf.js');

const CHUNK_BYTES = 64 * 1024;
const MAX_SIZE = 1024 * 1024 * 1024;

const TYPES = {
	pdf: 'application/pdf',
	png: 'image/png',
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	txt: 'text/plain',
	html: 'text/html; charset=utf-8',
	json: 'application/json',
};

/** The head of a file: a PDF for .pdf names, else a few bytes naming the file. */
function sampleHead(name) {
	if (/\.pdf$/i.test(name)) return samplePdf(`INVOICE ${name} served by the emulator`);
	return Buffer.from(`Sample file ${name} served by the emulator\n`, 'utf8');
}

/** The padding block after the head: bytes derived from the name (no page markers, no fail marker). */
function paddingBlock(name) {
	const block = Buffer.alloc(CHUNK_BYTES);
	let seed = crypto.createHash('sha256').update(`pad:${name}`).digest();
	for (let offset = 0; offset < block.length; offset += seed.length) {
		seed.copy(block, offset);
		seed = crypto.createHash('sha256').update(seed).digest();
	}
	return block;
}

/** The chunks of a file of `size` bytes (the natural size when undefined). */
function* fileChunks(name, size) {
	const head = sampleHead(name);
	const total = size === undefined ? head.length : size;
	if (total <= head.length) {
		yield head.subarray(0, total);
		return;
	}
	yield head;
	const block = paddingBlock(name);
	for (let left = total - head.length; left > 0; left -= block.length) {
		yield left >= block.length ? block : block.subarray(0, left);
	}
}

function fileDigest(name, size) {
	const hash = crypto.createHash('sha256');
	for (const chunk of fileChunks(name, size)) hash.update(chunk);
	return hash.digest('hex');
}

/** The bytes of a served file, whole (for tests; the route itself streams). */
function fileBytes(name, size) {
	return Buffer.concat([...fileChunks(name, size)]);
}

function typeOf(name, type) {
	if (type === 'none') return undefined;
	if (type) return type;
	const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
	return TYPES[ext] ?? 'application/octet-stream';
}

function intParam(url, key, min, max) {
	const raw = url.searchParams.get(key);
	if (raw === null) return { value: undefined };
	const value = Number(raw);
	if (!Number.isInteger(value) || value < min || value > max) {
		return { error: `${key} must be an integer ${min}..${max}` };
	}
	return { value };
}

/** Writes the chunks, respecting back-pressure; resolves when done or when the client left. */
async function writeChunks(res, chunks) {
	for (const chunk of chunks) {
		if (res.destroyed) return;
		if (!res.write(chunk)) {
			await new Promise((resolve) => {
				const done = () => {
					res.off('drain', done);
					res.off('close', done);
					resolve();
				};
				res.on('drain', done);
				res.on('close', done);
			});
		}
	}
	if (!res.destroyed) res.end();
}

/** GET /_emulator/files/<name>. */
async function handleFile(ctx, req, res, url, name) {
	const params = {};
	for (const [key, min, max] of [
		['size', 0, MAX_SIZE],
		['redirect', 0, 20],
		['status', 100, 599],
		['delay_ms', 0, 600000],
	]) {
		const { value, error } = intParam(url, key, min, max);
		if (error) return sendJson(res, 422, { detail: error });
		params[key] = value;
	}
	if (!name || name.includes('/')) return sendJson(res, 422, { detail: 'a file name is required' });
	if (params.delay_ms) await sleep(ctx, params.delay_ms);
	if (params.redirect) {
		const next = new URL(url.toString());
		next.searchParams.set('redirect', String(params.redirect - 1));
		res.writeHead(302, { Location: `${next.pathname}${next.search}`, 'Content-Length': 0 });
		return res.end();
	}
	if (params.status)
		return sendJson(res, params.status, { detail: `Injected status ${params.status}` });

	const empty = url.searchParams.get('empty') === '1';
	const size = empty ? 0 : params.size;
	const type = typeOf(name, url.searchParams.get('type') ?? undefined);
	const headers = {};
	if (type) headers['Content-Type'] = type;
	const disposition = url.searchParams.get('disposition');
	if (disposition)
		headers['Content-Disposition'] = `attachment; filename="${disposition.replace(/"/g, '')}"`;
	const total = size ?? sampleHead(name).length;
	if (url.searchParams.get('chunked') !== '1') headers['Content-Length'] = total;
	const sha256 = fileDigest(name, size);
	headers['X-Content-SHA256'] = sha256;
	ctx.state.files.push({ name, size: total, sha256, at: nowIso() });
	res.writeHead(200, headers);
	if (req.method === 'HEAD' || total === 0) return res.end();
	return writeChunks(res, fileChunks(name, size));
}

module.exports = { handleFile, fileBytes, fileDigest, samplePdf };
