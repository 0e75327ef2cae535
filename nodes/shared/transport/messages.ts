import type { IDataObject } from 'n8n-workflow';

import { displayUrl, parseHttpUrl } from '../urls';

/**
 * What the errors of a request to the Document Extraction Service tell the user, each written
 * once: the advice that more than one error gives (check the dashboard, lower Max Concurrent
 * Requests, raise Max Wait, set WEBHOOK_URL), and the message and description of each HTTP
 * status. n8n shows only a message in places, so each message carries the cause and the fix.
 */

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
