import * as workflow from 'n8n-workflow';

import { STOPPED } from './messages';

type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

export class CancelledError extends Error {
	readonly kind = 'stopped';

	constructor() {
		super(STOPPED);
		this.name = 'CancelledError';
	}
}

export function throwIfCancelled(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw new CancelledError();
}

// One listener per cancel signal, with a Set of callbacks: thousands of items wait on one signal,
// and removing a listener costs in proportion to the list.
const waiters = new WeakMap<AbortSignal, Set<() => void>>();

/** Resolves once the signal fires (never without one); `dispose` stops listening. */
export function onAbort(signal?: AbortSignal): { promise: Promise<void>; dispose: () => void } {
	if (!signal) return { promise: new Promise<void>(() => {}), dispose: () => {} };
	let set = waiters.get(signal);
	if (!set) {
		const callbacks = (set = new Set<() => void>());
		const fire = () => {
			for (const callback of [...callbacks]) callback();
			callbacks.clear();
		};
		signal.addEventListener('abort', fire, { once: true });
		waiters.set(signal, callbacks);
	}
	let listener: () => void = () => {};
	const promise = new Promise<void>((resolve) => {
		listener = () => resolve();
		if (signal.aborted) resolve();
		else set.add(listener);
	});
	return { promise, dispose: () => set.delete(listener) };
}

/** Calls `fire` after `ms` (n8n's cancellable sleep) unless the returned function clears it first. */
export function startTimer(ms: number, fire: () => void): () => void {
	const clock = new AbortController();
	// a timer the signal clears: `sleepWithAbort` where n8n-workflow has it (n8n 1.x), else `sleep(ms, signal)`
	const lib = workflow as unknown as { sleep: SleepFn; sleepWithAbort?: SleepFn };
	const sleep = typeof lib.sleepWithAbort === 'function' ? lib.sleepWithAbort : lib.sleep;
	void sleep(ms, clock.signal).then(fire, () => {});
	return () => clock.abort();
}

/** An attempt's signal: fires when `signal` (the execution's) does or after `timeoutMs`. */
export function attemptSignal(
	signal: AbortSignal | undefined,
	timeoutMs: number,
): { signal: AbortSignal; timedOut: () => boolean; dispose: () => void } {
	const controller = new AbortController();
	let timedOut = false;
	// the attempt's one timer, cleared by `dispose` when the attempt ends
	const clear = startTimer(timeoutMs, () => {
		timedOut = true;
		controller.abort(new DOMException('The attempt timed out', 'TimeoutError'));
	});
	const stopped = onAbort(signal);
	void stopped.promise.then(() => controller.abort(signal?.reason));
	return {
		signal: controller.signal,
		timedOut: () => timedOut,
		dispose: () => {
			stopped.dispose();
			clear();
		},
	};
}

/** Waits `ms`; throws a CancelledError at once on a stop, also where the sleep ignores it. */
export async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
	throwIfCancelled(signal);
	if (ms > 0) {
		// A stop ends the wait at once; the host's sleep is left to run out.
		const aborted = onAbort(signal);
		try {
			await Promise.race([workflow.sleep(ms), aborted.promise]);
		} finally {
			aborted.dispose();
		}
	}
	throwIfCancelled(signal);
}
