import {
	CHECK_BEFORE_RESENDING,
	detailForMessage,
	formatValidationDetail,
	NETWORK_REASONS,
	SECOND_CHARGE,
	STOPPED,
} from './messages';
import { type FailureKind, failureOf, type ServiceError } from './transport/errors';

// The words of a request's failure, from its kind, facts and `About`. n8n shows only the message
// in places (an error workflow, an MCP tool): it says cause and fix.

export interface About {
	subject?: string; // for a 404, e.g. "task 1234" or "project 'Invoices'"
	sending?: string; // what a POST sends, e.g. "the document"
	action?: string; // what the request does, e.g. "the webhook registration"; "the request" unless set
	refusalAdvice?: string; // added to the message of a 4xx answer: what to check
	rateLimitAdvice?: RateLimitAdvice;
	missing?: string; // the message of an answer without what was asked for (a task, a task_id)
}

/** What a rate-limit error tells the user to change: the caller names its own options. */
export interface RateLimitAdvice {
	message: string; // the end of the message, after "it was given up."
	description: string; // the end of the description: what to change
	timeRanOut: string; // why waiting ended when the request's own time ran out
}

const RETRY_LATER_ADVICE: RateLimitAdvice = {
	message: 'Try again later',
	description: 'Try again later, or ask the service for a higher rate limit.',
	timeRanOut: 'the time the request had ran out',
};

const seconds = (ms: number) => Math.max(1, Math.round(ms / 1000));

const withDetail = (detail: unknown) => {
	const text = detailForMessage(detail);
	return text ? `: ${text.replace(/[.\s]+$/, '')}` : '';
};

type Words = { message: string; description?: string };

function rateLimited({ facts }: ServiceError, about: About): Words {
	const advice = about.rateLimitAdvice ?? RETRY_LATER_ADVICE;
	const { count, sinceMs, budgetEnded, budgetMs } = facts.throttled!;
	const upload = facts.method !== 'GET' ? (about.sending ?? 'the request') : undefined;
	const why = budgetEnded
		? `the node waits out rate limits for at most ${seconds(budgetMs)} s a request`
		: advice.timeRanOut;
	return {
		message: `${
			count
				? `The Document Extraction Service kept rate-limiting the requests (429 Too Many Requests, ${count === 1 ? 'once' : `${count} times`} in ${seconds(sinceMs)} s)`
				: 'The Document Extraction Service is rate-limiting the requests of this credential (429 Too Many Requests to other requests)'
		};${upload ? ` ${upload} was not sent` : ' it was given up'}. ${advice.message}`,
		description: `The service limits how many requests it takes per second, and it answered "429 Too Many Requests". The node waited as the service asked and slowed all its requests down, but ${why}. ${advice.description}`,
	};
}

/** Why no good answer came: a gateway, the attempt's timeout, the network. */
function reasonOf({ status, facts }: ServiceError): string {
	if (status) return `A gateway answered ${status}`;
	if (facts.timedOutAfterMs !== undefined) {
		return `No complete answer within ${seconds(facts.timedOutAfterMs)} s`;
	}
	const { code } = facts;
	if (code && NETWORK_REASONS[code]) return NETWORK_REASONS[code];
	const message = (facts.networkMessage ?? '').replace(/[.\s]+$/, '');
	return message || (code ? `Network error (${code})` : 'Network error');
}

/** A reason without its network error code: n8n replaces any message that names one. */
const inMessage = (reason: string) =>
	reason
		.replace(/\s*\((?:E[A-Z_]+|UND_ERR\w*)\)/g, '')
		.replace(/\b(?:E[A-Z]{3,}(?:_[A-Z]+)*)\b/g, 'network error');

function noAnswer(failure: ServiceError): Words {
	const { attempts = 1, timedOutAfterMs, baseUrl } = failure.facts;
	const reason = reasonOf(failure);
	const tries = `${attempts} attempt${attempts > 1 ? 's' : ''}`;
	return {
		message:
			timedOutAfterMs !== undefined
				? `The Document Extraction Service did not answer within ${seconds(timedOutAfterMs)} s (${tries})`
				: `Could not reach the Document Extraction Service after ${tries}: ${inMessage(reason)}`,
		description: `${reason}. Check the Base URL in the credential (${baseUrl}) and that the service is reachable from n8n.`,
	};
}

