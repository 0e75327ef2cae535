import { type NodeContext, ServiceError } from './errors';

/** No attempt starts with less time than this left before its deadline (epoch ms). */
export const MIN_ATTEMPT_TIMEOUT_MS = 500;

export function latestStart(deadline: number): number {
	return deadline - MIN_ATTEMPT_TIMEOUT_MS;
}

/** The time a download by `deadline` has (at most `timeoutMs`); none left is out_of_time. */
export function downloadTime(
	ctx: NodeContext,
	timeoutMs: number,
	deadline: number | undefined,
	itemIndex: number,
): number {
	if (deadline === undefined) return timeoutMs;
	if (Date.now() > latestStart(deadline)) {
		const failure = { kind: 'out_of_time' as const, facts: { download: true }, itemIndex };
		throw new ServiceError(ctx.getNode(), failure);
	}
	return Math.min(timeoutMs, deadline - Date.now());
}
