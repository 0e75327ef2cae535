'use strict';

/**
 * The limits a production service and its gateway show, switched on from the tests:
 * - a rate limit (token bucket over every service request, 429 with Retry-After);
 * - trickling answers (headers at once, then a byte at a time);
 * - an https-only policy for webhook URLs (422 like the service's validation);
 * - counts of sample-file downloads in flight, to check a client's concurrency.
 * Every function takes the shared context `ctx` first; the state lives in ctx.state.limits.
 */

const { sendJson, readJsonObject, ADMIN_BODY_LIMIT } = require('./http.js');

const RETRY_AFTER_FORMS = ['seconds', 'date', 'none'];

function emptyLimits() {
	return {
		rateLimit: null, // {per_second, burst, retry_after, tokens, refilledAt}
		trickles: [], // {endpoint, remaining, interval_ms, duration_ms}
		httpsOnlyWebhooks: false,
		counts: { rate_limited: 0, accepted: 0, trickled: 0 },
		downloads: { in_flight: 0, max_in_flight: 0, total: 0 },
	};
}

function limitsOf(ctx) {
	ctx.state.limits ??= emptyLimits();
	return ctx.state.limits;
}

function resetLimits(ctx) {
	ctx.state.limits = emptyLimits();
}

function publicLimits(ctx) {
	const l = limitsOf(ctx);
	const rate = l.rateLimit && {
		per_second: l.rateLimit.per_second,
		burst: l.rateLimit.burst,
		retry_after: l.rateLimit.retry_after,
	};
	return {
		rate_limit: rate,
		trickles: l.trickles.map((t) => ({ ...t })),
		https_only_webhooks: l.httpsOnlyWebhooks,
		counts: { ...l.counts },
		downloads: { ...l.downloads },
	};
}

// -------------------------------------------------------------- rate limit

/**
 * Takes a token for one service request. Returns null when the request may go on, else the
 * milliseconds until a token is free (the request is then answered 429 by `rateLimit`).
 */
function takeToken(ctx, now = Date.now()) {
	const l = limitsOf(ctx);
	const r = l.rateLimit;
	if (!r) return null;
	r.tokens = Math.min(r.burst, r.tokens + ((now - r.refilledAt) / 1000) * r.per_second);
	r.refilledAt = now;
	if (r.tokens >= 1) {
		r.tokens -= 1;
		l.counts.accepted += 1;
		return null;
	}
	l.counts.rate_limited += 1;
	return Math.ceil(((1 - r.tokens) / r.per_second) * 1000);
}

/** Answers 429 when the rate limit is exceeded; returns true when it did. */
function rateLimit(ctx, res) {
	const waitMs = takeToken(ctx);
	if (waitMs === null) return false;
	const form = limitsOf(ctx).rateLimit.retry_after;
	const headers = {};
	if (form === 'seconds') headers['Retry-After'] = String(Math.max(1, Math.ceil(waitMs / 1000)));
	if (form === 'date')
		headers['Retry-After'] = new Date(Date.now() + Math.max(1000, waitMs)).toUTCString();
	const { per_second: perSecond } = limitsOf(ctx).rateLimit;
	sendJson(res, 429, { detail: `Rate limit exceeded: ${perSecond} requests per second` }, headers);
	return true;
}

async function handleRateLimit(ctx, req, res) {
	if (req.method === 'DELETE') {
		limitsOf(ctx).rateLimit = null;
		return sendJson(res, 200, publicLimits(ctx));
	}
	const b = await readJsonObject(req, res, ADMIN_BODY_LIMIT);
	if (!b) return undefined;
	const perSecond = b.per_second;
	if (typeof perSecond !== 'number' || !(perSecond > 0)) {
		return sendJson(res, 422, { detail: 'per_second must be a number > 0' });
	}
	const burst = b.burst ?? Math.max(1, perSecond);
	if (typeof burst !== 'number' || !(burst >= 1))
		return sendJson(res, 422, { detail: 'burst must be a number >= 1' });
	const retryAfter = b.retry_after ?? 'seconds';
	if (!RETRY_AFTER_FORMS.includes(retryAfter)) {
		return sendJson(res, 422, {
			detail: `retry_after must be one of ${RETRY_AFTER_FORMS.join(', ')}`,
		});
	}
	limitsOf(ctx).rateLimit = {
		per_second: perSecond,
		burst,
		retry_after: retryAfter,
		tokens: burst,
		refilledAt: Date.now(),
	};
	ctx.log(`rate limit: ${perSecond}/s, burst ${burst}, Retry-After ${retryAfter}`);
	return sendJson(res, 201, publicLimits(ctx));
}

// ----------------------------------------------------------------- trickle

