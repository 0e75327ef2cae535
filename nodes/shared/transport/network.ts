import type { IDataObject } from 'n8n-workflow';

const isNetworkCode = (value: unknown): value is string =>
	typeof value === 'string' && /^E[A-Z_]+$|^UND_ERR/.test(value);

/** n8n 2.x keeps the client's error (with its code) as the cause; n8n 1.x the code as httpCode. */
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

/** Codes that prove a request never reached the service, so that resending it is safe. */
const NOT_SENT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH'];

const TIMEOUT_CODES = ['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT'];

export const provablyNotSent = (code: string | undefined) =>
	code !== undefined && NOT_SENT_CODES.includes(code);

export const isTimeoutCode = (code: string | undefined) =>
	code !== undefined && TIMEOUT_CODES.includes(code);
