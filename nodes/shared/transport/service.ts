import { randomBytes } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { webhookRefusalAdvice } from '../messages';
import { apiRequest, type ApiRequestOptions, type RequestBody } from './request';
import type { ApiContext } from './runCredential';

/**
 * The Document Extraction Service as named calls. Every endpoint path is written here and
 * nowhere else; both nodes call the service through these functions, which send their
 * requests through `apiRequest`.
 */

/** The event the service delivers when a task finishes, with success or failure. */
export const TASK_COMPLETED = 'task.completed';

/** The events a webhook can subscribe to: the service delivers only task.completed. */
export const WEBHOOK_EVENTS: readonly string[] = [TASK_COMPLETED];

/** Task statuses that end a task; any other status means it is still running. */
export const TERMINAL_STATUSES = ['complete', 'failed'] as const;

export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

export function isTerminal(status: unknown): status is TerminalStatus {
	return (TERMINAL_STATUSES as readonly unknown[]).includes(status);
}

/** A strong signing secret for a webhook: whsec_ followed by 32 random bytes in hex. */
export function generateWebhookSecret(): string {
	return `whsec_${randomBytes(32).toString('hex')}`;
}

/** What a webhook registration sends: the receiving URL, its events and the signing secret. */
export interface WebhookRegistration extends IDataObject {
	url: string;
	events: string[];
	secret: string;
}

/**
 * Limits of one request: how many attempts, by when, each attempt's timeout, how long 429
 * answers are waited out, and what a rate-limit error advises (the caller's options).
 */
export type RequestLimits = Pick<
	ApiRequestOptions,
	'attempts' | 'deadline' | 'timeoutMs' | 'throttleBudgetMs' | 'rateLimitAdvice' | 'signal'
>;

/** The longest a lookup made after a webhook delivery was accepted may take, in all. */
export const LOOKUP_BUDGET_MS = 15_000;

/**
 * The limits of a lookup made after a webhook delivery was accepted: two attempts of at
 * most 5 s, all within LOOKUP_BUDGET_MS from now (429 waits and Retry-After included), so
 * that it can never hold up the run it belongs to for long.
 */
export function lookupLimits(now = Date.now()): RequestLimits {
	return { attempts: 2, timeoutMs: 5_000, deadline: now + LOOKUP_BUDGET_MS };
}

/** GET /task_status/{task_id}: the task's status, result and error. */
export async function getTask(
	this: ApiContext,
	taskId: string,
	itemIndex?: number,
	limits: RequestLimits = {},
): Promise<unknown> {
	return await apiRequest.call(this, {
		method: 'GET',
		path: `/task_status/${encodeURIComponent(taskId)}`,
		itemIndex,
		subject: `task ${taskId}`,
		...limits,
	});
}

/**
 * POST /process_file: submits a document; the answer carries the new task_id. `bodyBytes`
 * (about the size of the body) lengthens the timeout of large uploads.
 */
export async function submitDocument(
	this: ApiContext,
	body: RequestBody,
	fields: { project: string; document_type: string },
	itemIndex?: number,
	bodyBytes?: number,
	limits: RequestLimits = {},
): Promise<unknown> {
	return await apiRequest.call(this, {
		method: 'POST',
		path: '/process_file',
		body,
		bodyBytes,
		sending: 'the document',
		action: 'the document',
		itemIndex,
		...limits,
		subject: `project "${fields.project}" or document type "${fields.document_type}"`,
	});
}

/** GET /projects: the projects of the account, in whatever shape the service sends them. */
export async function listProjects(
	this: ApiContext,
	itemIndex?: number,
	signal?: AbortSignal,
): Promise<unknown> {
	return await apiRequest.call(this, { method: 'GET', path: '/projects', itemIndex, signal });
}

/** POST /projects/{project_id}/webhooks: registers a URL for the project's events. */
export async function registerWebhook(
	this: ApiContext,
	projectId: string,
	registration: WebhookRegistration,
	itemIndex?: number,
	signal?: AbortSignal,
): Promise<unknown> {
	return await apiRequest.call(this, {
		method: 'POST',
		path: `/projects/${encodeURIComponent(projectId)}/webhooks`,
		body: registration,
		itemIndex,
		subject: `project ${projectId}`,
		action: 'the webhook registration',
		refusalAdvice: webhookRefusalAdvice(registration.url),
		signal,
	});
}