function mayHaveArrived(failure: ServiceError, about: About): Words {
	const { facts, status } = failure;
	const what = about.sending ?? 'the request';
	const how = status
		? `A gateway in front of the Document Extraction Service answered ${status}`
		: facts.timedOutAfterMs !== undefined
			? 'The Document Extraction Service did not answer in time'
			: 'The connection to the Document Extraction Service broke off';
	return {
		message: `${how}; it may have received ${what}, so it was not sent again. Check the project's tasks before sending it again`,
		description: `${reasonOf(failure)}. The service may have received ${what} and started work on it, so it was not sent again (sending it again ${SECOND_CHARGE}). ${CHECK_BEFORE_RESENDING}`,
	};
}

const noTimeLeft = (to: string, wait: string) => `No time was left to ${to} before ${wait} ran out`;

function outOfTime({ facts: { slots, download } }: ServiceError, about: About): Words {
	if (download) {
		const message = `${noTimeLeft('download the document', 'Max Wait')}. Raise Max Wait, or send fewer items per run`;
		return { message };
	}
	if (slots === undefined) {
		return { message: noTimeLeft(`send ${about.action ?? 'the request'}`, 'the wait') };
	}
	return {
		message: `${noTimeLeft('send the request', 'Max Wait')}: all ${slots} request slots stayed busy. Raise Max Wait or Max Concurrent Requests, or send fewer items per run`,
		description: `The node sends at most ${slots} requests at once (Max Concurrent Requests), and the requests of other items held every slot until this item's Max Wait ran out. Nothing was sent for it.`,
	};
}

function describeStatus({ status, facts, ...failure }: ServiceError, about: About): Words {
	const detail = failure.detail ?? undefined;
	const { subject } = about;
	const code = status ?? 0;
	const detailText = formatValidationDetail(detail);
	const lead = detailText ? `${detailText}. ` : '';
	const refused = `The Document Extraction Service refused ${about.action ?? 'the request'}`;
	const advice = code >= 400 && code < 500 && about.refusalAdvice ? ` ${about.refusalAdvice}` : '';
	const { location, attempts = 1 } = facts;
	switch (code) {
		case 401:
			return {
				message: `The Document Extraction Service rejected the API key (401)${withDetail(detail)}. Check the API key in the credential.${advice}`,
				description: `${lead}Check the API key in the Document Extraction API credential: it must be a valid, active vnd_… key from the web dashboard.${advice}`,
			};
		case 402:
			return {
				message: `The Document Extraction subscription is inactive (402)${withDetail(detail)}. Renew it in the web dashboard.${advice}`,
				description: `${lead}Renew the subscription in the web dashboard or contact support, then run the workflow again.${advice}`,
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
	}
	if (code >= 300 && code < 400) {
		return {
			message: `The Document Extraction Service redirected the request (${code})${location ? ` to ${location}` : ''}; set the Base URL in the credential to the address the service answers at`,
			description: `${location ? `It points to ${location}. ` : ''}Set the Base URL in the credential to the address the service answers at directly (for example https:// instead of http://).`,
		};
	}
	if (code >= 500) {
		return {
			message: `The Document Extraction Service failed with a server error (${code})${attempts > 1 ? ` after ${attempts} attempts` : ''}${withDetail(detail)}`,
			description: `${lead}${attempts > 1 ? 'The request was retried. ' : ''}Try again later; if it persists, contact support.`,
		};
	}
	return {
		message: `${refused} with status ${code}${withDetail(detail)}${advice ? `.${advice}` : ''}`,
		description: `${detailText || 'No detail was given.'}${advice}`,
	};
}

const WORDS: Partial<Record<FailureKind, (failure: ServiceError, about: About) => Words>> = {
	rate_limited: rateLimited,
	no_answer: noAnswer,
	may_have_arrived: mayHaveArrived,
	out_of_time: outOfTime,
	stopped: () => ({ message: STOPPED }),
	unexpected: ({ facts }, about) => ({
		message: about.missing ?? 'The service gave an unexpected answer',
		description: `Response: ${JSON.stringify(facts.response)}`,
	}),
};

/** The words of a request's failure: reads the failure, changes nothing. */
export function explain(failure: ServiceError, about: About = {}): Words {
	return (WORDS[failure.kind] ?? describeStatus)(failure, about);
}

/** At an operation's or the trigger's edge: a failure of the transport as a copy with its words. */
export function worded<E>(error: E, about: About = {}): E {
	const failure = failureOf(error);
	if (!failure) return error;
	const words = explain(failure, about);
	return Object.assign(Object.create(Object.getPrototypeOf(failure) as object), failure, {
		...words,
		stack: `${failure.name}: ${words.message}\n${failure.stack?.split('\n').slice(1).join('\n')}`,
	}) as E;
}
