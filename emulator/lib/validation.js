'use strict';

/**
 * Request validation producing FastAPI/pydantic-style error lists:
 * [{ loc: ['body', 'field'], msg, type }, ...]
 */

const SUPPORTED_EVENTS = ['task.completed'];

/** One error about the body: `at` is a field name, a path below it (['events', 2]) or [] for the body itself. */
function bodyError(at, msg, type, ctx) {
	return { loc: ['body', ...[].concat(at)], msg, type, ...(ctx ? { ctx } : {}) };
}

/** An error of a value below its minimum of 1 ("at least 1 characters", "greater than or equal to 1"). */
function belowOne(at, msg, type) {
	return bodyError(at, `ensure this value ${msg}`, type, { limit_value: 1 });
}

function missing(field) {
	return bodyError(field, 'field required', 'value_error.missing');
}

function notNull(field) {
	return bodyError(field, 'none is not an allowed value', 'type_error.none.not_allowed');
}

function notStr(at) {
	return bodyError(at, 'str type expected', 'type_error.str');
}

function tooShort(field) {
	return belowOne(field, 'has at least 1 characters', 'value_error.any_str.min_length');
}

function emptyFile(field) {
	return bodyError(field, 'file is empty', 'value_error.empty_file');
}

/** Checks a required non-empty string field; returns an error or null. */
function requiredString(body, field) {
	if (!Object.prototype.hasOwnProperty.call(body, field)) return missing(field);
	const value = body[field];
	if (value === null) return notNull(field);
	if (typeof value !== 'string') return notStr(field);
	if (value.length === 0) return tooShort(field);
	return null;
}

/** A body that is not a JSON object yields one error about the body itself. */
function bodyNotObject(body) {
	if (body === undefined) return [bodyError([], 'field required', 'value_error.missing')];
	if (body === null || typeof body !== 'object' || Array.isArray(body)) {
		return [bodyError([], 'value is not a valid dict', 'type_error.dict')];
	}
	return null;
}

function invalidJson(err) {
	return [bodyError([], `Invalid JSON body: ${err.message}`, 'value_error.jsondecode')];
}

const NON_BASE64 = /[^A-Za-z0-9+/=]/;
const WHITESPACE = /\s/;

/**
 * Strict base64 decoding (standard alphabet, optional padding, whitespace
 * ignored). Buffer.from alone silently skips invalid characters, so the string
 * is checked first. Linear in the input size.
 * @returns {{ok: true, buf: Buffer} | {ok: false, error: object}}
 */
function decodeBase64(field, value) {
	let str = value;
	if (WHITESPACE.test(str)) str = str.replace(/\s+/g, '');
	if (str.length === 0) {
		return { ok: false, error: emptyFile(field) };
	}
	const invalid = bodyError(field, 'value is not valid base64', 'value_error.base64');
	if (NON_BASE64.test(str)) return { ok: false, error: invalid };
	const firstPad = str.indexOf('=');
	if (firstPad !== -1) {
		const padLen = str.length - firstPad;
		if (padLen > 2 || (padLen === 2 && str[firstPad + 1] !== '=') || str.length % 4 !== 0) {
			return { ok: false, error: invalid };
		}
	} else if (str.length % 4 === 1) {
		return { ok: false, error: invalid };
	}
	const buf = Buffer.from(str, 'base64');
	if (buf.length === 0) return { ok: false, error: emptyFile(field) };
	return { ok: true, buf };
}

/**
 * Validate a POST /process_file body.
 * @returns {{errors: object[]} | {errors: null, file: Buffer, project: string, documentType: string, maxPages: number|null}}
 */
function validateProcessFile(body) {
	const shapeErrors = bodyNotObject(body);
	if (shapeErrors) return { errors: shapeErrors };

	const errors = [];
	let file = null;
	const fileErr = requiredString(body, 'file_base64');
	if (fileErr && fileErr.type === 'value_error.any_str.min_length') {
		errors.push(emptyFile('file_base64'));
	} else if (fileErr) {
		errors.push(fileErr);
	} else {
		const decoded = decodeBase64('file_base64', body.file_base64);
		if (decoded.ok) file = decoded.buf;
		else errors.push(decoded.error);
	}
	const projectErr = requiredString(body, 'project');
	if (projectErr) errors.push(projectErr);
	const typeErr = requiredString(body, 'document_type');
	if (typeErr) errors.push(typeErr);

	let maxPages = null;
	if (body.max_pages !== undefined && body.max_pages !== null) {
		const mp = body.max_pages;
		if (typeof mp !== 'number' || !Number.isInteger(mp)) {
			errors.push(bodyError('max_pages', 'value is not a valid integer', 'type_error.integer'));
		} else if (mp < 1) {
			errors.push(belowOne('max_pages', 'is greater than or equal to 1', 'value_error.number.not_ge'));
		} else {
			maxPages = mp;
		}
	}

	if (errors.length) return { errors };
	return { errors: null, file, project: body.project, documentType: body.document_type, maxPages };
}

/**
 * Validate a POST /projects/{id}/webhooks body.
 * @returns {{errors: object[]} | {errors: null, url: string, events: string[], secret: string}}
 */
function validateWebhook(body) {
	const shapeErrors = bodyNotObject(body);
	if (shapeErrors) return { errors: shapeErrors };
	const errors = [];

	const urlErr = requiredString(body, 'url');
	if (urlErr) {
		errors.push(urlErr);
	} else {
		let parsed = null;
		try {
			parsed = new URL(body.url);
		} catch {
			parsed = null;
		}
		if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) {
			errors.push(
				bodyError(
					'url',
					'invalid or missing URL scheme; an http or https URL is required',
					'value_error.url.scheme',
				),
			);
		}
	}

	if (!Object.prototype.hasOwnProperty.call(body, 'events')) {
		errors.push(missing('events'));
	} else if (!Array.isArray(body.events)) {
		errors.push(bodyError('events', 'value is not a valid list', 'type_error.list'));
	} else if (body.events.length === 0) {
		errors.push(belowOne('events', 'has at least 1 items', 'value_error.list.min_items'));
	} else {
		body.events.forEach((ev, i) => {
			if (typeof ev !== 'string') {
				errors.push(notStr(['events', i]));
			} else if (!SUPPORTED_EVENTS.includes(ev)) {
				errors.push(
					bodyError(
						['events', i],
						`unsupported event '${ev}'; only task.completed can be subscribed to`,
						'value_error.const',
						{ given: ev, permitted: SUPPORTED_EVENTS },
					),
				);
			}
		});
	}

	const secretErr = requiredString(body, 'secret');
	if (secretErr) errors.push(secretErr);

	if (errors.length) return { errors };
	return { errors: null, url: body.url, events: [...new Set(body.events)], secret: body.secret };
}

module.exports = { validateProcessFile, validateWebhook, decodeBase64, invalidJson, SUPPORTED_EVENTS };
