import { type NodeContext, ServiceError } from './errors';

/**
 * Deadlines, as the transport keeps them. A caller gives the transport one value, the epoch
 * milliseconds by which its work must be over (an item's start + Max Wait, a lookup's budget);
 * only the transport keeps a margin before it, here: no request attempt starts with less than
 * MIN_ATTEMPT_TIMEOUT_MS left, so no request is sent with a near-zero timeout.
 */

/** No attempt is sent with less time than this left before its deadline. */
export const MIN_ATTEMPT_TIMEOUT_MS = 500;

/** The last moment a request with `deadline` can still be started. */
export function latestStart(deadline: number): number {
	return deadline - MIN_ATTEMPT_TIMEOUT_MS;
}

/** Whether a request with `deadline` can still start now. */
function canStart(deadline: number, now = Date.now()): boolean {
	return now <= latestStart(deadline);
}

/**
 * The time a download by `deadline` has (at most `timeoutMs`); none left to start it is a
 * failure of kind out_of_time.
 */
export function downloadTime(
	ctx: NodeContext,
	timeoutMs: number,
	deadline: number | undefined,
	itemIndex: number,
): number {
	if (deadline === undefined) return timeoutMs;
	if (!canStart(deadline)) {
		const failure = { kind: 'out_of_time' as const, facts: { download: true }, itemIndex };
		throw new ServiceError(ctx.getNode(), failure);
	}
	return Math.min(timeoutMs, deadline - Date.now());
}
