import { createHash } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isTransientError, serviceAnswerOf } from '../../shared/errors';
import { GATEWAY_STATUSES } from '../../shared/transport/request';
import type { DocumentSource, SubmissionFields } from './requestBody';

/**
 * What this n8n process remembers of the documents it sent, so that running a node again does
 * not send a document the service already has:
 *
 * - **Retry On Fail** runs execute() again in the same process and execution with the same
 *   items. A document the service accepted in an earlier try is not sent again: its task is
 *   reused (Submit and Wait reads its status again). A document whose earlier try may have
 *   reached the service (a 502/504 after the upload, a broken connection, no answer in time) is
 *   not sent again either: the try fails with the same cause. Only documents that provably did
 *   not reach the service (refused, 4xx, 5xx of the service itself, never started) are sent again.
 * - **Retry from the Executions list** (a new execution in mode "retry") reuses the task of a
 *   document this process sent from the same node of the same workflow within REMEMBER_MS.
 *   Documents that may have arrived are sent again there: the user chose to retry after the
 *   error told them to check.
 * - **A later execution** (a new trigger event, a manual run) sends the document again.
 *
 * A document is known by the node's fields and its content: the SHA-256 of binary data held in
 * memory, the id of binary data held in n8n's binary store (one id per stored file), or the URL
 * of the URL input source. The memory lives in the process: a restart, or another worker in
 * queue mode, does not have it (Retry On Fail stays on the worker that runs the execution).
 */

/** How long a sent document is remembered. */
export const REMEMBER_MS = 24 * 60 * 60 * 1000;

/** At most this many documents are remembered; the oldest are forgotten first. */
export const MAX_REMEMBERED = 20_000;

interface Accepted {
	kind: 'accepted';
	taskId: string;
	at: number;
}

interface MayHaveArrived {
	kind: 'mayHaveArrived';
	message: string;
	description?: string;
	at: number;
}

type Entry = Accepted | MayHaveArrived;

/** Entries of one execution (Retry On Fail), and of one node across executions (retries from the list). */
const byExecution = new Map<string, Entry>();
const byNode = new Map<string, Accepted>();

function remember<T extends Entry>(map: Map<string, T>, key: string, entry: T): void {
	map.delete(key);
	map.set(key, entry);
	const now = Date.now();
	for (const [oldKey, old] of map) {
		if (map.size <= MAX_REMEMBERED && now - old.at < REMEMBER_MS) break;
		map.delete(oldKey);
	}
}

function recall<T extends Entry>(map: Map<string, T>, key: string): T | undefined {
	const entry = map.get(key);
	if (entry && Date.now() - entry.at >= REMEMBER_MS) {
		map.delete(key);
		return undefined;
	}
	return entry;
}

/** Forgets everything (tests). */
export function forgetAllSubmissions(): void {
	byExecution.clear();
	byNode.clear();
}

/**
 * Whether a failed upload may have reached the service: the transport did not send it again
 * because a gateway answered 502/504, the connection broke after sending, or no answer came in
 * time. A refusal (4xx), an error of the service itself, or a connection that never opened did not.
 */
export function mayHaveArrived(error: unknown): boolean {
	if (isTransientError(error)) return false;
	const answer = serviceAnswerOf(error);
	if (!answer) return false;
	return answer.status === null || GATEWAY_STATUSES.includes(answer.status);
}

/** What identifies the document of an item: its content (binary) or its URL. */
export function documentFingerprint(source: DocumentSource | undefined, url?: string): string {
	if (url !== undefined) return `url:${url}`;
	if (source?.base64 !== undefined)
		return `sha256:${createHash('sha256').update(source.base64).digest('hex')}`;
	return `binary:${source?.binaryId ?? ''}`;
}

/** The memory of one item's document in one run of a node. */
export interface SubmissionMemory {
	/**
	 * The task of this document accepted earlier, to reuse; throws the earlier failure when an
	 * earlier try of this execution may have delivered the document.
	 */
	recall(): string | undefined;
	accepted(taskId: string): void;
	failed(error: unknown): void;
}

const NO_MEMORY: SubmissionMemory = {
	recall: () => undefined,
	accepted: () => {},
	failed: () => {},
};

/** The memory of the document of item `itemIndex`, sent with `fields`. */
export function submissionMemory(
	this: IExecuteFunctions,
	itemIndex: number,
	fields: SubmissionFields,
	fingerprint: string,
): SubmissionMemory {
	const executionId = this.getExecutionId();
	if (!executionId) return NO_MEMORY;
	const node = this.getNode();
	const document = [
		this.getWorkflow().id ?? '',
		node.id ?? node.name,
		itemIndex,
		fields.project,
		fields.document_type,
		fields.max_pages ?? '',
		fingerprint,
	].join('\u0000');
	const executionKey = `${executionId}\u0000${document}`;
	const isRetry = this.getMode() === 'retry';
	return {
		recall: () => {
			const entry = recall(byExecution, executionKey);
			if (entry?.kind === 'mayHaveArrived') {
				throw new NodeOperationError(
					node,
					`Not sent again: an earlier try of this node in this execution may have delivered the document to the service (${entry.message})`,
					{
						itemIndex,
						description:
							`${entry.description ?? ''}\nRetry On Fail does not send a document again when its earlier try may have reached the service: that could create a second task and a second charge. Check the tasks of the project in the web dashboard, or wait for its task.completed webhook, before you send it again.`.trim(),
					},
				);
			}
			if (entry) return entry.taskId;
			return isRetry ? recall(byNode, document)?.taskId : undefined;
		},
		accepted: (taskId) => {
			const entry: Accepted = { kind: 'accepted', taskId, at: Date.now() };
			remember(byExecution, executionKey, entry);
			remember(byNode, document, entry);
		},
		failed: (error) => {
			if (!mayHaveArrived(error)) return;
			const { message, description } = error as Error & { description?: string | null };
			remember(byExecution, executionKey, {
				kind: 'mayHaveArrived',
				message,
				description: description ?? undefined,
				at: Date.now(),
			});
		},
	};
}
