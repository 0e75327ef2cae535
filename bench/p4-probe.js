'use strict';

/**
 * Phase timer for benchmark row P4, preloaded into the measured n8n process
 * (`node --require bench/p4-probe.js n8n start`; bench/trigger.js does this unless
 * BENCH_P4_PROBE=0). It wraps, once their modules are loaded, the methods n8n 2.x runs for every
 * production webhook request and appends one JSON line per call to P4_PROBE_FILE:
 *
 *   {t, path, phase, ms, ...}   t = Date.now() at the end, path = the request's URL path
 *
 * Phases (n8n 2.41.1, packages/cli/src/webhooks/live-webhooks.ts and webhook-helpers.ts):
 *   request          WebhookRequestHandler.handleRequest: the whole request until n8n sends the answer
 *   findWebhook      the webhook row for the path
 *   loadWorkflow     the published workflow with its static data (LiveWebhooks.loadWebhookExecutionData)
 *   acquireIsolate   Expression.acquireIsolate: n8n takes an expression isolate for every webhook
 *                    whose start node is not the plain Webhook node (created cold when the pool is empty)
 *   runWebhook       the node's webhook() method (WebhookService.runWebhook)
 *   runnerRun        WorkflowRunner.run: creating the execution (database insert) and starting it
 *   saveStaticData   WorkflowStaticDataService.saveStaticData; `changed` tells whether it wrote
 *   releaseIsolate   Expression.releaseIsolate (disposes the isolate)
 *   answered         from the start of the request to the response's 'finish' event
 *
 * Nothing is changed in what n8n does; the wrappers only take the time. Records are buffered
 * and written every 200 ms and at exit.
 */

const fs = require('node:fs');
const Module = require('node:module');
const { AsyncLocalStorage } = require('node:async_hooks');

const FILE = process.env.P4_PROBE_FILE;
const als = new AsyncLocalStorage();
let buffer = [];

function flush() {
	if (!FILE || !buffer.length) return;
	const lines = buffer.map((r) => JSON.stringify(r)).join('\n') + '\n';
	buffer = [];
	try {
		fs.appendFileSync(FILE, lines);
	} catch {
		// the bench reads what is there
	}
}

if (FILE) {
	setInterval(flush, 200).unref();
	process.on('exit', flush);
}

function record(phase, ms, extra) {
	const store = als.getStore();
	buffer.push({ t: Date.now(), path: store?.path, phase, ms: Math.round(ms * 1000) / 1000, ...extra });
}

/** Wraps an async method of `proto` so that its duration is recorded as `phase`. */
function timeMethod(proto, method, phase, extra = () => undefined) {
	const original = proto?.[method];
	if (typeof original !== 'function' || original.__p4) return;
	const wrapped = async function (...args) {
		const before = extra.call(this, args);
		const start = performance.now();
		try {
			return await original.apply(this, args);
		} finally {
			record(phase, performance.now() - start, before);
		}
	};
	wrapped.__p4 = true;
	proto[method] = wrapped;
}

const patches = [
	[
		/[\\/]n8n[\\/]dist[\\/]webhooks[\\/]webhook-request-handler\.js$/,
		(exp) => {
			// handleRequest is a method of a class that is not exported: wrap the exported factory's result
			const original = exp.createWebhookHandlerFor;
			if (typeof original !== 'function') return;
			exp.createWebhookHandlerFor = function (...args) {
				const handler = original.apply(this, args);
				return async (req, res) => {
					const path = String(req.originalUrl ?? req.url ?? '').split('?')[0];
					const start = performance.now();
					res.once('finish', () =>
						als.run({ path }, () => record('answered', performance.now() - start, { status: res.statusCode })),
					);
					return await als.run({ path }, async () => {
						try {
							return await handler(req, res);
						} finally {
							record('request', performance.now() - start);
						}
					});
				};
			};
		},
	],
	[
		/[\\/]n8n[\\/]dist[\\/]webhooks[\\/]live-webhooks\.js$/,
		(exp) => {
			const proto = exp.LiveWebhooks?.prototype;
			timeMethod(proto, 'findWebhook', 'findWebhook');
			timeMethod(proto, 'loadWebhookExecutionData', 'loadWorkflow');
		},
	],
	[
		/[\\/]n8n[\\/]dist[\\/]webhooks[\\/]webhook\.service\.js$/,
		(exp) => timeMethod(exp.WebhookService?.prototype, 'runWebhook', 'runWebhook'),
	],
	[
		/[\\/]n8n[\\/]dist[\\/]workflow-runner\.js$/,
		(exp) => timeMethod(exp.WorkflowRunner?.prototype, 'run', 'runnerRun'),
	],
	[
		/[\\/]n8n[\\/]dist[\\/]workflows[\\/]workflow-static-data\.service\.js$/,
		(exp) =>
			timeMethod(exp.WorkflowStaticDataService?.prototype, 'saveStaticData', 'saveStaticData', function (args) {
				const data = args[0]?.staticData;
				const changed = data?.__dataChanged === true;
				let bytes;
				if (changed) {
					try {
						bytes = Buffer.byteLength(JSON.stringify(data));
					} catch {
						bytes = undefined;
					}
				}
				return { changed, bytes };
			}),
	],
	[
		/[\\/]n8n-workflow[\\/]dist[\\/]cjs[\\/]expression\.js$/,
		(exp) => {
			const proto = exp.Expression?.prototype;
			timeMethod(proto, 'acquireIsolate', 'acquireIsolate');
			timeMethod(proto, 'releaseIsolate', 'releaseIsolate');
		},
	],
];

if (FILE) {
	const done = new Set();
	const originalLoad = Module._load;
	Module._load = function (request, parent, isMain) {
		const exports = originalLoad.apply(this, arguments);
		if (done.size < patches.length && /webhook|workflow-runner|static-data|expression/.test(request)) {
			let filename;
			try {
				filename = Module._resolveFilename(request, parent, isMain);
			} catch {
				return exports;
			}
			patches.forEach(([re, patch], i) => {
				if (done.has(i) || !re.test(filename)) return;
				done.add(i);
				try {
					patch(exports);
				} catch (error) {
					process.stderr.write(`[p4-probe] could not wrap ${filename}: ${error.message}\n`);
				}
			});
		}
		return exports;
	};
}
