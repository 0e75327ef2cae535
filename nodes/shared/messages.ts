import type { IDataObject } from 'n8n-workflow';

import { displayUrl, parseHttpUrl } from './urls';

/**
 * What the package tells the user, each sentence written once: the messages of its errors, the
 * advice that more than one error gives (check the dashboard, lower Max Concurrent Requests,
 * raise Max Wait, set WEBHOOK_URL), and the message and description of each HTTP status. n8n
 * shows only a message in places (a failed publication, an error workflow, an MCP tool error),
 * so each message carries the cause and the fix.
 */

/** Fixed messages of errors, by what happened. */
export const ERRORS = {
	stopped: 'The execution was stopped',
	noTimeToDownload:
		'No time was left to download the document before Max Wait ran out. Raise Max Wait, or send fewer items per run',
	noTaskId: 'The service accepted the document but returned no task_id',
	noTask: (taskId: string) => `The service returned no task for ${taskId}`,
	notATaskId: (taskId: string) => `"${taskId}" is not a task ID`,
	taskIdFormat:
		'A task ID is the UUID returned by Submit Document, for example 0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01. Map the task_id field of the submitting node into "Task ID".',
	noEvent: {
		message: 'No event selected',
		description: 'Select Task Completed: it is the only event the service can deliver.',
	},
} as const;

/** What a request was about, for its messages. */
export interface RequestWording {
	/** The HTTP method: a POST that may have arrived is worded apart. */
	method: string;
	itemIndex?: number;
	/** What the request was about, for the 404 message, e.g. "task 1234" or "project 'Invoices'". */
	subject?: string;
	/** What a POST sends, for the message when it may have arrived, e.g. "the document". */
	sending?: string;
	/** What the request does, for messages: "the webhook registration"; "the request" unless set. */
	action?: string;
	/** A sentence added to the message of a 4xx answer: what to check. */
	refusalAdvice?: string;
	/** What to change when the service kept rate-limiting: the options of the caller. */
	rateLimitAdvice?: RateLimitAdvice;
}

/**
 * What a rate-limit error tells the user to change. The operation that sends the request says
 * it, naming its own options; a caller without such options gets RETRY_LATER_ADVICE.
 */
export interface RateLimitAdvice {
	/** The end of the message, after "it was given up." */
	message: string;
	/** The end of the description: what to change. */
	description: string;
	/** Why waiting ended when the request's own time ran out (not the rate-limit budget). */
	timeRanOut: string;
}

/** The rate-limit advice for a request whose caller has no options to change. */
export const RETRY_LATER_ADVICE: RateLimitAdvice = {
	message: 'Try again later',
	description: 'Try again later, or ask the service for a higher rate limit.',
	timeRanOut: 'the time the request had ran out',
};

/** The rate-limit advice of the document operations: their options. */
export const DOCUMENT_RATE_LIMIT_ADVICE: RateLimitAdvice = {
	message: 'Lower Max Concurrent Requests or send fewer items per run',
	description:
		'Lower "Max Concurrent Requests", send fewer items per run (for example with Loop Over Items and a Wait node), raise "Max Wait" (Submit and Wait), or ask the service for a higher rate limit.',
	timeRanOut: 'the time the request had (Max Wait for Submit and Wait) ran out',
};

/** What to do before sending again a document the service may have received. */
export const CHECK_BEFORE_RESENDING =
	'Check the tasks of the project in the web dashboard, or wait for its task.completed webhook, before you send it again.';

/** Why a document that may have arrived is not sent again. */
export const SECOND_CHARGE = 'could create a second task and a second charge';

