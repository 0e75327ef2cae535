'use strict';

/**
 * Outbound HTTP for webhook deliveries. Only loopback targets are ever
 * contacted: the host of the URL must be 127.0.0.0/8, ::1 or "localhost", and
 * a name is resolved through a lookup that drops every non-loopback address.
 */

const http = require('node:http');
const https = require('node:https');
const net = require('node:net');
const dns = require('node:dns');
const crypto = require('node:crypto');

const REFUSED = 'non-loopback target refused';
const MAX_RESPONSE_BYTES = 1024 * 1024;

function stripBrackets(host) {
	return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** True for a literal loopback IP address (IPv4 127/8, ::1, IPv4-mapped 127/8). */
function isLoopbackAddress(address) {
	const a = stripBrackets(String(address)).toLowerCase();
	if (net.isIPv4(a)) return a.split('.')[0] === '127';
	if (net.isIPv6(a)) {
		if (a === '::1' || a === '0:0:0:0:0:0:0:1') return true;
		const mappedDotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
		if (mappedDotted) return isLoopbackAddress(mappedDotted[1]);
		// WHATWG URL normalizes ::ffff:127.0.0.1 to ::ffff:7f00:1
		return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(a);
	}
	return false;
}

/** True when a URL hostname is allowed as a delivery target. */
function isLoopbackHost(hostname) {
	const h = stripBrackets(String(hostname)).toLowerCase();
	if (h === 'localhost' || h === 'localhost.') return true;
	return isLoopbackAddress(h);
}

/** dns.lookup replacement that only ever yields loopback addresses. */
function loopbackLookup(hostname, options, callback) {
	if (typeof options === 'function') {
		callback = options;
		options = {};
	}
	const opts = typeof options === 'number' ? { family: options } : { ...options };
	dns.lookup(hostname, { ...opts, all: true }, (err, addresses) => {
		if (err) return callback(err);
		const allowed = addresses.filter((a) => isLoopbackAddress(a.address));
		if (allowed.length === 0) {
			const refused = new Error(`${REFUSED}: ${hostname} did not resolve to a loopback address`);
			refused.code = 'ENONLOOPBACK';
			return callback(refused);
		}
		if (opts.all) return callback(null, allowed);
		return callback(null, allowed[0].address, allowed[0].family);
	});
}

function sign(secret, body) {
	return crypto.createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * POST a body to a loopback URL. Never rejects.
 * @param {object} p
 * @param {string} p.url
 * @param {Buffer} p.body
 * @param {Record<string,string>} p.headers
 * @param {number} p.timeoutMs  total time allowed for the answer
 * @param {Set<import('node:http').ClientRequest>} p.active  requests in flight, for abort on close
 * @returns {Promise<{status_code: number|null, body: string|null, error: string|null, duration_ms: number, refused: boolean}>}
 */
function postLoopback({ url, body, headers, timeoutMs, active }) {
	const started = process.hrtime.bigint();
	const elapsed = () => Number((process.hrtime.bigint() - started) / 1000n) / 1000;
	return new Promise((resolve) => {
		let target;
		try {
			target = new URL(url);
		} catch {
			resolve({ status_code: null, body: null, error: 'invalid URL', duration_ms: 0, refused: false });
			return;
		}
		if (target.protocol !== 'http:' && target.protocol !== 'https:') {
			resolve({ status_code: null, body: null, error: 'unsupported URL scheme', duration_ms: 0, refused: false });
			return;
		}
		if (!isLoopbackHost(target.hostname)) {
			resolve({ status_code: null, body: null, error: REFUSED, duration_ms: 0, refused: true });
			return;
		}
		const isHttps = target.protocol === 'https:';
		const options = {
			method: 'POST',
			hostname: stripBrackets(target.hostname),
			port: target.port || (isHttps ? 443 : 80),
			path: `${target.pathname}${target.search}`,
			headers: { ...headers, 'Content-Length': String(body.length), Connection: 'close' },
			agent: false,
			lookup: loopbackLookup,
		};
		// Local receivers typically use self-signed certificates; the target is loopback-only.
		if (isHttps) options.rejectUnauthorized = false;

		let settled = false;
		let req = null;
		const finish = (outcome) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			if (req) active.delete(req);
			resolve({ body: null, refused: false, ...outcome, duration_ms: elapsed() });
		};
		const timer = setTimeout(() => {
			finish({ status_code: null, error: `no answer within ${timeoutMs} ms` });
			if (req) req.destroy();
		}, timeoutMs);

		try {
			req = (isHttps ? https : http).request(options);
		} catch (err) {
			finish({ status_code: null, error: err.message });
			return;
		}
		active.add(req);
		req.on('response', (res) => {
			const chunks = [];
			let size = 0;
			res.on('data', (chunk) => {
				if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
				size += chunk.length;
			});
			res.on('end', () => {
				finish({
					status_code: res.statusCode,
					body: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8'),
					error: null,
				});
			});
			res.on('error', (err) => finish({ status_code: res.statusCode, error: err.message }));
			res.on('close', () => {
				if (!res.complete) finish({ status_code: res.statusCode, error: 'response aborted' });
			});
		});
		req.on('error', (err) => {
			const refused = err.code === 'ENONLOOPBACK';
			finish({
				status_code: null,
				error: refused ? REFUSED : err.code ? `${err.code}: ${err.message}` : err.message,
				refused,
			});
		});
		req.end(body);
	});
}

module.exports = { postLoopback, isLoopbackHost, isLoopbackAddress, loopbackLookup, sign, REFUSED };
