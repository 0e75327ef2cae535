import { detailForMessage, formatValidationDetail } from './transport/detail';
import { displayUrl, parseHttpUrl } from './urls';

/**
 * What the shared code and the transport tell the user, each sentence written once: the errors
 * of the credential and of the Project field, the advice that more than one error gives (check
 * the dashboard before sending again, set WEBHOOK_URL), and the message and description of each
 * HTTP status. Each node's own messages are in its messages module
 * (../DocumentExtraction/messages, ../DocumentExtractionTrigger/messages). n8n shows only a
 * message in places (a failed publication, an error workflow, an MCP tool error), so each
 * message carries the cause and the fix.
 */

/** Fixed messages of errors, by what happened. */
export const ERRORS = {
	stopped: 'The execution was stopped',
} as const;

/** Where the API key goes, for a Base URL that seems to hold it. */
const KEY_FIELD = 'the API key belongs in the API Key field.';

/** What is wrong with the credential: its Base URL (each ending the sentence it starts) or its key. */
export const CREDENTIAL = {
	baseUrl: (reason: string) => `The Base URL of the Document Extraction API credential ${reason}`,
	notHttp:
		'must start with http:// or https:// followed by a host. Enter the address of the service, for example https://api.example.com.',
	userInfo: (shown: string) =>
		`must not contain a user name or password (shown here without them: ${shown}). Remove the part before "@"; ${KEY_FIELD}`,
	query: (shown: string) =>
		`must not contain a query (shown here without it: ${shown}). Remove the "?" and what follows it; ${KEY_FIELD}`,
	fragment: (shown: string) =>
		`must not contain a fragment (shown here without it: ${shown}). Remove the "#" and what follows it.`,
	unencrypted: (host: string, option: string) =>
		`uses http:// for ${host}: the API key would travel unencrypted. Use https://, or turn on "${option}" in the credential if the host is a trusted gateway on your own network.`,
	keyFormat:
		'The API key of the Document Extraction API credential has the wrong format: keys look like vnd_… Copy the key from the web dashboard of the Document Extraction Service (or ask your account administrator for one) and paste it into the credential.',
};

/** An unknown name in the Project field, and the projects the account has. */
export function noSuchProject(name: string, known: string) {
	return {
		message: `No project named "${name}"`,
		description: known
			? `The projects of this account are: ${known}. Pick one from the list or enter its ID.`
			: 'The account has no projects. Create one in the web dashboard first.',
	};
}

/** How an error for an empty Project field starts; each node says what to pick. */
export const NO_PROJECT_SELECTED = 'No project selected';

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

/** Whole seconds for a message, at least 1. */
export const seconds = (ms: number) => Math.max(1, Math.round(ms / 1000));

/** The messages of the failures of a request (transport/failures.ts), by kind. */
export const FAILURES = {
	rateLimited: ({
		count,
		sinceMs,
		upload,
		why,
		advice,
	}: {
		/** 429 answers in a row; 0 when the request could not even start for the pace. */
		count: number;
		sinceMs: number;
		/** What was not sent (a POST), or undefined for a GET. */
		upload?: string;
		/** Why waiting ended. */
		why: string;
		advice: RateLimitAdvice;
	}) => ({
		message: `${
			count
				? `The Document Extraction Service kept rate-limiting the requests (429 Too Many Requests, ${count === 1 ? 'once' : `${count} times`} in ${seconds(sinceMs)} s)`
				: 'The Document Extraction Service is rate-limiting the requests of this credential (429 Too Many Requests to other requests)'
		};${upload ? ` ${upload} was not sent` : ' it was given up'}. ${advice.message}`,
		description: `The service limits how many requests it takes per second, and it answered "429 Too Many Requests". The node waited as the service asked and slowed all its requests down, but ${why}. ${advice.description}`,
	}),
	/** Why waiting for rate limits ended when their own budget ran out. */
	rateLimitBudget: (budgetMs: number) =>
		`the node waits out rate limits for at most ${seconds(budgetMs)} s a request`,
	noAnswer: ({
		reason,
		shownReason,
		timedOutAfterMs,
		attempts,
		shownBaseUrl,
	}: {
		reason: string;
		/** The reason as a message shows it. */
		shownReason: string;
		timedOutAfterMs?: number;
		attempts: number;
		shownBaseUrl: string;
	}) => {
		const tries = `${attempts} attempt${attempts > 1 ? 's' : ''}`;
		return {
			message:
				timedOutAfterMs !== undefined
					? `The Document Extraction Service did not answer within ${seconds(timedOutAfterMs)} s (${tries})`
					: `Could not reach the Document Extraction Service after ${tries}: ${shownReason}`,
			description: `${reason}. Check the Base URL in the credential (${shownBaseUrl}) and that the service is reachable from n8n.`,
		};
	},
	/** Why no answer came: the request's own timeout, or a gateway's error. */
	noCompleteAnswer: (timeoutMs: number) => `No complete answer within ${seconds(timeoutMs)} s`,
	gatewayAnswered: (status: number) => `A gateway answered ${status}`,
	mayHaveArrived: (
		how: 'timeout' | 'broken' | 'gateway',
		what: string,
		reason: string,
		status?: number,
	) => ({
		message: `${
			{
				timeout: 'The Document Extraction Service did not answer in time',
				broken: 'The connection to the Document Extraction Service broke off',
				gateway: `A gateway in front of the Document Extraction Service answered ${status}`,
			}[how]
		}; it may have received ${what}, so it was not sent again. Check the project's tasks before sending it again`,
		description: `${reason}. The service may have received ${what} and started work on it, so it was not sent again (sending it again ${SECOND_CHARGE}). ${CHECK_BEFORE_RESENDING}`,
	}),
	outOfTime: (action: string) => `No time was left to send ${action} before the wait ran out`,
	paced: 'The request could not be sent in time: the service is rate-limiting',
};

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
	const refused = `The Document Extraction Service refused ${wording.action ?? 'the request'}`;
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
				message: `${refused} as invalid (422)${withDetail(detail)}${advice ? `.${advice}` : ''}`,
				description: `${refused} as invalid (422):\n${detailText || 'Validation failed.'}\nFix the fields named above and run again.${advice}`,
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
				message: `${refused} with status ${status}${withDetail(detail)}${advice ? `.${advice}` : ''}`,
				description: `${detailText || 'No detail was given.'}${advice}`,
			};
	}
}
