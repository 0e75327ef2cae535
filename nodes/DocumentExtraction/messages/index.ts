import { INPUT_MESSAGES } from './input';
import { RUN_MESSAGES } from './run';

/**
 * What the Document Extraction node tells the user, each sentence written once: the message and
 * description of each of its errors, its advice, and the hints after a run. Code throws
 * `nodeError(this, kind, MESSAGES.x.message, { itemIndex, description })`; what the shared code
 * and the transport say is in ../../shared/messages.ts.
 */
export const MESSAGES = { ...RUN_MESSAGES, ...INPUT_MESSAGES };

export { failedRunLines, HINTS, plural, timedOutMessage, type TimedOutReason } from './run';
