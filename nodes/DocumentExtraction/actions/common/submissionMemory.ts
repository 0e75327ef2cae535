import { createHash } from 'crypto';
import type { IContextObject, IExecuteFunctions } from 'n8n-workflow';

import { failureKind, nodeError } from '../../../shared/transport/errors';
import { MESSAGES } from '../../messages';
import type { DocumentSource, SubmissionFields } from '../../input/requestBody';

/**
 * What each document of a node became, kept with the execution: in the node's context
 * (`this.getContext('node')`), which n8n stores with the execution's data, also when the node
 * fails, and hands to every later try of it. So running a node again never sends a document the
 * service already has, in whichever process the try runs:
 *
 * - **Retry On Fail** runs execute() again in the same execution with the same items. A
 *   document the service accepted in an earlier try is not sent again: its task is reused
 *   (Submit and Wait reads its status again). A document whose earlier try may have reached the
 *   service (a 502/504 after the upload, a broken connection, no answer in time) is not sent
 *   again either: the try fails with the same cause. Only documents that provably did not reach
 *   the service (refused, 4xx, 5xx of the service itself, never started) are sent again.
 * - **Retry from the Executions list** (either option) starts a new execution from the stored
 *   data of the failed one, this context included: after a restart, and on any worker in queue
 *   mode. Accepted documents reuse their tasks. A document that may have arrived is sent again:
 *   the error told the user to check the project's tasks first, and retrying is their decision.
 * - **A later execution** (a new trigger event, a manual run) starts with an empty context and
 *   sends the document again.
 *
 * Each entry is keyed by the item (and the file within it) and holds a fingerprint of what was
 * sent (project, document type, max pages and the document: the SHA-256 of binary data held in
 * memory, the id of binary data held in n8n's binary store, or the URL of the URL input source),
 * so that another document at the same position is sent. An accepted document costs about 60
 * bytes of the stored execution: its key, a 16-digit fingerprint and its task_id.
 */

/** The key of the memory in the node's context. */
const MEMORY_KEY = 'documentExtractionSent';

/** A document that may have reached the service, in the execution `execution`. */
interface MayHaveArrived {
	fingerprint: string;
	execution: string;
	message: string;
	description?: string;
}

/** An accepted document: "<fingerprint> <task_id>"; or one that may have arrived. */
type Entry = string | MayHaveArrived;

/** The entries of one node: by item index, or "<item index>/<file>" for one file of an item. */
type Entries = Record<string, Entry>;

/** What identifies the document of an item: its content (binary) or its URL. */
export function documentFingerprint(source: DocumentSource | undefined, url?: string): string {
	if (url !== undefined) return `url:${url}`;
	if (source?.base64 !== undefined)
		return `sha256:${createHash('sha256').update(source.base64).digest('hex')}`;
	return `binary:${source?.binaryId ?? ''}`;
}

/** A short digest of what was sent: the fields and the document. */
function fingerprintOf(fields: SubmissionFields, document: string): string {
	return createHash('sha256')
		.update([fields.project, fields.document_type, fields.max_pages ?? '', document].join('\0'))
		.digest('hex')
		.slice(0, 16);
}

/** The memory of one document in one try of a node. */
interface SubmissionMemory {
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

/** What identifies one document of a node's run. */
interface DocumentKey {
	itemIndex: number;
	/** The file within the item, when an item has more than one document. */
	file?: string;
	fields: SubmissionFields;
	/** documentFingerprint() of the document. */
	document: string;
}

/** The entries of this node in the execution's context, created on first use. */
function entriesOf(ctx: IExecuteFunctions): Entries | undefined {
	if (typeof ctx.getContext !== 'function') return undefined;
	const context: IContextObject = ctx.getContext('node');
	const current = context[MEMORY_KEY];
	if (current && typeof current === 'object' && !Array.isArray(current)) return current as Entries;
	const created: Entries = {};
	context[MEMORY_KEY] = created;
	return created;
}

/** The memory of one document, kept in the node's context of the execution. */
export function submissionMemory(this: IExecuteFunctions, key: DocumentKey): SubmissionMemory {
	const entries = entriesOf(this);
	if (!entries) return NO_MEMORY;
	const node = this.getNode();
	const { itemIndex } = key;
	const slot = key.file === undefined ? String(itemIndex) : `${itemIndex}/${key.file}`;
	const fingerprint = fingerprintOf(key.fields, key.document);
	const execution = this.getExecutionId() ?? '';
	return {
		recall: () => {
			const entry = entries[slot];
			if (typeof entry === 'string') {
				const [sent, taskId] = entry.split(' ');
				return sent === fingerprint ? taskId : undefined;
			}
			if (entry?.fingerprint === fingerprint && entry.execution === execution) {
				const { message, description } = MESSAGES.notSentAgain(entry);
				throw nodeError({ getNode: () => node }, 'may_have_arrived', message, {
					itemIndex,
					description,
				});
			}
			return undefined;
		},
		accepted: (taskId) => {
			entries[slot] = `${fingerprint} ${taskId}`;
		},
		failed: (error) => {
			if (failureKind(error) !== 'may_have_arrived') {
				// it did not reach the service: a later try sends it
				if (typeof entries[slot] !== 'string') delete entries[slot];
				return;
			}
			const { message, description } = error as Error & { description?: string | null };
			entries[slot] = {
				fingerprint,
				execution,
				message,
				...(description ? { description } : {}),
			};
		},
	};
}
