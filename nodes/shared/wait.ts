import * as workflow from 'n8n-workflow';

type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Thrown when the execution was stopped while the node waited or was about to send a request. */
export class CancelledError extends Error {
	constructor() {
		super('The execution was stopped');
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
 * Resolves once the signal fires (never, without a signal), with a function that stops
 * listening, so a wait that ends first leaves nothing behind.
 */
export function onAbort(signal: AbortSignal | undefined): {
	promise: Promise<void>;
	dispose: () => void;
} {
	if (!signal) return { promise: new Promise<void>(() => {}), dispose: () => {} };
	let listener: (() => void) | undefined;
	const promise = new Promise<void>((resolve) => {
		listener = () => resolve();
		signal.addEventListener('abort', listener, { once: true });
	});
	return { promise, dispose: () => signal.removeEventListener('abort', listener!) };
}

/**
 * Waits `ms`, or less: returns at once when the execution is stopped (then throws a
 * CancelledError), on every n8n version, also where the host's sleep ignores the signal.
 */
export async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
	throwIfCancelled(signal);
	if (ms > 0) {
		const aborted = onAbort(signal);
		try {
			// A sleep that honours the signal rejects on abort; that outcome is the abort race's.
			await Promise.race([hostSleep()(ms, signal).catch(() => {}), aborted.promise]);
		} finally {
			aborted.dispose();
		}
	}
	throwIfCancelled(signal);
}
