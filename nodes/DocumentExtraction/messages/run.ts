import type { About, RateLimitAdvice } from '../../shared/explain';
import { CHECK_BEFORE_RESENDING, NO_PROJECT_SELECTED, SECOND_CHARGE } from '../../shared/messages';
import type { SubmissionFields } from '../input/requestBody';

export const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

const fetchWithGetStatus = (count: number, later = false) =>
	`fetch ${plural(count, 'it', 'them')}${later ? ' later' : ''} with Get Status`;

const FETCH_LATER = `F${fetchWithGetStatus(1, true).slice(1)} and this task_id`;

const RATE_LIMIT_ADVICE: RateLimitAdvice = {
	message: 'Lower Max Concurrent Requests or send fewer items per run',
	description:
		'Lower "Max Concurrent Requests", send fewer items per run (for example with Loop Over Items and a Wait node), raise "Max Wait" (Submit and Wait), or ask the service for a higher rate limit.',
	timeRanOut: 'the time the request had (Max Wait for Submit and Wait) ran out',
};

export const RUN_MESSAGES = {
	documentRequest: (fields: SubmissionFields): About => ({
		subject: `project "${fields.project}" or document type "${fields.document_type}"`,
		sending: 'the document',
		action: 'the document',
		rateLimitAdvice: RATE_LIMIT_ADVICE,
		missing: 'The service accepted the document but returned no task_id',
	}),
	taskRequest: (taskId: string): About => ({
		subject: `task ${taskId}`,
		rateLimitAdvice: RATE_LIMIT_ADVICE,
		missing: `The service returned no task for ${taskId}`,
	}),

	notANumber: (label: string, minimum: number, raw: unknown) => ({
		message: `${label} must be a number of at least ${minimum}`,
		description: `Got "${String(raw)}". Change the "${label}" option.`,
	}),
	notWhole: (label: string, minimum: number, value: number) => ({
		message: `${label} must be a whole number`,
		description: `Got ${value}. Enter a whole number, ${minimum} or more.`,
	}),
	noProject: {
		message: `${NO_PROJECT_SELECTED}: pick one in Project, from the list or by its ID or name`,
		description: 'Pick a project from the list, or enter its ID or name.',
	},
	noDocumentType: {
		message: 'No document type given: choose one in Document Type, for example invoice',
		description: 'Choose the document type to extract, for example invoice.',
	},
	notATaskId: (taskId: string) => ({
		message: `"${taskId}" is not a task ID`,
		description:
			'A task ID is the UUID returned by Submit Document, for example 0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01. Map the task_id field of the submitting node into "Task ID".',
	}),
	noEvent: {
		message: 'No event selected',
		description: 'Select Task Completed: it is the only event the service can deliver.',
	},

	notStarted: 'Not submitted: another item had already failed',
	notSentAgain: (earlier: { message: string; description?: string }) => ({
		message: `Not sent again: an earlier try of this node in this execution may have delivered the document to the service (${earlier.message})`,
		description:
			`${earlier.description ?? ''}\nRetry On Fail does not send a document again when its earlier try may have reached the service: that ${SECOND_CHARGE}. ${CHECK_BEFORE_RESENDING}`.trim(),
	}),
	taskFailed: (taskId: string, error: unknown) => {
		const reason = typeof error === 'string' && error ? error : 'no error text was given';
		return {
			// The service's own text may already say so; the message says it once.
			message: /^extraction failed\b/i.test(reason) ? reason : `Extraction failed: ${reason}`,
			description: `Task ${taskId} ended with status failed. Check the document, or turn on "Output Failed Tasks as Items" to pass failed tasks on as items.`,
		};
	},

	notForTools: {
		message: 'Register Webhook is not available when the node is used as a tool',
		description:
			'Registering a webhook creates a signing secret, which must not reach an AI agent or MCP client. Register webhooks in a regular workflow, or use the Document Extraction Trigger.',
	},
	unsupported: (operation: string, resource: string) =>
		`The operation "${operation}" of "${resource}" is not supported`,
};

