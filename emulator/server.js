#!/usr/bin/env node
'use strict';

/**
 * Local emulator of the Document Extraction Service, for development and tests.
 *
 * Plain CommonJS with no dependencies beyond node: built-ins. It binds to
 * 127.0.0.1 only and delivers webhooks to loopback addresses only.
 *
 *   const { createEmulator } = require('./emulator/server.js');
 *   const emu = await createEmulator({ port: 0, processingMs: 200, timeScale: 0.01 });
 *   // emu.url === 'http://127.0.0.1:<port>'
 *   await emu.close();
 *
 * CLI: node emulator/server.js  (see emulator/README.md for environment variables)
 */

const http = require('node:http');
const crypto = require('node:crypto');

const { DEFAULT_PROJECTS, buildResult, countPages } = require('./lib/fixtures.js');
const { validateProcessFile, validateWebhook, invalidJson } = require('./lib/validation.js');
const { postLoopback, isLoopbackHost, sign, REFUSED } = require('./lib/outbound.js');

const HOST = '127.0.0.1';
const ENDPOINTS = ['process_file', 'task_status', 'projects', 'webhooks'];
const RETRY_DELAYS_S = [1, 4, 16];
const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
const DELIVERY_TIMEOUT_MS = 10000;
const ADMIN_BODY_LIMIT = 16 * 1024 * 1024;
const TERMINAL = new Set(['complete', 'failed']);

function fail(message) {
	throw new TypeError(`createEmulator: ${message}`);
}

function isStringList(v) {
	return Array.isArray(v) && v.every((s) => typeof s === 'string');
}

function normalizeOptions(options = {}) {
	const o = {
		port: 0,
		apiKeys: ['vnd_test_key'],
		inactiveKeys: ['vnd_inactive_key'],
		processingMs: 3000,
		runningStatuses: ['queued', 'processing'],
		failMarker: 'EMULATOR_FAIL',
		timeScale: 1,
		projects: DEFAULT_PROJECTS,
		maxBodyBytes: 200 * 1024 * 1024,
		log: false,
	};
	for (const [key, value] of Object.entries(options || {})) {
		if (value !== undefined) o[key] = value;
	}
	if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) fail('port must be an integer 0..65535');
	if (!isStringList(o.apiKeys)) fail('apiKeys must be an array of strings');
	if (!isStringList(o.inactiveKeys)) fail('inactiveKeys must be an array of strings');
	if (typeof o.processingMs !== 'number' || !(o.processingMs >= 0)) fail('processingMs must be a number >= 0');
	if (!isStringList(o.runningStatuses) || o.runningStatuses.length === 0) {
		fail('runningStatuses must be a non-empty array of strings');
	}
	if (o.runningStatuses.some((s) => TERMINAL.has(s))) fail('runningStatuses must not contain complete or failed');
	if (typeof o.failMarker !== 'string' || o.failMarker.length === 0) fail('failMarker must be a non-empty string');
	if (typeof o.timeScale !== 'number' || !(o.timeScale > 0)) fail('timeScale must be a number > 0');
	if (!Number.isInteger(o.maxBodyBytes) || o.maxBodyBytes < 1) fail('maxBodyBytes must be a positive integer');
	if (o.log === true) o.log = (line) => console.error(`[emulator] ${line}`);
	if (o.log !== false && o.log !== null && typeof o.log !== 'function') fail('log must be a function or false');
	if (!Array.isArray(o.projects)) fail('projects must be an array');
	o.projects = o.projects.map((p) => {
		if (!p || typeof p.project_id !== 'string' || typeof p.name !== 'string' || !isStringList(p.document_types)) {
			fail('each project needs project_id, name and document_types (array of strings)');
		}
		return { project_id: p.project_id, name: p.name, document_types: [...p.document_types] };
	});
	return o;
}

function nowIso() {
	return new Date().toISOString();
}

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

/** Match a service route. Returns {endpoint, method, params} or null. */
function matchServiceRoute(pathname) {
	if (pathname === '/process_file') return { endpoint: 'process_file', method: 'POST', params: {} };
	if (pathname === '/projects') return { endpoint: 'projects', method: 'GET', params: {} };
	let m = /^\/task_status\/([^/]+)$/.exec(pathname);
	if (m) return { endpoint: 'task_status', method: 'GET', params: { taskId: safeDecode(m[1]) } };
	m = /^\/projects\/([^/]+)\/webhooks$/.exec(pathname);
	if (m) return { endpoint: 'webhooks', method: 'POST', params: { projectId: safeDecode(m[1]) } };
	return null;
}

