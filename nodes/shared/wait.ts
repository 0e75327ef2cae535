import * as workflow from 'n8n-workflow';

import { ERRORS } from './messages';

type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Thrown when the execution was stopped while the node waited or was about to send a request. */
export class CancelledError extends Error {
	readonly kind = 'stopped';

	constructor() {
		super(ERRORS.stopped);
		this.name = 'CancelledError';
	}
}

/** Throws a CancelledError when the execution's cancel signal has fired. */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw new CancelledError();
}

/**
 * The host's abortable sleep: `sleepWithAbort` where n8n-workflow still exports it (before
 * 2.34), else `sleep(ms, signal)`, which honours the signal from 2.34 on.
 */
function hostSleep(): SleepFn {
	const lib = workflow as unknown as { sleep: SleepFn; sleepWithAbort?: SleepFn };
	return typeof lib.sleepWithAbort === 'function' ? lib.sleepWithAbort : lib.sleep;
}

/**
 * The callbacks waiting on each cancel signal, behind one listener per signal. Thousands of
 * items wait on the same execution signal at once, and an AbortSignal's listener list costs
 * time in proportion to its length for every listener added or removed; a Set does not.
 */
const waiters = new WeakMap<AbortSignal, Set<() => void>>();

function waitersOf(signal: AbortSignal): Set<() => void> {
	let set = waiters.get(signal);
	if (!set) {
		const callbacks = new Set<() => void>();
		signal.addEventListener(
			'abort',
			() => {
				for (const callback of [...callbacks]) callback();
				callbacks.clear();
			},
			{ once: true },
		);
		waiters.set(signal, callbacks);
		set = callbacks;
	}
	return set;
}

/**
 * Resolves once the signal fires (never, without a signal), with a function that stops
 * listening, so a wait that ends first leaves nothing behind.
 */
export function onAbort(signal: AbortSignal | undefined): {
	promise: Promise<void>;
	dispose: () => void;
} {
	if (!signal) return { promise: new Promise<void>(() => {}), dispose: () => {} };
	const set = waitersOf(signal);
	let listener: () => void = () => {};
	const promise = new Promise<void>((resolve) => {
		listener = () => resolve();
		if (signal.aborted) resolve();
		else set.add(listener);
	});
	return { promise, dispose: () => set.delete(listener) };
}

/**
 * A signal of its own for one request attempt: it fires when `signal` (the execution's) fires
 * or when `timeoutMs` have passed, whichever comes first. `dispose` stops following `signal`.
 */
export function attemptSignal(
	signal: AbortSignal | undefined,
	timeoutMs: number,
): { signal: AbortSignal; timedOut: () => boolean; dispose: () => void } {
	const controller = new AbortController();
	const clock = AbortSignal.timeout(timeoutMs);
	const onTimeout = () => controller.abort(clock.reason);
	clock.addEventListener('abort', onTimeout, { once: true });
	const stopped = onAbort(signal);
	void stopped.promise.then(() => controller.abort(signal?.reason));
	return {
		signal: controller.signal,
		timedOut: () => clock.aborted,
		dispose: () => {
			stopped.dispose();
			clock.removeEventListener('abort', onTimeout);
		},
	};
}

/**
 * Waits `ms`, or less: returns at once when the execution is stopped (then throws a
 * CancelledError), on every n8n version, also where the host's sleep ignores the signal.
 */
export async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
	throwIfCancelled(signal);
	if (ms > 0) {
		const aborted = onAbort(signal);
		// The host's sleep listens on the signal it is given: it gets one of its own, so that
		// the execution's signal keeps one listener however many items wait.
		const own = signal ? new AbortController() : undefined;
		void aborted.promise.then(() => own?.abort());
		try {
			// A sleep that honours the signal rejects on abort; that outcome is the abort race's.
			await Promise.race([hostSleep()(ms, own?.signal).catch(() => {}), aborted.promise]);
		} finally {
			aborted.dispose();
		}
	}
	throwIfCancelled(signal);
}
