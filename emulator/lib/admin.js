'use strict';

/**
 * Fault switches, request statistics and the admin endpoints under /_emulator/
 * (no authentication). Every function takes the shared context `ctx`
 * (lib/context.js) first.
 */

const { ENDPOINTS, cancelWork, sleep } = require('./context.js');
const { ADMIN_BODY_LIMIT, sendJson, readJsonObject } = require('./http.js');
const { adminTask } = require('./tasks.js');
const { deleteWebhook, handleManualDeliver, listDeliveries, publicWebhook } = require('./deliveries.js');
const { handleFile } = require('./files.js');
const { handleLimitsAdmin, resetLimits, trackDownload } = require('./limits.js');
const { handleProductionAdmin, resetProduction } = require('./production.js');

// ------------------------------------------------------------------ faults

/**
 * What a fault does besides delaying: `answer` (the default) answers `status`; `hang` reads
 * the request and never answers; `drop_after_read` handles the request as usual (a
 * process_file creates its task) and then drops the connection instead of answering;
 * `handle_then_answer` handles it as usual and answers `status` instead (a gateway that
 * passed the request on and then answered 502 or 504).
 */
const FAULT_MODES = ['answer', 'hang', 'drop_after_read', 'handle_then_answer', 'echo_auth'];
const NEEDS_STATUS = ['answer', 'handle_then_answer', 'echo_auth'];

/** Checks the body of POST /_emulator/faults; returns {error} or {fault}. */
function parseFault(b) {
	if (!ENDPOINTS.includes(b.endpoint)) return { error: `endpoint must be one of ${ENDPOINTS.join(', ')}` };
	const mode = b.mode ?? 'answer';
	if (!FAULT_MODES.includes(mode)) return { error: `mode must be one of ${FAULT_MODES.join(', ')}` };
	const count = b.count === undefined ? 1 : b.count;
	if (!Number.isInteger(count) || count < 1) return { error: 'count must be an integer >= 1' };
	const status = b.status ?? null;
	if (status !== null && (!Number.isInteger(status) || status < 100 || status > 599)) {
		return { error: 'status must be an integer 100..599' };
	}
	const delayMs = b.delay_ms ?? 0;
	if (typeof delayMs !== 'number' || !(delayMs >= 0)) return { error: 'delay_ms must be a number >= 0' };
	const retryAfter = b.retry_after ?? null;
	const retryAfterOk =
		retryAfter === null || (typeof retryAfter === 'number' && retryAfter >= 0) || (typeof retryAfter === 'string' && retryAfter);
	if (!retryAfterOk) return { error: 'retry_after must be a number of seconds >= 0 or a non-empty string' };
	if (mode === 'answer' && status === null && delayMs === 0) {
		return { error: 'a fault needs a status, a delay_ms, or both' };
	}
	if (mode !== 'answer' && NEEDS_STATUS.includes(mode) && status === null) return { error: `a ${mode} fault needs a status` };
	if (!NEEDS_STATUS.includes(mode) && status !== null) return { error: `a ${mode} fault takes no status` };
	return {
		fault: { endpoint: b.endpoint, mode, remaining: count, count, status, delay_ms: delayMs, retry_after: retryAfter },
	};
}

async function handleAddFault(ctx, req, res) {
	const b = await readJsonObject(req, res, ADMIN_BODY_LIMIT);
	if (!b) return;
	const { error, fault } = parseFault(b);
	if (error) {
		sendJson(res, 422, { detail: error });
		return;
	}
	ctx.state.faults.push(fault);
	ctx.log(`fault added: ${JSON.stringify(fault)}`);
	sendJson(res, 201, { fault: { ...fault }, faults: ctx.state.faults.map((f) => ({ ...f })) });
}

/** Uses up one pending fault of `endpoint`, if any. */
function takeFault(ctx, endpoint) {
	const { faults } = ctx.state;
	const idx = faults.findIndex((f) => f.endpoint === endpoint && f.remaining > 0);
	if (idx === -1) return null;
	const fault = faults[idx];
	fault.remaining -= 1;
	if (fault.remaining <= 0) faults.splice(idx, 1);
	return fault;
}