type TimedOutReason = 'running' | 'unanswered' | 'noSlot' | 'noTimeLeft';

export function timedOutMessage(maxWaitS: number, slots: number, why: TimedOutReason): string {
	const within = `within Max Wait (${maxWaitS} s)`;
	switch (why) {
		case 'running':
			return `The task was still running after ${maxWaitS} s. ${FETCH_LATER}.`;
		case 'unanswered':
			return `No status check was answered ${within}, so the task's status is not known. ${FETCH_LATER}.`;
		case 'noSlot':
			return `No status check could be made ${within}: all ${slots} request slots stayed busy. The task's status is not known: ${FETCH_LATER.toLowerCase()}, or raise Max Wait or Max Concurrent Requests.`;
		case 'noTimeLeft':
			return `The document was accepted, but no time was left for a status check ${within}: sending it took that long (for example while the service was rate-limiting). ${FETCH_LATER}, or raise Max Wait.`;
	}
}

export function failedRunLines(
	ownTask: string | undefined,
	otherTasks: Array<{ itemIndex: number; taskId: string }>,
	notStarted: number,
): string[] {
	const lines: string[] = [];
	if (ownTask) lines.push(`This item's task: ${ownTask} (${fetchWithGetStatus(1)}).`);
	if (otherTasks.length) {
		const list = otherTasks
			.map(({ itemIndex, taskId }) => `item ${itemIndex}: ${taskId}`)
			.join(', ');
		lines.push(`Tasks submitted for other items in this run (${fetchWithGetStatus(2)}): ${list}`);
	}
	if (notStarted) {
		lines.push(
			`${notStarted} ${plural(notStarted, 'item was', 'items were')} not submitted because of this failure.`,
		);
	}
	return lines;
}

export const HINTS = {
	timedOut: (timedOut: number, unknown: number) => {
		// A task none of whose status checks was answered may have finished: it is not "running".
		const what =
			unknown === 0
				? `${plural(timedOut, 'task was', 'tasks were')} still running after Max Wait`
				: unknown === timedOut
					? `${plural(timedOut, 'task has', 'tasks have')} no known status: no status check was answered within Max Wait`
					: `${plural(timedOut, 'task', 'tasks')} did not finish within Max Wait (${unknown} without any status answer)`;
		return `${timedOut} ${what}; ${plural(timedOut, 'its task_id is', 'their task_ids are')} in the output: ${fetchWithGetStatus(timedOut, true)}, or raise Max Wait`;
	},
	failedTasks: (count: number) =>
		`${count} ${plural(count, 'task', 'tasks')} failed at the service; ${plural(count, 'it is', 'they are')} output with status "failed" and the service's error text`,
	errorItems: (count: number, withTask: number) => {
		let message = `${count} ${plural(count, 'item', 'items')} failed and ${plural(count, 'is', 'are')} output as ${plural(count, 'an error item', 'error items')} (On Error → Continue), with the reason in "error"`;
		if (withTask === count) {
			message += `; ${plural(count, 'it carries its', 'they carry their')} task_id: ${fetchWithGetStatus(count)}`;
		} else if (withTask) {
			message += `; ${withTask} of them had been submitted and ${plural(withTask, 'carries its', 'carry their')} task_id: ${fetchWithGetStatus(withTask)}`;
		}
		return message;
	},
	skippedFiles: (count: number, list: string) =>
		`${count} ${plural(count, 'file was', 'files were')} not sent, File Types not counting ${plural(count, 'it', 'them')} as a document: ${list}. Add ${plural(count, 'its type', 'their types')} to File Types to send ${plural(count, 'it', 'them')}`,
	smallImages: (count: number, list: string) =>
		`${count} ${plural(count, 'image was', 'images were')} not sent, below Skip Images Smaller Than (an email's logos and icons): ${list}. Lower the option to send ${plural(count, 'it', 'them')}`,
	skippedItems: (items: number[]) =>
		`${items.length} ${plural(items.length, 'item held', 'items held')} no document and gave no output (Items Without a Document: Skip): item ${items.join(', item ')}`,
};
