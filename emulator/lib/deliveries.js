'use strict';

/**
 * Webhooks: registration (POST /projects/{id}/webhooks), the signed task.completed
 * delivery with retries when a task ends, the raw one-off POST of
 * /_emulator/deliver, and the delivery log of /_emulator/deliveries.
 * Every function takes the shared context `ctx` (lib/context.js) first.
 */

const crypto = require('node:crypto');

const { validateWebhook } = require('./validation.js');
const { webhookPolicyError } = require('./limits.js');
const { postLoopback, isLoopbackHost, sign, REFUSED } = require('./outbound.js');
const { ADMIN_BODY_LIMIT, sendJson, readJsonOrRespond, readJsonObject } = require('./http.js');
const { isCurrent, later, nowIso } = require('./context.js');

const RETRY_DELAYS_S = [1, 4, 16];
const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
const DELIVERY_TIMEOUT_MS = 10000;
const USER_AGENT = 'DocumentExtractionEmulator/1.0';

function publicWebhook(w) {
	return { webhook_id: w.webhook_id, project_id: w.project_id, url: w.url, events: [...w.events], created_at: w.created_at };
}

async function handleRegisterWebhook(ctx, req, res, { projectId }) {
	const body = await readJsonOrRespond(req, res, ADMIN_BODY_LIMIT);
	if (body.done) return;
	const v = validateWebhook(body.value);
	const policyError = v.errors ? null : webhookPolicyError(ctx, v.url);
	if (v.errors || policyError) {
		sendJson(res, 422, { detail: v.errors ?? [policyError] });
		return;
	}
	const project = ctx.state.projects.find((p) => p.project_id.toLowerCase() === projectId.toLowerCase());
	if (!project) {
		sendJson(res, 404, { detail: `Project '${projectId}' not found` });
		return;
	}
	const hook = {
		webhook_id: crypto.randomUUID(),
		project_id: project.project_id,
		url: v.url,
		events: v.events,
		secret: v.secret,
		created_at: nowIso(),
	};
	ctx.state.webhooks.set(hook.webhook_id, hook);
	ctx.log(`webhook ${hook.webhook_id} registered for ${project.name}: ${hook.url}`);
	sendJson(res, 201, publicWebhook(hook));
}

/**
 * DELETE /_emulator/webhooks/<webhook_id>: removes a registration as deleting it in the service's
 * dashboard does. Later task.completed events are not delivered to it; its past deliveries stay
 * in the log. 404 for an unknown id.
 */
function deleteWebhook(ctx, res, webhookId) {
	const hook = ctx.state.webhooks.get(webhookId);
	if (!hook) {
		sendJson(res, 404, { detail: `Webhook '${webhookId}' not found` });
		return;
	}
	ctx.state.webhooks.delete(webhookId);
	ctx.log(`webhook ${webhookId} deleted (as in the dashboard): ${hook.url}`);
	sendJson(res, 200, { deleted: publicWebhook(hook) });
}

/** Starts one delivery per task.completed webhook of the task's project. */
function deliverTaskCompleted(ctx, task) {
	const hooks = [...ctx.state.webhooks.values()].filter(
		(w) => w.project_id === task.project_id && w.events.includes('task.completed'),
	);
	if (hooks.length === 0) return;
	const body = Buffer.from(taskCompletedBody(task), 'utf8');
	for (const hook of hooks) startDelivery(ctx, hook, task, body);
}

/** The task.completed body the service sends for a finished task, as JSON text. */
function taskCompletedBody(task) {
	return JSON.stringify({
		event: 'task.completed',
		task_id: task.task_id,
		status: task.status,
		result: task.status === 'complete' ? task.result : null,
		project_id: task.project_id,
		document_type: task.document_type,
		timestamp: task.updated_at,
	});
}

function newDelivery(hook, task) {
	return {
		delivery_id: crypto.randomUUID(),
		webhook_id: hook.webhook_id,
		project_id: hook.project_id,
		url: hook.url,
		task_id: task.task_id,
		event: 'task.completed',
		state: 'pending',
		attempts: 0,
		last_status_code: null,
		last_error: null,
		next_attempt_at: null,
		created_at: nowIso(),
		finished_at: null,
	};
}

/** Records the outcome of attempt `n`; returns the retry delay in ms, or null when the delivery is over. */
function recordAttempt(ctx, delivery, n, at, outcome) {
	const ok = outcome.status_code !== null && outcome.status_code >= 200 && outcome.status_code < 300;
	const error = ok ? null : outcome.error || `HTTP ${outcome.status_code}`;
	ctx.state.attempts.push({
		delivery_id: delivery.delivery_id,
		webhook_id: delivery.webhook_id,
		url: delivery.url,
		task_id: delivery.task_id,
		event: delivery.event,
		attempt: n,
		status_code: outcome.status_code,
		ok,
		error,
		duration_ms: Math.round(outcome.duration_ms * 1000) / 1000,
		at,
	});
	delivery.attempts = n;
	delivery.last_status_code = outcome.status_code;
	delivery.last_error = error;
	const name = `delivery ${delivery.delivery_id} to ${delivery.url}`;
	if (ok || outcome.refused || n >= MAX_ATTEMPTS) {
		delivery.state = ok ? 'delivered' : 'failed';
		delivery.finished_at = nowIso();
		ctx.log(ok ? `${name} delivered (attempt ${n})` : `${name} failed after attempt ${n}: ${error}`);
		return null;
	}
	const delayMs = RETRY_DELAYS_S[n - 1] * 1000 * ctx.opts.timeScale;
	delivery.next_attempt_at = new Date(Date.now() + delayMs).toISOString();
	ctx.log(`delivery ${delivery.delivery_id} attempt ${n} failed (${error}); retry in ${delayMs} ms`);
	return delayMs;
}