function safeDecode(s) {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
	}
}

function emptyStats() {
	return {
		requests: { process_file: 0, task_status: 0, projects: 0, webhooks: 0 },
		status_polls_by_task: Object.create(null),
		in_flight: 0,
		max_in_flight: 0,
	};
}

/**
 * Start an emulator.
 * @param {object} [options] see README.md
 * @returns {Promise<{url: string, port: number, close: () => Promise<void>, state: object}>}
 */
async function createEmulator(options) {
	const opts = normalizeOptions(options);
	const log = typeof opts.log === 'function' ? opts.log : () => {};
	const failMarker = Buffer.from(opts.failMarker, 'latin1');

	const state = {
		options: opts,
		projects: opts.projects,
		tasks: new Map(),
		webhooks: new Map(),
		deliveries: [],
		attempts: [],
		faults: [],
		stats: emptyStats(),
	};

	let closed = false;
	let generation = 0; // bumped by reset; stale task/delivery callbacks check it
	const workTimers = new Set(); // task progress and delivery retries (cleared by reset)
	const otherTimers = new Set(); // injected delays (cleared on close only)
	const activeOutbound = new Set();

	function later(set, ms, fn) {
		const t = setTimeout(() => {
			set.delete(t);
			fn();
		}, ms);
		set.add(t);
		return t;
	}

	function sleep(ms) {
		return new Promise((resolve) => later(otherTimers, ms, resolve));
	}

	// ---------------------------------------------------------------- projects

	function findProject(ref) {
		const lower = ref.toLowerCase();
		return (
			state.projects.find((p) => p.project_id.toLowerCase() === lower) ||
			state.projects.find((p) => p.name.toLowerCase() === lower) ||
			null
		);
	}

	function findDocumentType(project, name) {
		return project.document_types.find((t) => t === name) ||
			project.document_types.find((t) => t.toLowerCase() === name.toLowerCase()) ||
			null;
	}

	// ------------------------------------------------------------------- tasks

	function publicTask(task) {
		const out = {
			task_id: task.task_id,
			status: task.status,
			result: task.result,
			created_at: task.created_at,
			updated_at: task.updated_at,
		};
		if (task.status === 'failed') out.error = task.error;
		return out;
	}

	function setStatus(task, status) {
		task.status = status;
		task.updated_at = nowIso();
		task.history.push({ status, at: task.updated_at });
		log(`task ${task.task_id} -> ${status}`);
	}

	function finishTask(task) {
		if (task.willFail) {
			task.error =
				`Extraction failed: the document could not be read (marker ${opts.failMarker} found)`;
			task.result = null;
			setStatus(task, 'failed');
		} else {
			task.result = buildResult({
				documentType: task.document_type,
				projectId: task.project_id,
				fileSize: task.file_size,
				fileSha256: task.file_sha256,
				pages: task.pages,
			});
			setStatus(task, 'complete');
		}
		deliverTaskCompleted(task);
	}

	function scheduleTask(task) {
		const statuses = opts.runningStatuses;
		const step = opts.processingMs / statuses.length;
		const gen = generation;
		for (let i = 1; i < statuses.length; i++) {
			later(workTimers, i * step, () => {
				if (gen === generation && !closed) setStatus(task, statuses[i]);
			});
		}
		later(workTimers, opts.processingMs, () => {
			if (gen === generation && !closed) finishTask(task);
		});
	}

	// ---------------------------------------------------------------- webhooks

	function publicWebhook(w) {
		return { webhook_id: w.webhook_id, project_id: w.project_id, url: w.url, events: [...w.events], created_at: w.created_at };
	}

	function deliverTaskCompleted(task) {
		const hooks = [...state.webhooks.values()].filter(
			(w) => w.project_id === task.project_id && w.events.includes('task.completed'),
		);
		if (hooks.length === 0) return;
		const payload = {
			event: 'task.completed',
			task_id: task.task_id,
			status: task.status,
			result: task.status === 'complete' ? task.result : null,
			project_id: task.project_id,
			document_type: task.document_type,
			timestamp: task.updated_at,
		};
		const body = Buffer.from(JSON.stringify(payload), 'utf8');
		for (const hook of hooks) startDelivery(hook, task, body);
	}

	function startDelivery(hook, task, body) {
		const gen = generation;
		const delivery = {
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
		state.deliveries.push(delivery);
		const headers = {
			'Content-Type': 'application/json',
			'X-Service-Signature': sign(hook.secret, body),
			'User-Agent': 'DocumentExtractionEmulator/1.0',
		};

		const attempt = async (n) => {
			if (closed || gen !== generation) return;
			delivery.next_attempt_at = null;
			const at = nowIso();
			const outcome = await postLoopback({
				url: hook.url,
				body,
				headers,
				timeoutMs: DELIVERY_TIMEOUT_MS * opts.timeScale,
				active: activeOutbound,
			});
			if (closed || gen !== generation) return;
			const ok = outcome.status_code !== null && outcome.status_code >= 200 && outcome.status_code < 300;
			const error = ok ? null : outcome.error || `HTTP ${outcome.status_code}`;
			state.attempts.push({
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
			if (ok) {
				delivery.state = 'delivered';
				delivery.finished_at = nowIso();
				log(`delivery ${delivery.delivery_id} to ${hook.url} delivered (attempt ${n})`);
			} else if (outcome.refused || n >= MAX_ATTEMPTS) {
				delivery.state = 'failed';
				delivery.finished_at = nowIso();
				log(`delivery ${delivery.delivery_id} to ${hook.url} failed after attempt ${n}: ${error}`);
			} else {
				const delayMs = RETRY_DELAYS_S[n - 1] * 1000 * opts.timeScale;
				delivery.next_attempt_at = new Date(Date.now() + delayMs).toISOString();
				log(`delivery ${delivery.delivery_id} attempt ${n} failed (${error}); retry in ${delayMs} ms`);
				later(workTimers, delayMs, () => attempt(n + 1));
			}
		};
		attempt(1);
	}

	// ------------------------------------------------------------------ faults

	function takeFault(endpoint) {
		const idx = state.faults.findIndex((f) => f.endpoint === endpoint && f.remaining > 0);
		if (idx === -1) return null;
		const fault = state.faults[idx];
		fault.remaining -= 1;
		if (fault.remaining <= 0) state.faults.splice(idx, 1);
		return fault;
	}

	function resetStats() {
		const s = state.stats;
		for (const k of ENDPOINTS) s.requests[k] = 0;
		for (const k of Object.keys(s.status_polls_by_task)) delete s.status_polls_by_task[k];
		s.max_in_flight = s.in_flight;
	}

	function resetAll() {
		generation += 1;
		for (const t of workTimers) clearTimeout(t);
		workTimers.clear();
		for (const req of activeOutbound) req.destroy();
		activeOutbound.clear();
		state.tasks.clear();
		state.webhooks.clear();
		state.deliveries.length = 0;
		state.attempts.length = 0;
		state.faults.length = 0;
		resetStats();
	}

	// -------------------------------------------------------- service handlers

	function authenticate(req) {
		const header = req.headers.authorization;
		const m = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
		if (!m) return { status: 401, detail: 'Invalid or missing API key' };
		const key = m[1];
		if (opts.inactiveKeys.includes(key)) return { status: 402, detail: 'Subscription inactive' };
		if (!opts.apiKeys.includes(key)) return { status: 401, detail: 'Invalid or missing API key' };
		return null;
	}

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

	async function handleProcessFile(req, res) {
		const body = await readJsonOrRespond(req, res, opts.maxBodyBytes);
		if (body.done) return;
		const v = validateProcessFile(body.value);
		body.value = null;
		if (v.errors) {
			sendJson(res, 422, { detail: v.errors });
			return;
		}
		const project = findProject(v.project);
		if (!project) {
			sendJson(res, 404, { detail: `Project '${v.project}' not found` });
			return;
		}
		const documentType = findDocumentType(project, v.documentType);
		if (!documentType) {
			sendJson(res, 404, { detail: `Document type '${v.documentType}' not found in project '${project.name}'` });
			return;
		}
		let file = v.file;
		v.file = null;
		const detectedPages = countPages(file);
		const task = {
			task_id: crypto.randomUUID(),
			project_id: project.project_id,
			project_name: project.name,
			document_type: documentType,
			status: opts.runningStatuses[0],
			result: null,
			error: null,
			created_at: nowIso(),
			updated_at: null,
			history: [],
			file_size: file.length,
			file_sha256: crypto.createHash('sha256').update(file).digest('hex'),
			pages: v.maxPages ? Math.min(v.maxPages, detectedPages) : detectedPages,
			max_pages: v.maxPages,
			willFail: file.indexOf(failMarker) !== -1,
		};
		file = null; // the bytes are not kept
		task.updated_at = task.created_at;
		task.history.push({ status: task.status, at: task.created_at });
		state.tasks.set(task.task_id, task);
		log(`task ${task.task_id} created (${project.name}/${documentType}, ${task.file_size} bytes)`);
		scheduleTask(task);
		sendJson(res, 200, { task_id: task.task_id });
	}

	function handleTaskStatus(req, res, { taskId }) {
		const task = state.tasks.get(taskId);
		if (!task) {
			sendJson(res, 404, { detail: `Task '${taskId}' not found` });
			return;
		}
		sendJson(res, 200, publicTask(task));
	}

	function handleProjects(req, res) {
		sendJson(res, 200, {
			projects: state.projects.map((p) => ({ project_id: p.project_id, name: p.name, document_types: [...p.document_types] })),
		});
	}

	async function handleWebhooks(req, res, { projectId }) {
		const body = await readJsonOrRespond(req, res, ADMIN_BODY_LIMIT);
		if (body.done) return;
		const v = validateWebhook(body.value);
		if (v.errors) {
			sendJson(res, 422, { detail: v.errors });
			return;
		}
		const project = state.projects.find((p) => p.project_id.toLowerCase() === projectId.toLowerCase());
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
		state.webhooks.set(hook.webhook_id, hook);
		log(`webhook ${hook.webhook_id} registered for ${project.name}: ${hook.url}`);
		sendJson(res, 201, publicWebhook(hook));
	}

	const serviceHandlers = {
		process_file: handleProcessFile,
		task_status: handleTaskStatus,
		projects: handleProjects,
		webhooks: handleWebhooks,
	};

	async function handleService(req, res, route) {
		const stats = state.stats;
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

		const fault = takeFault(route.endpoint);
		if (fault) {
			if (fault.delay_ms > 0) await sleep(fault.delay_ms);
			if (fault.status !== null) {
				const headers = fault.retry_after !== null ? { 'Retry-After': String(fault.retry_after) } : {};
				sendJson(res, fault.status, { detail: 'Injected fault' }, headers);
				return;
			}
		}

		const authError = authenticate(req);
		if (authError) {
			const headers = authError.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
			sendJson(res, authError.status, { detail: authError.detail }, headers);
			return;
		}
		await serviceHandlers[route.endpoint](req, res, route.params);
	}

	// ---------------------------------------------------------- admin handlers

	function adminError(res, status, detail) {
		sendJson(res, status, { detail });
	}

	async function handleAddFault(req, res) {
		const body = await readJsonOrRespond(req, res, ADMIN_BODY_LIMIT);
		if (body.done) return;
		const b = body.value;
		if (!b || typeof b !== 'object' || Array.isArray(b)) return adminError(res, 422, 'body must be a JSON object');
		if (!ENDPOINTS.includes(b.endpoint)) return adminError(res, 422, `endpoint must be one of ${ENDPOINTS.join(', ')}`);
		const count = b.count === undefined ? 1 : b.count;
		if (!Number.isInteger(count) || count < 1) return adminError(res, 422, 'count must be an integer >= 1');
		const status = b.status === undefined || b.status === null ? null : b.status;
		if (status !== null && (!Number.isInteger(status) || status < 100 || status > 599)) {
			return adminError(res, 422, 'status must be an integer 100..599');
		}
		const delayMs = b.delay_ms === undefined || b.delay_ms === null ? 0 : b.delay_ms;
		if (typeof delayMs !== 'number' || !(delayMs >= 0)) return adminError(res, 422, 'delay_ms must be a number >= 0');
		const retryAfter = b.retry_after === undefined || b.retry_after === null ? null : b.retry_after;
		if (retryAfter !== null && !(typeof retryAfter === 'number' && retryAfter >= 0) && !(typeof retryAfter === 'string' && retryAfter)) {
			return adminError(res, 422, 'retry_after must be a number of seconds >= 0 or a non-empty string');
		}
		if (status === null && delayMs === 0) return adminError(res, 422, 'a fault needs a status, a delay_ms, or both');
		const fault = { endpoint: b.endpoint, remaining: count, count, status, delay_ms: delayMs, retry_after: retryAfter };
		state.faults.push(fault);
		log(`fault added: ${JSON.stringify(fault)}`);
		sendJson(res, 201, { fault: { ...fault }, faults: state.faults.map((f) => ({ ...f })) });
	}

	async function handleManualDeliver(req, res) {
		const body = await readJsonOrRespond(req, res, opts.maxBodyBytes);
		if (body.done) return;
		const b = body.value;
		if (!b || typeof b !== 'object' || Array.isArray(b)) return adminError(res, 422, 'body must be a JSON object');
		if (typeof b.url !== 'string') return adminError(res, 422, 'url must be a string');
		if (typeof b.body !== 'string') return adminError(res, 422, 'body must be a string (sent verbatim)');
		if (b.signature !== undefined && b.signature !== null && typeof b.signature !== 'string') {
			return adminError(res, 422, 'signature must be a string or null');
		}
		if (b.secret !== undefined && typeof b.secret !== 'string') return adminError(res, 422, 'secret must be a string');
		if (b.headers !== undefined && (typeof b.headers !== 'object' || b.headers === null || Array.isArray(b.headers))) {
			return adminError(res, 422, 'headers must be an object');
		}
		const timeoutMs = b.timeout_ms === undefined ? DELIVERY_TIMEOUT_MS : b.timeout_ms;
		if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) return adminError(res, 422, 'timeout_ms must be a number > 0');
		let target;
		try {
			target = new URL(b.url);
		} catch {
			return adminError(res, 422, 'url is not a valid URL');
		}
		if (target.protocol !== 'http:' && target.protocol !== 'https:') return adminError(res, 422, 'url must be http or https');
		if (!isLoopbackHost(target.hostname)) return adminError(res, 422, REFUSED);

		const raw = Buffer.from(b.body, 'utf8');
		let signature = null;
		if (typeof b.signature === 'string') signature = b.signature;
		else if (b.signature === undefined && typeof b.secret === 'string') signature = sign(b.secret, raw);
		const headers = { 'Content-Type': 'application/json', 'User-Agent': 'DocumentExtractionEmulator/1.0' };
		if (signature !== null) headers['X-Service-Signature'] = signature;
		for (const [k, val] of Object.entries(b.headers || {})) headers[k] = String(val);

		const outcome = await postLoopback({ url: b.url, body: raw, headers, timeoutMs, active: activeOutbound });
		sendJson(res, 200, {
			status_code: outcome.status_code,
			body: outcome.body,
			error: outcome.error,
			duration_ms: outcome.duration_ms,
			signature_sent: signature,
		});
	}

	function listDeliveries(url) {
		const taskId = url.searchParams.get('task_id');
		const webhookId = url.searchParams.get('webhook_id');
		const keep = (r) => (!taskId || r.task_id === taskId) && (!webhookId || r.webhook_id === webhookId);
		const byId = new Map(state.deliveries.map((d) => [d.delivery_id, d]));
		return {
			deliveries: state.deliveries.filter(keep).map((d) => ({ ...d })),
			attempts: state.attempts.filter(keep).map((a) => ({ ...a, state: byId.get(a.delivery_id)?.state ?? null })),
		};
	}

	async function handleAdmin(req, res, url) {
		const p = url.pathname.replace(/^\/_emulator/, '') || '/';
		const key = `${req.method} ${p}`;
		switch (key) {
			case 'GET /health':
				return sendJson(res, 200, { ok: true });
			case 'GET /deliveries':
				return sendJson(res, 200, listDeliveries(url));
			case 'GET /webhooks':
				return sendJson(res, 200, { webhooks: [...state.webhooks.values()].map(publicWebhook) });
			case 'GET /tasks':
				return sendJson(res, 200, {
					tasks: [...state.tasks.values()].map((t) => ({
						...publicTask(t),
						project_id: t.project_id,
						document_type: t.document_type,
						file_size: t.file_size,
						file_sha256: t.file_sha256,
						max_pages: t.max_pages,
						history: t.history.map((h) => ({ ...h })),
					})),
				});
			case 'GET /faults':
				return sendJson(res, 200, { faults: state.faults.map((f) => ({ ...f })) });
			case 'POST /faults':
				return handleAddFault(req, res);
			case 'DELETE /faults':
				state.faults.length = 0;
				return sendJson(res, 200, { ok: true, faults: [] });
			case 'GET /stats':
				return sendJson(res, 200, state.stats);
			case 'POST /stats/reset':
				resetStats();
				return sendJson(res, 200, state.stats);
			case 'POST /deliver':
				return handleManualDeliver(req, res);
			case 'POST /reset':
				resetAll();
				log('state reset');
				return sendJson(res, 200, { ok: true });
			default:
				return sendJson(res, 404, { detail: 'Not Found' });
		}
	}

	// ------------------------------------------------------------------ server

	async function handle(req, res) {
		const started = process.hrtime.bigint();
		res.once('finish', () => {
			const ms = Number((process.hrtime.bigint() - started) / 1000000n);
			log(`${req.method} ${req.url.split('?')[0]} -> ${res.statusCode} (${ms} ms)`);
		});
		const url = new URL(req.url, `http://${HOST}`);
		let pathname = url.pathname;
		if (pathname.length > 1 && pathname.endsWith('/')) pathname = pathname.slice(0, -1);
		url.pathname = pathname;

		if (pathname === '/_emulator' || pathname.startsWith('/_emulator/')) {
			await handleAdmin(req, res, url);
			return;
		}
		const route = matchServiceRoute(pathname);
		if (!route) {
			sendJson(res, 404, { detail: 'Not Found' });
			return;
		}
		if (req.method !== route.method) {
			sendJson(res, 405, { detail: 'Method Not Allowed' }, { Allow: route.method });
			return;
		}
		await handleService(req, res, route);
	}

	const server = http.createServer((req, res) => {
		handle(req, res).catch((err) => {
			log(`internal error: ${err && err.stack ? err.stack : err}`);
			sendJson(res, 500, { detail: 'Internal Server Error' });
		});
	});
	// Large uploads over loopback are fast; keep Node's defaults for the rest.
	server.keepAliveTimeout = 5000;

	await new Promise((resolve, reject) => {
		const onError = (err) => reject(err);
		server.once('error', onError);
		server.listen({ port: opts.port, host: HOST }, () => {
			server.removeListener('error', onError);
			resolve();
		});
	});
	const port = server.address().port;
	const url = `http://${HOST}:${port}`;
	log(`listening on ${url}`);

	let closing = null;
	function close() {
		if (closing) return closing;
		closed = true;
		generation += 1;
		for (const t of workTimers) clearTimeout(t);
		for (const t of otherTimers) clearTimeout(t);
		workTimers.clear();
		otherTimers.clear();
		for (const req of activeOutbound) req.destroy();
		activeOutbound.clear();
		closing = new Promise((resolve) => {
			server.close(() => resolve());
			server.closeAllConnections();
		});
		return closing;
	}

	return { url, port, close, state };
}

// --------------------------------------------------------------------- CLI

function envList(value) {
	if (value === undefined || value.trim() === '') return undefined;
	return value
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
}

function envNumber(name, value, fallback) {
	if (value === undefined || value.trim() === '') return fallback;
	const n = Number(value);
	if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got '${value}'`);
	return n;
}

function main() {
	const env = process.env;
	let options;
	try {
		options = {
			port: envNumber('EMULATOR_PORT', env.EMULATOR_PORT, 8790),
			apiKeys: envList(env.EMULATOR_API_KEYS),
			inactiveKeys: envList(env.EMULATOR_INACTIVE_KEYS),
			processingMs: envNumber('EMULATOR_PROCESSING_MS', env.EMULATOR_PROCESSING_MS, undefined),
			timeScale: envNumber('EMULATOR_TIME_SCALE', env.EMULATOR_TIME_SCALE, undefined),
			failMarker: env.EMULATOR_FAIL_MARKER || undefined,
			log: env.EMULATOR_LOG && env.EMULATOR_LOG !== '0' ? (line) => console.error(`[emulator] ${line}`) : false,
		};
	} catch (err) {
		console.error(err.message);
		process.exit(2);
	}
	createEmulator(options).then(
		(emu) => {
			console.log(`Document Extraction emulator listening on ${emu.url}`);
			let stopping = false;
			const stop = () => {
				if (stopping) process.exit(1);
				stopping = true;
				emu.close().then(() => process.exit(0));
			};
			process.on('SIGINT', stop);
			process.on('SIGTERM', stop);
		},
		(err) => {
			console.error(`Document Extraction emulator could not start: ${err.message}`);
			process.exit(1);
		},
	);
}

if (require.main === module) main();

module.exports = { createEmulator, DEFAULT_PROJECTS };
