import { randomBytes } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { redact, ServiceError } from './errors';
import { apiRequest, type ApiRequestOptions, type RequestBody, secretsOf } from './request';
import { type ApiContext, runCredential } from './runCredential';

/** The event the service delivers when a task finishes, with success or failure. */
export const TASK_COMPLETED = 'task.completed';

export const WEBHOOK_EVENTS: readonly string[] = [TASK_COMPLETED];

export function isTerminal(status: unknown): status is 'complete' | 'failed' {
	return status === 'complete' || status === 'failed';
}

export function generateWebhookSecret(): string {
	return `whsec_${randomBytes(32).toString('hex')}`;
}

type RequestLimits = Pick<
	ApiRequestOptions,
	'attempts' | 'deadline' | 'timeoutMs' | 'signal' | 'secrets'
>;

const isObject = (value: unknown): value is IDataObject =>
	!!value && typeof value === 'object' && !Array.isArray(value);

/** An answer as output JSON: an object as it is, anything else under `response`. */
export const answerJson = (answer: unknown): IDataObject =>
	isObject(answer) ? answer : { response: answer as IDataObject };

const unexpected = (ctx: ApiContext, response: unknown, itemIndex?: number, taskId?: string) =>
	new ServiceError(ctx.getNode(), { kind: 'unexpected', facts: { response }, itemIndex, taskId });

export async function getTask(
	this: ApiContext,
	taskId: string,
	itemIndex?: number,
	limits: RequestLimits = {},
): Promise<IDataObject> {
	const path = `/task_status/${encodeURIComponent(taskId)}`;
	const options = { method: 'GET' as const, path, itemIndex, taskId, ...limits };
	const task = await apiRequest.call(this, options);
	if (!isObject(task)) throw unexpected(this, task, itemIndex, taskId);
	if (!task.error) return { task_id: taskId, ...task };
	const { authorization } = (await runCredential(this)) as { authorization: string };
	return { task_id: taskId, ...task, error: redact(task.error, secretsOf(authorization, options)) };
}

/** POST /process_file: the new task_id. `bodyBytes` lengthens the timeout of large uploads. */
export async function submitDocument(
	this: ApiContext,
	body: RequestBody,
	itemIndex?: number,
	bodyBytes?: number,
	limits: RequestLimits = {},
): Promise<string> {
	const options = { method: 'POST' as const, path: '/process_file', body, bodyBytes, itemIndex };
	const answer = await apiRequest.call(this, { ...options, ...limits });
	const taskId = isObject(answer) ? answer.task_id : undefined;
	if (typeof taskId !== 'string' || !taskId) throw unexpected(this, answer, itemIndex);
	return taskId;
}

export async function registerWebhook(
	this: ApiContext,
	projectId: string,
	body: { url: string; events: string[]; secret: string },
	itemIndex?: number,
	signal?: AbortSignal,
): Promise<unknown> {
	const path = `/projects/${encodeURIComponent(projectId)}/webhooks`;
	return await apiRequest.call(this, { method: 'POST', path, body, itemIndex, signal });
}
