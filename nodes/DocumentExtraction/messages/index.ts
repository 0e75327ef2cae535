import { type FailureKind, type NodeContext, nodeError } from '../../shared/transport/errors';
import { INPUT_MESSAGES } from './input';
import { RUN_MESSAGES } from './run';

// Each sentence the node says, written once; the shared code's are in ../../shared/messages.ts.
export const MESSAGES = { ...RUN_MESSAGES, ...INPUT_MESSAGES };

export { failedRunLines, HINTS, timedOutMessage } from './run';

export type Words = { message: string; description?: string };

/** The error of an item in these words: invalid_input unless the caller knows another kind. */
export function refusal(
	ctx: NodeContext,
	{ message, description }: Words,
	itemIndex?: number,
	kind: FailureKind = 'invalid_input',
) {
	return nodeError(ctx, kind, message, { itemIndex, description });
}
