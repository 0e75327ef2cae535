import { NO_PROJECT_SELECTED } from '../shared/messages';

/** What the Document Extraction Trigger says, each sentence written once. */

/** How to start the workflow without a registration by this node. */
const OR_USE_EXISTING = 'or turn on Use Existing Registration';

export const MESSAGES = {
	noProject: {
		message: `${NO_PROJECT_SELECTED}: pick the project whose finished documents start this workflow, ${OR_USE_EXISTING}`,
		description: `Pick the project whose task.completed events should start this workflow, ${OR_USE_EXISTING}.`,
	},
	noWebhookUrl: 'n8n did not provide a webhook URL for this node',

	/** The answers to a delivery that starts nothing: `error` (refused) or `ignored` (acknowledged). */
	answers: {
		invalidSignature: 'invalid signature',
		notJson: 'body is not a JSON object',
		otherEvent: 'event not handled',
		filteredOut: 'status filtered out',
		duplicate: 'duplicate delivery',
		busy: 'an earlier copy of this delivery is still being processed; send it again later',
		/** A timestamp that is missing or unreadable. */
		noTimestamp: (reason: string) =>
			`timestamp ${reason}: a delivery must carry its signed ISO 8601 timestamp`,
		/** A timestamp too old or too far ahead: how far from n8n's clock, and the tolerance. */
		outsideTolerance: (reason: string, difference: string, tolerance: string) =>
			`timestamp ${reason}: ${difference} ${reason === 'too old' ? 'before' : 'after'} n8n's clock, more than the tolerance of ${tolerance}`,
		forgotten: (difference: string, bound: string) =>
			`timestamp too old: ${difference} before n8n's clock, before the oldest delivery this n8n process still remembers (more than ${bound} arrived within the hour)`,
		noTaskId: 'task_id missing: a task.completed delivery must name its task',
		otherProject: "project_id is not the project this trigger's webhook is registered for",
	},
	/** The log line of a signed delivery refused for its timestamp. */
	refusedLog: (reason: string) =>
		`Document Extraction Trigger refused a signed delivery: ${reason}`,

	/** Why a failed task's item has no error message (errorDetailsUnavailable). */
	errorDetails: {
		noError: 'The service gave no error message for this task',
		lookupFailed: (reason: string) => `Could not fetch the error message: ${reason}`,
	},
};