/** Reads and discards the request body, then keeps the request open without answering. */
function hang(ctx, req, res) {
	ctx.hung.add(res);
	res.once('close', () => ctx.hung.delete(res));
	req.resume();
}

/** Lets the handler run, but drops the connection where it would have answered. */
function dropAnswer(req, res) {
	res.writeHead = () => {
		req.socket.destroy();
		return res;
	};
	res.end = () => res;
}

/** Lets the handler run, but answers `status` with an injected detail where it would have answered. */
function replaceAnswer(res, status) {
	const body = JSON.stringify({ detail: 'Injected fault' });
	res.writeHead = function writeHead() {
		return Object.getPrototypeOf(res).writeHead.call(res, status, {
			'Content-Type': 'application/json',
			'Content-Length': Buffer.byteLength(body),
		});
	};
	const end = res.end.bind(res);
	res.end = () => end(body);
}

/**
 * Answers `status` with the request's Authorization header echoed back, as a careless service or
 * gateway may: in a 401 detail, in the `msg` of a 422 list, in any other status's HTML page.
 */
function echoAuthorization(req, res, status) {
	const auth = String(req.headers.authorization ?? '');
	req.resume();
	if (status === 401) return sendJson(res, 401, { detail: `Invalid or missing API key: ${auth}` });
	if (status === 422) {
		const entry = { loc: ['header', 'authorization'], msg: `not accepted: ${auth}`, type: 'value_error' };
		return sendJson(res, 422, { detail: [entry] });
	}
	const page = `<html><head><title>${status}</title></head><body><h1>Error ${status}</h1><pre>Authorization: ${auth}</pre></body></html>`;
	res.writeHead(status, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(page) });
	res.end(page);
}

/**
 * Applies the next fault of `endpoint`: waits its delay, then answers its status, hangs,
 * or arranges for the answer to be dropped. Returns true when the request is dealt with.
 */
async function applyFault(ctx, endpoint, req, res) {
	const fault = takeFault(ctx, endpoint);
	if (!fault) return false;
	ctx.state.stats.faults_applied[fault.mode] += 1;
	if (fault.delay_ms > 0) await sleep(ctx, fault.delay_ms);
	if (fault.mode === 'hang') {
		hang(ctx, req, res);
		return true;
	}
	if (fault.mode === 'drop_after_read') {
		dropAnswer(req, res);
		return false;
	}
	if (fault.mode === 'handle_then_answer') {
		replaceAnswer(res, fault.status);
		return false;
	}
	if (fault.mode === 'echo_auth') {
		echoAuthorization(req, res, fault.status);
		return true;
	}
	if (fault.status === null) return false;
	const headers = fault.retry_after !== null ? { 'Retry-After': String(fault.retry_after) } : {};
	sendJson(res, fault.status, { detail: 'Injected fault' }, headers);
	return true;
}

// ------------------------------------------------------------------- stats

/** Counts a service request and tracks how many are in flight until `res` closes. */
function countRequest(ctx, route, res) {
	const stats = ctx.state.stats;
	stats.requests[route.endpoint] += 1;
	if (route.endpoint === 'task_status') {
		const id = route.params.taskId;
		stats.status_polls_by_task[id] = (stats.status_polls_by_task[id] || 0) + 1;
	}
	stats.in_flight += 1;
	if (stats.in_flight > stats.max_in_flight) stats.max_in_flight = stats.in_flight;
	res.once('close', () => {
		stats.in_flight -= 1;
	});
}

function resetStats(ctx) {
	const s = ctx.state.stats;
	for (const k of ENDPOINTS) s.requests[k] = 0;
	for (const k of Object.keys(s.status_polls_by_task)) delete s.status_polls_by_task[k];
	for (const k of Object.keys(s.faults_applied)) s.faults_applied[k] = 0;
	s.refusals.length = 0;
	s.max_in_flight = s.in_flight;
}