/** Delivers the same signed bytes up to MAX_ATTEMPTS times, retrying after RETRY_DELAYS_S. */
function startDelivery(ctx, hook, task, body) {
	const gen = ctx.generation;
	const delivery = newDelivery(hook, task);
	ctx.state.deliveries.push(delivery);
	const headers = {
		'Content-Type': 'application/json',
		'X-Service-Signature': sign(hook.secret, body),
		'User-Agent': USER_AGENT,
	};

	const attempt = async (n) => {
		if (!isCurrent(ctx, gen)) return;
		delivery.next_attempt_at = null;
		const at = nowIso();
		const outcome = await postLoopback({
			url: hook.url,
			body,
			headers,
			timeoutMs: DELIVERY_TIMEOUT_MS * ctx.opts.timeScale,
			active: ctx.activeOutbound,
		});
		if (!isCurrent(ctx, gen)) return;
		const retryInMs = recordAttempt(ctx, delivery, n, at, outcome);
		if (retryInMs !== null) later(ctx.workTimers, retryInMs, () => attempt(n + 1));
	};
	attempt(1);
}

/** Checks the body of POST /_emulator/deliver; returns an error message or null. */
function manualDeliveryError(b) {
	if (typeof b.url !== 'string') return 'url must be a string';
	if (typeof b.body !== 'string') return 'body must be a string (sent verbatim)';
	if (b.signature !== undefined && b.signature !== null && typeof b.signature !== 'string') {
		return 'signature must be a string or null';
	}
	if (b.secret !== undefined && typeof b.secret !== 'string') return 'secret must be a string';
	if (b.headers !== undefined && (typeof b.headers !== 'object' || b.headers === null || Array.isArray(b.headers))) {
		return 'headers must be an object';
	}
	if (b.timeout_ms !== undefined && (typeof b.timeout_ms !== 'number' || !(b.timeout_ms > 0))) {
		return 'timeout_ms must be a number > 0';
	}
	let target;
	try {
		target = new URL(b.url);
	} catch {
		return 'url is not a valid URL';
	}
	if (target.protocol !== 'http:' && target.protocol !== 'https:') return 'url must be http or https';
	if (!isLoopbackHost(target.hostname)) return REFUSED;
	return null;
}

/** POST /_emulator/deliver: one raw POST of a verbatim body, signed as asked. */
async function handleManualDeliver(ctx, req, res) {
	const b = await readJsonObject(req, res, ctx.opts.maxBodyBytes);
	if (!b) return;
	const error = manualDeliveryError(b);
	if (error) {
		sendJson(res, 422, { detail: error });
		return;
	}
	const raw = Buffer.from(b.body, 'utf8');
	let signature = null;
	if (typeof b.signature === 'string') signature = b.signature;
	else if (b.signature === undefined && typeof b.secret === 'string') signature = sign(b.secret, raw);
	const headers = { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT };
	if (signature !== null) headers['X-Service-Signature'] = signature;
	for (const [k, val] of Object.entries(b.headers || {})) headers[k] = String(val);

	const timeoutMs = b.timeout_ms === undefined ? DELIVERY_TIMEOUT_MS : b.timeout_ms;
	const outcome = await postLoopback({ url: b.url, body: raw, headers, timeoutMs, active: ctx.activeOutbound });
	sendJson(res, 200, {
		status_code: outcome.status_code,
		body: outcome.body,
		error: outcome.error,
		duration_ms: outcome.duration_ms,
		signature_sent: signature,
	});
}

/** GET /_emulator/deliveries[?task_id=&webhook_id=] */
function listDeliveries(ctx, url) {
	const { deliveries, attempts } = ctx.state;
	const taskId = url.searchParams.get('task_id');
	const webhookId = url.searchParams.get('webhook_id');
	const keep = (r) => (!taskId || r.task_id === taskId) && (!webhookId || r.webhook_id === webhookId);
	const byId = new Map(deliveries.map((d) => [d.delivery_id, d]));
	return {
		deliveries: deliveries.filter(keep).map((d) => ({ ...d })),
		attempts: attempts.filter(keep).map((a) => ({ ...a, state: byId.get(a.delivery_id)?.state ?? null })),
	};
}

module.exports = {
	handleRegisterWebhook,
	handleManualDeliver,
	deleteWebhook,
	deliverTaskCompleted,
	taskCompletedBody,
	listDeliveries,
	publicWebhook,
};
