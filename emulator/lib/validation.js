'use strict';

/**
 * Request validation producing FastAPI/pydantic-style error lists:
 * [{ loc: ['body', 'field'], msg, type }, ...]
 */

const SUPPORTED_EVENTS = ['task.completed'];

function missing(field) {
	return { loc: ['body', field], msg: 'field required', type: 'value_error.missing' };
}

function notNull(field) {
	return { loc: ['body', field], msg: 'none is not an allowed value', type: 'type_error.none.not_allowed' };
}

function notStr(field) {
	return { loc: ['body', field], msg: 'str type expected', type: 'type_error.str' };
}

function tooShort(field) {
	return {
		loc: ['body', field],
		msg: 'ensure this value has at least 1 characters',
		type: 'value_error.any_str.min_length',
		ctx: { limit_value: 1 },
	};
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
	if (body === undefined) return [{ loc: ['body'], msg: 'field required', type: 'value_error.missing' }];
	if (body === null || typeof body !== 'object' || Array.isArray(body)) {
		return [{ loc: ['body'], msg: 'value is not a valid dict', type: 'type_error.dict' }];
	}
	return null;
}

function invalidJson(err) {
	return [{ loc: ['body'], msg: `Invalid JSON body: ${err.message}`, type: 'value_error.jsondecode' }];
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
		return { ok: false, error: { loc: ['body', field], msg: 'file is empty', type: 'value_error.empty_file' } };
	}
	const invalid = { loc: ['body', field], msg: 'value is not valid base64', type: 'value_error.base64' };
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
	if (buf.length === 0) {
		return { ok: false, error: { loc: ['body', field], msg: 'file is empty', type: 'value_error.empty_file' } };
	}
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
		errors.push({ loc: ['body', 'file_base64'], msg: 'file is empty', type: 'value_error.empty_file' });
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
			errors.push({ loc: ['body', 'max_pages'], msg: 'value is not a valid integer', type: 'type_error.integer' });
		} else if (mp < 1) {
			errors.push({
				loc: ['body', 'max_pages'],
				msg: 'ensure this value is greater than or equal to 1',
				type: 'value_error.number.not_ge',
				ctx: { limit_value: 1 },
			});
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
			errors.push({
				loc: ['body', 'url'],
				msg: 'invalid or missing URL scheme; an http or https URL is required',
				type: 'value_error.url.scheme',
			});
		}
	}

	if (!Object.prototype.hasOwnProperty.call(body, 'events')) {
		errors.push(missing('events'));
	} else if (!Array.isArray(body.events)) {
		errors.push({ loc: ['body', 'events'], msg: 'value is not a valid list', type: 'type_error.list' });
	} else if (body.events.length === 0) {
		errors.push({
			loc: ['body', 'events'],
			msg: 'ensure this value has at least 1 items',
			type: 'value_error.list.min_items',
			ctx: { limit_value: 1 },
		});
	} else {
		body.events.forEach((ev, i) => {
			if (typeof ev !== 'string') {
				errors.push({ loc: ['body', 'events', i], msg: 'str type expected', type: 'type_error.str' });
			} else if (!SUPPORTED_EVENTS.includes(ev)) {
				errors.push({
					loc: ['body', 'events', i],
					msg: `unsupported event '${ev}'; only task.completed can be subscribed to`,
					type: 'value_error.const',
					ctx: { given: ev, permitted: SUPPORTED_EVENTS },
				});
			}
		});
	}

	const secretErr = requiredString(body, 'secret');
	if (secretErr) errors.push(secretErr);

	if (errors.length) return { errors };
	return { errors: null, url: body.url, events: [...new Set(body.events)], secret: body.secret };
}

module.exports = { validateProcessFile, validateWebhook, decodeBase64, invalidJson, SUPPORTED_EVENTS };