/** What to check when the service refuses to register `url`: the address n8n gave, and how to change it. */
export function webhookRefusalAdvice(url: string): string {
	const parsed = parseHttpUrl(url);
	const shown = parsed ? displayUrl(parsed) : url.replace(/[?#].*$/, '');
	return `n8n gave the webhook URL ${shown}. The service needs an https address it can reach: set n8n's public address with the WEBHOOK_URL environment variable (for example WEBHOOK_URL=https://n8n.example.com/), restart n8n and publish again.`;
}

/** The error of an item that waited for a request slot until no request could start in its time. */
export function outOfSlots(limit: number) {
	return {
		message: `No time was left to send the request before Max Wait ran out: all ${limit} request slots stayed busy. Raise Max Wait or Max Concurrent Requests, or send fewer items per run`,
		description: `The node sends at most ${limit} requests at once (Max Concurrent Requests), and the requests of other items held every slot until this item's Max Wait ran out. Nothing was sent for it.`,
	};
}

/** Counted words: "1 item", "2 items". */
export const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

/** The lines a failed run adds to its error: the tasks already created, and what was not sent. */
export function failedRunLines({
	ownTask,
	otherTasks,
	notStarted,
}: {
	ownTask?: string;
	otherTasks: Array<{ itemIndex: number; taskId: string }>;
	notStarted: number;
}): string[] {
	const lines: string[] = [];
	if (ownTask) lines.push(`This item's task: ${ownTask} (${FETCH_WITH_GET_STATUS.it}).`);
	if (otherTasks.length) {
		const list = otherTasks
			.map(({ itemIndex, taskId }) => `item ${itemIndex}: ${taskId}`)
			.join(', ');
		lines.push(
			`Tasks submitted for other items in this run (${FETCH_WITH_GET_STATUS.them}): ${list}`,
		);
	}
	if (notStarted) {
		lines.push(
			`${notStarted} ${plural(notStarted, 'item was', 'items were')} not submitted because of this failure.`,
		);
	}
	return lines;
}

/** How a task whose result is not in the output is fetched later. */
export const FETCH_WITH_GET_STATUS = {
	it: 'fetch it with Get Status',
	them: 'fetch them with Get Status',
	later: 'Fetch it later with Get Status and this task_id',
} as const;

/** The error of a task that ended with status failed (Submit and Wait). */
export function taskFailed(taskId: string, error: unknown) {
	const reason = typeof error === 'string' && error ? error : 'no error text was given';
	return {
		// The service's own text may already say so; the message says it once.
		message: /^extraction failed\b/i.test(reason) ? reason : `Extraction failed: ${reason}`,
		description: `Task ${taskId} ended with status failed. Check the document, or turn on "Output Failed Tasks as Items" to pass failed tasks on as items.`,
	};
}

/** Why Max Wait ran out before a task's result came. */
export type TimedOutReason = 'running' | 'unanswered' | 'noSlot' | 'noTimeLeft';

/** The message of a Submit and Wait output item whose task outlived Max Wait. */
export function timedOutMessage({
	maxWaitS,
	slots,
	why,
}: {
	maxWaitS: number;
	slots: number;
	why: TimedOutReason;
}): string {
	const within = `within Max Wait (${maxWaitS} s)`;
	switch (why) {
		case 'running':
			return `The task was still running after ${maxWaitS} s. ${FETCH_WITH_GET_STATUS.later}.`;
		case 'unanswered':
			return `No status check was answered ${within}, so the task's status is not known. ${FETCH_WITH_GET_STATUS.later}.`;
		case 'noSlot':
			return `No status check could be made ${within}: all ${slots} request slots stayed busy. The task's status is not known: ${FETCH_WITH_GET_STATUS.later.toLowerCase()}, or raise Max Wait or Max Concurrent Requests.`;
		case 'noTimeLeft':
			return `The document was accepted, but no time was left for a status check ${within}: sending it took that long (for example while the service was rate-limiting). ${FETCH_WITH_GET_STATUS.later}, or raise Max Wait.`;
	}
}

/** Whole seconds for a message, at least 1. */
export const seconds = (ms: number) => Math.max(1, Math.round(ms / 1000));

/** Renders a 422 detail list (`[{loc, msg}]`) as readable `field: message` lines. */
export function formatValidationDetail(detail: unknown): string {
	if (Array.isArray(detail)) {
		return detail
			.map((entry) => {
				if (entry && typeof entry === 'object') {
					const { loc, msg, message } = entry as IDataObject;
					const path = Array.isArray(loc)
						? loc.filter((part) => part !== 'body').join('.')
						: typeof loc === 'string'
							? loc
							: '';
					const text = String(msg ?? message ?? JSON.stringify(entry));
					return path ? `${path}: ${text}` : text;
				}
				return String(entry);
			})
			.join('\n');
	}
	if (detail && typeof detail === 'object') return JSON.stringify(detail);
	return detail === undefined ? '' : String(detail);
}

/** The longest part of a message taken from the service's detail. */
const MAX_DETAIL_IN_MESSAGE = 400;

/** The service's detail on one line, for an error message: several lines joined by "; ". */
export function detailForMessage(detail: unknown): string {
	const text = formatValidationDetail(detail)
		.split('\n')
		.map((line) => line.trim())
		.filter(Boolean)
		.join('; ');
	return text.length > MAX_DETAIL_IN_MESSAGE
		? `${text.slice(0, MAX_DETAIL_IN_MESSAGE - 1)}…`
		: text;
}

/** ": detail" for a message, or '' without a detail. */
const withDetail = (detail: unknown) => {
	const text = detailForMessage(detail);
	return text ? `: ${text.replace(/[.\s]+$/, '')}` : '';
};

/** The message and description of an answer with `status` (3xx, 4xx, 5xx). */
export function describeStatus(
	status: number,
	detail: unknown,
	wording: RequestWording,
	location?: string,
	attempts = 1,
) {
	const { subject } = wording;
	const action = wording.action ?? 'the request';
	const detailText = formatValidationDetail(detail);
	const advice =
		status >= 400 && status < 500 && wording.refusalAdvice ? ` ${wording.refusalAdvice}` : '';
	switch (status) {
		case 401:
			return {
				message: `The Document Extraction Service rejected the API key (401)${withDetail(detail)}. Check the API key in the credential.${advice}`,
				description: `${detailText ? detailText + '. ' : ''}Check the API key in the Document Extraction API credential: it must be a valid, active vnd_… key from the web dashboard.${advice}`,
			};
		case 402:
			return {
				message: `The Document Extraction subscription is inactive (402)${withDetail(detail)}. Renew it in the web dashboard.${advice}`,
				description: `${detailText ? detailText + '. ' : ''}Renew the subscription in the web dashboard or contact support, then run the workflow again.${advice}`,
			};
		case 404:
			return {
				message: `Not found (404): ${detailForMessage(detail) || `${subject ?? 'the requested resource'} does not exist`}${advice}`,
				description: `The service could not find ${subject ?? 'what was asked for'}. Check the project, the document type and the task ID: they must exist in the account the API key belongs to.${advice}`,
			};
		case 422:
			return {
				message: `The Document Extraction Service refused ${action} as invalid (422)${withDetail(detail)}${advice ? `.${advice}` : ''}`,
				description: `The Document Extraction Service refused ${action} as invalid (422):\n${detailText || 'Validation failed.'}\nFix the fields named above and run again.${advice}`,
			};
		default:
			if (status >= 300 && status < 400) {
				return {
					message: `The Document Extraction Service redirected the request (${status})${location ? ` to ${location}` : ''}; set the Base URL in the credential to the address the service answers at`,
					description: `${location ? `It points to ${location}. ` : ''}Set the Base URL in the credential to the address the service answers at directly (for example https:// instead of http://).`,
				};
			}
			if (status >= 500) {
				return {
					message: `The Document Extraction Service failed with a server error (${status})${attempts > 1 ? ` after ${attempts} attempts` : ''}${withDetail(detail)}`,
					description: `${detailText ? detailText + '. ' : ''}${attempts > 1 ? 'The request was retried. ' : ''}Try again later; if it persists, contact support.`,
				};
			}
			return {
				message: `The Document Extraction Service refused ${action} with status ${status}${withDetail(detail)}${advice ? `.${advice}` : ''}`,
				description: `${detailText || 'No detail was given.'}${advice}`,
			};
	}
}