/** POST /_emulator/reset: cancels pending work and clears all data (the projects stay). */
function resetAll(ctx) {
	cancelWork(ctx);
	const { state } = ctx;
	state.tasks.clear();
	state.webhooks.clear();
	state.deliveries.length = 0;
	state.attempts.length = 0;
	state.faults.length = 0;
	state.files.length = 0;
	for (const res of ctx.hung) res.destroy();
	ctx.hung.clear();
	resetStats(ctx);
	resetLimits(ctx);
	resetProduction(ctx);
	ctx.log('state reset');
}

/**
 * POST /_emulator/refuse {ms}: answers, then stops listening for `ms`, so that new
 * connections are refused (ECONNREFUSED) until it listens again on the same port.
 */
async function handleRefuse(ctx, req, res) {
	const b = await readJsonObject(req, res, ADMIN_BODY_LIMIT);
	if (!b) return;
	const ms = b.ms;
	if (typeof ms !== 'number' || !(ms > 0) || ms > 60_000) {
		sendJson(res, 422, { detail: 'ms must be a number of milliseconds, 1..60000' });
		return;
	}
	const until = new Date(Date.now() + ms).toISOString();
	res.once('finish', () => ctx.refuseConnections(ms));
	sendJson(res, 200, { ok: true, refused_until: until }, { Connection: 'close' });
}

// ------------------------------------------------------------------- admin

/** Routes `/_emulator/...`; `url.pathname` has no trailing slash. */
async function handleAdmin(ctx, req, res, url) {
	const { state } = ctx;
	const p = url.pathname.replace(/^\/_emulator/, '') || '/';
	const file = /^\/files\/([^/]+)$/.exec(p);
	if (file && (req.method === 'GET' || req.method === 'HEAD')) {
		let name;
		try {
			name = decodeURIComponent(file[1]);
		} catch {
			name = file[1];
		}
		trackDownload(ctx, res);
		return handleFile(ctx, req, res, url, name);
	}
	if (handleLimitsAdmin(ctx, req, res, p)) return undefined;
	const webhook = /^\/webhooks\/([^/]+)$/.exec(p);
	if (webhook && req.method === 'DELETE') return deleteWebhook(ctx, res, webhook[1]);
	const production = handleProductionAdmin(ctx, req, res, p);
	if (production) return production;
	switch (`${req.method} ${p}`) {
		case 'GET /health':
			return sendJson(res, 200, { ok: true });
		case 'GET /deliveries':
			return sendJson(res, 200, listDeliveries(ctx, url));
		case 'GET /webhooks':
			return sendJson(res, 200, { webhooks: [...state.webhooks.values()].map(publicWebhook) });
		case 'GET /tasks':
			return sendJson(res, 200, { tasks: [...state.tasks.values()].map(adminTask) });
		case 'GET /faults':
			return sendJson(res, 200, { faults: state.faults.map((f) => ({ ...f })) });
		case 'POST /faults':
			return handleAddFault(ctx, req, res);
		case 'DELETE /faults':
			state.faults.length = 0;
			return sendJson(res, 200, { ok: true, faults: [] });
		case 'GET /files':
			return sendJson(res, 200, { files: state.files.map((f) => ({ ...f })) });
		case 'GET /stats':
			return sendJson(res, 200, state.stats);
		case 'POST /stats/reset':
			resetStats(ctx);
			return sendJson(res, 200, state.stats);
		case 'POST /deliver':
			return handleManualDeliver(ctx, req, res);
		case 'POST /refuse':
			return handleRefuse(ctx, req, res);
		case 'POST /reset':
			resetAll(ctx);
			return sendJson(res, 200, { ok: true });
		default:
			return sendJson(res, 404, { detail: 'Not Found' });
	}
}

module.exports = { handleAdmin, applyFault, countRequest };
