import { INPUT_MESSAGES } from './input';
import { RUN_MESSAGES } from './run';

// Each sentence the node says, written once; the shared code's are in ../../shared/messages.ts.
export const MESSAGES = { ...RUN_MESSAGES, ...INPUT_MESSAGES };

export { failedRunLines, HINTS, timedOutMessage } from './run';
