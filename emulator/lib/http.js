'use strict';

/** JSON over node:http: answers, size-limited body reading and parsing. */

const { invalidJson } = require('./validation.js');

/** Body limit of the small JSON requests (webhook registration, admin). */
const ADMIN_BODY_LIMIT = 16 * 1024 * 1024;

function sendJson(res, status, payload, headers = {}) {
	if (res.headersSent || res.destroyed) return;
	const body = JSON.stringify(payload);
	res.writeHead(status, {
		'Content-Type': 'application/json',
		'Content-Length': Buffer.byteLength(body),
		...headers,
	});
	res.end(body);
}

/**
 * Read a request body into one Buffer. Stops storing (but keeps draining) once
 * the limit is exceeded, so the client still receives the 413 answer.
 */
function readBody(req, limit) {
	return new Promise((resolve) => {
		const declared = Number(req.headers['content-length']);
		if (Number.isFinite(declared) && declared > limit) {
			resolve({ tooLarge: true });
			return;
		}
		let chunks = [];
		let size = 0;
		let done = false;
		const settle = (value) => {
			if (done) return;
			done = true;
			resolve(value);
		};
		req.on('data', (chunk) => {
			if (done) return;
			size += chunk.length;
			if (size > limit) {
				chunks = [];
				settle({ tooLarge: true });
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => {
			const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
			chunks = [];
			settle({ buf });
		});
		req.on('error', () => settle({ aborted: true }));
		req.on('close', () => settle({ aborted: true }));
	});
}

/** Parse a JSON body; returns {value} or {error}. An empty body yields value undefined. */
function parseJson(buf) {
	if (!buf || buf.length === 0) return { value: undefined };
	try {
		return { value: JSON.parse(buf.toString('utf8')) };
	} catch (err) {
		return { error: err };
	}
}

/**
 * Reads and parses a JSON body. Answers 413 (too large) or 422 (not JSON) itself and
 * then returns {done: true}; otherwise {done: false, value}.
 */
async function readJsonOrRespond(req, res, limit) {
	const body = await readBody(req, limit);
	if (body.aborted) return { done: true };
	if (body.tooLarge) {
		sendJson(res, 413, { detail: `Request body too large (limit ${limit} bytes)` }, { Connection: 'close' });
		return { done: true };
	}
	const parsed = parseJson(body.buf);
	if (parsed.error) {
		sendJson(res, 422, { detail: invalidJson(parsed.error) });
		return { done: true };
	}
	return { done: false, value: parsed.value };
}

/** Reads a JSON body that must be an object; answers 422 itself otherwise. Returns the object or null. */
async function readJsonObject(req, res, limit) {
	const body = await readJsonOrRespond(req, res, limit);
	if (body.done) return null;
	const b = body.value;
	if (!b || typeof b !== 'object' || Array.isArray(b)) {
		sendJson(res, 422, { detail: 'body must be a JSON object' });
		return null;
	}
	return b;
}

module.exports = { ADMIN_BODY_LIMIT, sendJson, readBody, parseJson, readJsonOrRespond, readJsonObject };
