import type { IDataObject } from 'n8n-workflow';

/**
 * Reading a network failure of an HTTP client error: its code (ECONNREFUSED, ...), whether it
 * proves the request never left or says that time ran out, a plain reason for it, and a message
 * without the code (n8n replaces any message that names one).
 */

/**
 * A reason for an error message, without the network error code: n8n replaces any message that
 * names one (ECONNRESET, ...) with its own generic text. The description keeps the code.
 */
export function inMessage(reason: string): string {
	return reason
		.replace(/\s*\((?:E[A-Z_]+|UND_ERR\w*)\)/g, '')
		.replace(/\b(?:E[A-Z]{3,}(?:_[A-Z]+)*)\b/g, 'network error');
}

const isNetworkCode = (value: unknown): value is string =>
	typeof value === 'string' && /^E[A-Z_]+$|^UND_ERR/.test(value);

/**
 * The network error code (ECONNREFUSED, ECONNRESET, ...) of an HTTP client error, if any.
 * n8n 2.x keeps the client's error (with its `code`) as the cause of the error its request
 * helper throws; n8n 1.x keeps only the code, as the error's `httpCode`.
 */
export function networkErrorCode(error: unknown): string | undefined {
	const seen = new Set<unknown>();
	const queue: unknown[] = [error];
	while (queue.length) {
		const current = queue.shift();
		if (!current || typeof current !== 'object' || seen.has(current)) continue;
		seen.add(current);
		const { code, httpCode, cause, errorResponse, reason, context } = current as IDataObject;
		if (isNetworkCode(code)) return code;
		if (isNetworkCode(httpCode)) return httpCode;
		queue.push(cause, errorResponse, reason, context);
	}
	const message = error instanceof Error ? error.message : '';
	const named = /\b(E[A-Z]{3,}(?:_[A-Z]+)*)\b/.exec(message);
	if (named) return named[1];
	if (/timeout|timed out/i.test(message)) return 'ETIMEDOUT';
	return undefined;
}

const NETWORK_REASONS: Record<string, string> = {
	ECONNREFUSED: 'The connection was refused (ECONNREFUSED)',
	ENOTFOUND: 'The host name was not found (ENOTFOUND)',
	EAI_AGAIN: 'The host name could not be looked up (EAI_AGAIN)',
	ENETUNREACH: 'The network is unreachable (ENETUNREACH)',
	EHOSTUNREACH: 'The host is unreachable (EHOSTUNREACH)',
	ECONNRESET: 'The connection was closed unexpectedly (ECONNRESET)',
	EPIPE: 'The connection was closed while sending (EPIPE)',
};

/** A short, plain reason for a network failure, without n8n's generic advice. */
export function networkReason(code: string | undefined, failure: unknown): string {
	if (code && NETWORK_REASONS[code]) return NETWORK_REASONS[code];
	const message = (failure instanceof Error ? failure.message : '').replace(/[.\s]+$/, '');
	return message || (code ? `Network error (${code})` : 'Network error');
}

/** Network errors that prove a request never reached the service, so that resending it is safe. */
const NOT_SENT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH'];

const TIMEOUT_CODES = ['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT'];

/** Whether a network error code proves that the request never left for the service. */
export function provablyNotSent(code: string | undefined): boolean {
	return code !== undefined && NOT_SENT_CODES.includes(code);
}

/** Whether a network error code says that the answer did not come in time. */
export function isTimeoutCode(code: string | undefined): boolean {
	return code !== undefined && TIMEOUT_CODES.includes(code);
}

/** Whole seconds for a reason, at least 1. */
const seconds = (ms: number) => Math.max(1, Math.round(ms / 1000));

/** Why no answer came: the request's own timeout, or a gateway's error. */
export const noCompleteAnswer = (timeoutMs: number) =>
	`No complete answer within ${seconds(timeoutMs)} s`;
export const gatewayAnswered = (status: number) => `A gateway answered ${status}`;
