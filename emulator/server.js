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
 *
 * This file holds the routing, the server and the CLI. The rest lives in lib/, each
 * module taking the shared context of lib/context.js as first argument:
 * lib/tasks.js (task lifecycle), lib/deliveries.js (webhooks), lib/admin.js (faults,
 * stats, /_emulator/).
 */

const http = require('node:http');

const { DEFAULT_PROJECTS } = require('./lib/fixtures.js');
const { normalizeOptions } = require('./lib/options.js');
const { createContext, cancelWork, later } = require('./lib/context.js');
const { sendJson } = require('./lib/http.js');
const { handleProcessFile, handleTaskStatus, handleProjects } = require('./lib/tasks.js');
const { handleRegisterWebhook } = require('./lib/deliveries.js');
const { handleAdmin, applyFault, countRequest } = require('./lib/admin.js');
const { rateLimit, trickleAnswer } = require('./lib/limits.js');

const HOST = '127.0.0.1';

// ----------------------------------------------------------------- routing

const SERVICE_HANDLERS = {
	process_file: handleProcessFile,
	task_status: handleTaskStatus,
	projects: handleProjects,
	webhooks: handleRegisterWebhook,
};

function safeDecode(s) {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
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

/** Checks the bearer key; returns {status, detail} for a refused request, else null. */
function authenticate(opts, req) {
	const header = req.headers.authorization;
	const m = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
	if (!m) return { status: 401, detail: 'Invalid or missing API key' };
	const key = m[1];
	if (opts.inactiveKeys.includes(key)) return { status: 402, detail: 'Subscription inactive' };
	if (!opts.apiKeys.includes(key)) return { status: 401, detail: 'Invalid or missing API key' };
	return null;
}

/**
 * A service request: counted, then the rate limit and faults (before authentication), then the
 * key, then the handler (its answer trickled when a trickle is set).
 */
async function handleService(ctx, req, res, route) {
	countRequest(ctx, route, res);
	if (rateLimit(ctx, res)) return;
	if (await applyFault(ctx, route.endpoint, req, res)) return;
	trickleAnswer(ctx, route.endpoint, res);
	const authError = authenticate(ctx.opts, req);
	if (authError) {
		const headers = authError.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
		sendJson(res, authError.status, { detail: authError.detail }, headers);
		return;
	}
	await SERVICE_HANDLERS[route.endpoint](ctx, req, res, route.params);
}

async function handle(ctx, req, res) {
	const started = process.hrtime.bigint();
	res.once('finish', () => {
		const ms = Number((process.hrtime.bigint() - started) / 1000000n);
		ctx.log(`${req.method} ${req.url.split('?')[0]} -> ${res.statusCode} (${ms} ms)`);
	});
	const url = new URL(req.url, `http://${HOST}`);
	let pathname = url.pathname;
	if (pathname.length > 1 && pathname.endsWith('/')) pathname = pathname.slice(0, -1);
	url.pathname = pathname;

	if (pathname === '/_emulator' || pathname.startsWith('/_emulator/')) {
		await handleAdmin(ctx, req, res, url);
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
	await handleService(ctx, req, res, route);
}

// ------------------------------------------------------------------ server

/**
 * Start an emulator.
 * @param {object} [options] see README.md
 * @returns {Promise<{url: string, port: number, close: () => Promise<void>, state: object}>}
 */
async function createEmulator(options) {
	const ctx = createContext(normalizeOptions(options));

	const server = http.createServer((req, res) => {
		handle(ctx, req, res).catch((err) => {
			ctx.log(`internal error: ${err && err.stack ? err.stack : err}`);
			sendJson(res, 500, { detail: 'Internal Server Error' });
		});
	});
	// Large uploads over loopback are fast; keep Node's defaults for the rest.
	server.keepAliveTimeout = 5000;

	await new Promise((resolve, reject) => {
		const onError = (err) => reject(err);
		server.once('error', onError);
		server.listen({ port: ctx.opts.port, host: HOST }, () => {
			server.removeListener('error', onError);
			resolve();
		});
	});
	const port = server.address().port;
	const url = `http://${HOST}:${port}`;
	ctx.log(`listening on ${url}`);

	ctx.refuseConnections = (ms) => {
		if (ctx.closed) return;
		const refusal = { from: new Date().toISOString(), until: null };
		ctx.state.stats.refusals.push(refusal);
		server.close();
		server.closeIdleConnections();
		ctx.log(`refusing connections for ${ms} ms`);
		later(ctx.otherTimers, ms, () => {
			if (ctx.closed) return;
			server.listen({ port, host: HOST }, () => {
				refusal.until = new Date().toISOString();
				ctx.log('listening again');
			});
		});
	};

	let closing = null;
	function close() {
		if (closing) return closing;
		ctx.closed = true;
		cancelWork(ctx, { includeDelays: true });
		for (const res of ctx.hung) res.destroy();
		closing = new Promise((resolve) => {
			if (!server.listening) {
				server.closeAllConnections();
				resolve();
				return;
			}
			server.close(() => resolve());
			server.closeAllConnections();
		});
		return closing;
	}

	return { url, port, close, state: ctx.state };
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

/** createEmulator options from the EMULATOR_* environment variables (see README.md). */
function optionsFromEnv(env) {
	return {
		port: envNumber('EMULATOR_PORT', env.EMULATOR_PORT, 8790),
		apiKeys: envList(env.EMULATOR_API_KEYS),
		inactiveKeys: envList(env.EMULATOR_INACTIVE_KEYS),
		processingMs: envNumber('EMULATOR_PROCESSING_MS', env.EMULATOR_PROCESSING_MS, undefined),
		timeScale: envNumber('EMULATOR_TIME_SCALE', env.EMULATOR_TIME_SCALE, undefined),
		failMarker: env.EMULATOR_FAIL_MARKER || undefined,
		log: Boolean(env.EMULATOR_LOG && env.EMULATOR_LOG !== '0'),
	};
}

const DEFAULT_API_KEY = 'vnd_test_key';

/** What the CLI prints under its first line: what to paste into n8n's credential, and the CRM stand-in. */
function credentialNote(url, apiKey) {
	return [
		'',
		'  In your n8n, create a Document Extraction API credential with:',
		`    API Key:   ${apiKey}`,
		`    Base URL:  ${url}`,
		'',
		`  CRM stand-in: the email examples' CRM Record posts to ${url}/_emulator/sink/crm;`,
		`  the records it received: ${url}/_emulator/sink`,
		'  Ctrl-C stops the emulator.',
		'',
	].join('\n');
}

function main() {
	let options;
	try {
		options = optionsFromEnv(process.env);
	} catch (err) {
		console.error(err.message);
		process.exit(2);
	}
	createEmulator(options).then(
		(emu) => {
			console.log(`Document Extraction emulator listening on ${emu.url}`);
			console.log(credentialNote(emu.url, options.apiKeys?.[0] ?? DEFAULT_API_KEY));
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