/**
 * When a trickle is set for `endpoint`, the request is handled as usual but its answer is sent
 * slowly: the headers at once, then one space (JSON allows leading white space) every
 * `interval_ms` for `duration_ms`, then the body.
 */
function trickleAnswer(ctx, endpoint, res) {
	const l = limitsOf(ctx);
	const index = l.trickles.findIndex((t) => t.endpoint === endpoint && t.remaining > 0);
	if (index === -1) return;
	const trickle = l.trickles[index];
	trickle.remaining -= 1;
	if (trickle.remaining <= 0) l.trickles.splice(index, 1);
	l.counts.trickled += 1;
	const writeHead = res.writeHead.bind(res);
	const end = res.end.bind(res);
	res.writeHead = (status, headers = {}) => {
		const rest = { ...headers };
		for (const name of Object.keys(rest))
			if (name.toLowerCase() === 'content-length') delete rest[name];
		writeHead(status, rest);
		res.flushHeaders();
		return res;
	};
	res.end = (body) => {
		const started = Date.now();
		const timer = setInterval(() => {
			if (res.destroyed) {
				clearInterval(timer);
				return;
			}
			if (Date.now() - started >= trickle.duration_ms) {
				clearInterval(timer);
				end(body);
				return;
			}
			res.write(' ');
		}, trickle.interval_ms);
		res.once('close', () => clearInterval(timer));
		return res;
	};
}

async function handleTrickle(ctx, req, res) {
	if (req.method === 'DELETE') {
		limitsOf(ctx).trickles.length = 0;
		return sendJson(res, 200, publicLimits(ctx));
	}
	const b = await readJsonObject(req, res, ADMIN_BODY_LIMIT);
	if (!b) return undefined;
	const { endpoint, interval_ms: intervalMs, duration_ms: durationMs } = b;
	const count = b.count ?? 1;
	if (typeof endpoint !== 'string' || !endpoint)
		return sendJson(res, 422, { detail: 'endpoint is required' });
	if (!Number.isInteger(count) || count < 1)
		return sendJson(res, 422, { detail: 'count must be an integer >= 1' });
	if (typeof intervalMs !== 'number' || !(intervalMs > 0))
		return sendJson(res, 422, { detail: 'interval_ms must be a number > 0' });
	if (typeof durationMs !== 'number' || !(durationMs >= 0))
		return sendJson(res, 422, { detail: 'duration_ms must be a number >= 0' });
	limitsOf(ctx).trickles.push({
		endpoint,
		remaining: count,
		interval_ms: intervalMs,
		duration_ms: durationMs,
	});
	return sendJson(res, 201, publicLimits(ctx));
}

// ------------------------------------------------------- webhook URL policy

/** The 422 entry for a webhook URL the policy refuses, or null. */
function webhookPolicyError(ctx, url) {
	if (!limitsOf(ctx).httpsOnlyWebhooks || /^https:\/\//i.test(String(url))) return null;
	return {
		loc: ['body', 'url'],
		msg: 'URL scheme should be https',
		type: 'value_error.url.scheme',
	};
}

async function handleWebhookPolicy(ctx, req, res) {
	const b = await readJsonObject(req, res, ADMIN_BODY_LIMIT);
	if (!b) return undefined;
	if (typeof b.https_only !== 'boolean')
		return sendJson(res, 422, { detail: 'https_only must be true or false' });
	limitsOf(ctx).httpsOnlyWebhooks = b.https_only;
	return sendJson(res, 200, publicLimits(ctx));
}

// --------------------------------------------------------------- downloads

/** Counts a sample-file download in flight until its answer is closed. */
function trackDownload(ctx, res) {
	const d = limitsOf(ctx).downloads;
	d.total += 1;
	d.in_flight += 1;
	d.max_in_flight = Math.max(d.max_in_flight, d.in_flight);
	res.once('close', () => {
		d.in_flight -= 1;
	});
}

// ------------------------------------------------------------------ routes

/** Routes the admin paths of this module; returns false for any other path. */
function handleLimitsAdmin(ctx, req, res, path) {
	switch (`${req.method} ${path}`) {
		case 'GET /limits':
			sendJson(res, 200, publicLimits(ctx));
			return true;
		case 'POST /limits/reset':
			resetLimits(ctx);
			sendJson(res, 200, publicLimits(ctx));
			return true;
		case 'POST /rate_limit':
		case 'DELETE /rate_limit':
			handleRateLimit(ctx, req, res);
			return true;
		case 'POST /trickle':
		case 'DELETE /trickle':
			handleTrickle(ctx, req, res);
			return true;
		case 'POST /webhook_policy':
			handleWebhookPolicy(ctx, req, res);
			return true;
		default:
			return false;
	}
}

module.exports = {
	handleLimitsAdmin,
	rateLimit,
	resetLimits,
	trackDownload,
	trickleAnswer,
	webhookPolicyError,
};
