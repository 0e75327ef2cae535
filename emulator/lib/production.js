'use strict';

/**
 * Admin switches for production-setup tests (under /_emulator/, no authentication):
 *
 *   POST   /sink[/<name>]   a stand-in for a downstream system: records each call (name,
 *                           parsed JSON body or raw text, selected headers, time) and answers 200
 *   GET    /sink            {calls: [...]} in arrival order
 *   DELETE /sink            forgets the recorded calls
 *   POST   /forget {task_id}  the service forgets the task: GET /task_status answers 404 from then on
 *   POST   /settings {processing_ms?, time_scale?, sink_down?}  changes the processing time of new
 *                           tasks and the webhook retry timing while running; sink_down lists the
 *                           sink names that answer 503 and record nothing (a downstream outage);
 *                           answers the values in force
 *
 * Every function takes the shared context `ctx` (lib/context.js) first.
 */

const { ADMIN_BODY_LIMIT, sendJson, readBody, parseJson, readJsonObject } = require('./http.js');
const { nowIso } = require('./context.js');

const SINK_HEADERS = ['content-type', 'user-agent', 'x-request-id'];

function sinkCalls(ctx) {
	if (!ctx.state.sinkCalls) ctx.state.sinkCalls = [];
	return ctx.state.sinkCalls;
}

/** POST /_emulator/sink[/<name>]: records the call and answers 200 {received: n}. */
async function handleSinkPost(ctx, req, res, name) {
	const read = await readBody(req, ADMIN_BODY_LIMIT);
	if (read.aborted) return;
	if (read.tooLarge) {
		sendJson(res, 413, { detail: `Request body too large (limit ${ADMIN_BODY_LIMIT} bytes)` });
		return;
	}
	if ((ctx.opts.sinkDown ?? []).includes(name)) {
		sendJson(res, 503, { detail: 'Injected downstream outage' });
		return;
	}
	const raw = read.buf ?? Buffer.alloc(0);
	const text = raw.toString('utf8');
	const parsed = parseJson(raw);
	const headers = {};
	for (const h of SINK_HEADERS) if (req.headers[h] !== undefined) headers[h] = req.headers[h];
	const calls = sinkCalls(ctx);
	calls.push({
		name,
		body: parsed.error || parsed.value === undefined ? text : parsed.value,
		headers,
		at: nowIso(),
	});
	sendJson(res, 200, { received: calls.length });
}

/** POST /_emulator/forget {task_id}: removes the task, so that task_status answers 404. */
async function handleForget(ctx, req, res) {
	const b = await readJsonObject(req, res, ADMIN_BODY_LIMIT);
	if (!b) return;
	if (typeof b.task_id !== 'string' || !ctx.state.tasks.has(b.task_id)) {
		sendJson(res, 404, { detail: `Task '${String(b.task_id)}' not found` });
		return;
	}
	ctx.state.tasks.delete(b.task_id);
	ctx.log(`task ${b.task_id} forgotten`);
	sendJson(res, 200, { ok: true, task_id: b.task_id });
}

/** POST /_emulator/settings {processing_ms?, time_scale?}: changes the options while running. */
async function handleSettings(ctx, req, res) {
	const b = await readJsonObject(req, res, ADMIN_BODY_LIMIT);
	if (!b) return;
	const { processing_ms: processingMs, time_scale: timeScale, sink_down: sinkDown } = b;
	if (
		sinkDown !== undefined &&
		!(Array.isArray(sinkDown) && sinkDown.every((n) => typeof n === 'string'))
	) {
		sendJson(res, 422, { detail: 'sink_down must be a list of sink names' });
		return;
	}
	if (processingMs !== undefined && (typeof processingMs !== 'number' || !(processingMs >= 0))) {
		sendJson(res, 422, { detail: 'processing_ms must be a number >= 0' });
		return;
	}
	if (timeScale !== undefined && (typeof timeScale !== 'number' || !(timeScale > 0))) {
		sendJson(res, 422, { detail: 'time_scale must be a number > 0' });
		return;
	}
	if (processingMs !== undefined) ctx.opts.processingMs = processingMs;
	if (timeScale !== undefined) ctx.opts.timeScale = timeScale;
	if (sinkDown !== undefined) ctx.opts.sinkDown = sinkDown;
	ctx.log(`settings: processing_ms ${ctx.opts.processingMs}, time_scale ${ctx.opts.timeScale}`);
	sendJson(res, 200, {
		processing_ms: ctx.opts.processingMs,
		time_scale: ctx.opts.timeScale,
		sink_down: ctx.opts.sinkDown ?? [],
	});
}

/**
 * Routes the production-setup switches; `p` is the path below /_emulator. Returns a promise when
 * the request is one of them, or undefined to let the caller go on.
 */
function handleProductionAdmin(ctx, req, res, p) {
	const sink = /^\/sink(?:\/([^/]+))?$/.exec(p);
	if (sink && req.method === 'POST') return handleSinkPost(ctx, req, res, sink[1] ?? '');
	if (p === '/sink' && req.method === 'GET') {
		return Promise.resolve(sendJson(res, 200, { calls: sinkCalls(ctx).map((c) => ({ ...c })) }));
	}
	if (p === '/sink' && req.method === 'DELETE') {
		sinkCalls(ctx).length = 0;
		return Promise.resolve(sendJson(res, 200, { ok: true, calls: [] }));
	}
	if (p === '/forget' && req.method === 'POST') return handleForget(ctx, req, res);
	if (p === '/settings' && req.method === 'POST') return handleSettings(ctx, req, res);
	return undefined;
}

/** Clears what this module keeps (called by POST /_emulator/reset). */
function resetProduction(ctx) {
	sinkCalls(ctx).length = 0;
	ctx.opts.sinkDown = [];
}

module.exports = { handleProductionAdmin, resetProduction };
