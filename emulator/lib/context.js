'use strict';

/**
 * The shared state of one emulator instance. Every module of the emulator gets
 * this object (`ctx`) as its first argument instead of closing over it:
 *
 *   ctx.opts            normalized options (lib/options.js)
 *   ctx.log(line)       logger (a no-op unless logging is on)
 *   ctx.state           the live data, also exposed as `emu.state`:
 *                       projects, tasks (Map), webhooks (Map), deliveries, attempts, faults,
 *                       files (served by URL), stats
 *   ctx.generation      bumped by reset and close; timer callbacks of an older generation do nothing
 *   ctx.closed          true once close() started
 *   ctx.workTimers      task progress and delivery retries (cleared by reset and close)
 *   ctx.otherTimers     injected fault delays (cleared on close only)
 *   ctx.activeOutbound  outbound requests in flight (aborted by reset and close)
 *   ctx.hung            answers a `hang` fault holds open (destroyed by reset and close)
 *   ctx.refuseConnections(ms)  stops listening for ms (set by server.js)
 */

const ENDPOINTS = ['process_file', 'task_status', 'projects', 'webhooks'];

function emptyStats() {
	const requests = {};
	for (const endpoint of ENDPOINTS) requests[endpoint] = 0;
	return {
		requests,
		status_polls_by_task: Object.create(null),
		in_flight: 0,
		max_in_flight: 0,
		faults_applied: { answer: 0, hang: 0, drop_after_read: 0, handle_then_answer: 0, echo_auth: 0 },
		refusals: [],
	};
}

function createContext(opts) {
	return {
		opts,
		log: typeof opts.log === 'function' ? opts.log : () => {},
		state: {
			options: opts,
			projects: opts.projects,
			tasks: new Map(),
			webhooks: new Map(),
			deliveries: [],
			attempts: [],
			faults: [],
			files: [],
			stats: emptyStats(),
		},
		generation: 0,
		closed: false,
		workTimers: new Set(),
		otherTimers: new Set(),
		activeOutbound: new Set(),
		hung: new Set(),
		refuseConnections: () => {},
	};
}

/** True while a callback scheduled in generation `gen` may still act. */
function isCurrent(ctx, gen) {
	return !ctx.closed && gen === ctx.generation;
}

/** setTimeout tracked in `timers`, so reset/close can cancel it. */
function later(timers, ms, fn) {
	const t = setTimeout(() => {
		timers.delete(t);
		fn();
	}, ms);
	timers.add(t);
	return t;
}

function sleep(ctx, ms) {
	return new Promise((resolve) => later(ctx.otherTimers, ms, resolve));
}

/** Stops all scheduled work and outbound requests: a new generation begins. */
function cancelWork(ctx, { includeDelays = false } = {}) {
	ctx.generation += 1;
	const sets = includeDelays ? [ctx.workTimers, ctx.otherTimers] : [ctx.workTimers];
	for (const timers of sets) {
		for (const t of timers) clearTimeout(t);
		timers.clear();
	}
	for (const req of ctx.activeOutbound) req.destroy();
	ctx.activeOutbound.clear();
}

function nowIso() {
	return new Date().toISOString();
}

module.exports = { ENDPOINTS, createContext, isCurrent, later, sleep, cancelWork, nowIso };
