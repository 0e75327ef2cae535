import { createHash } from 'crypto';
import type { IContextObject, IExecuteFunctions } from 'n8n-workflow';

import { failureKind } from '../../../shared/transport/errors';
import { MESSAGES, refusal } from '../../messages';
import type { DocumentSource, SubmissionFields } from '../../input/requestBody';

/*
 * What each document became, in the node's context, which n8n keeps with the execution for every
 * later try: Retry On Fail does not resend what may have arrived, a retry from Executions does
 * (its error said to check first). Keyed by item (and file), with a fingerprint of what was sent.
 */

const MEMORY_KEY = 'documentExtractionSent';

/** Custom data (of $execution: 1.x has no this.customData) outlives a Stop; 6 task_ids fit 255. */
function keptTaskIds(entries: Entry[]): string {
	const ids = entries.flatMap((entry) => (typeof entry === 'string' ? [entry.slice(17)] : []));
	return `${ids.slice(0, 6).join(' ')}${ids.length > 6 ? ` +${ids.length - 6} more` : ''}`;
}

/** "<fingerprint> <task_id>" of an accepted document, or one that may have arrived in `execution`. */
type Entry =
	| string
	| { fingerprint: string; execution: string; message: string; description?: string };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function entriesOf(ctx: IExecuteFunctions): Record<string, Entry> {
	// without a node context nothing is remembered
	if (typeof ctx.getContext !== 'function') return {};
	const context: IContextObject = ctx.getContext('node');
	const current = context[MEMORY_KEY];
	if (current && typeof current === 'object' && !Array.isArray(current)) return current;
	return (context[MEMORY_KEY] = {});
}

/** The memory of one document: the fields and the content (or URL) sent for an item or its file. */
export function submissionMemory(
	this: IExecuteFunctions,
	key: {
		itemIndex: number;
		file?: string;
		fields: SubmissionFields;
		source?: DocumentSource;
		url?: string;
	},
) {
	const { itemIndex, fields, source, url } = key;
	const entries = entriesOf(this);
	const slot = key.file === undefined ? String(itemIndex) : `${itemIndex}/${key.file}`;
	const document =
		url !== undefined
			? `url:${url}`
			: source?.base64 !== undefined
				? `sha256:${sha256(source.base64)}`
				: `binary:${source?.binaryId ?? ''}`;
	const sent = [fields.project, fields.document_type, fields.max_pages ?? '', document];
	const fingerprint = sha256(sent.join('\0')).slice(0, 16);
	const execution = this.getExecutionId() ?? '';
	return {
		/** The task accepted earlier; throws when an earlier try of this execution may have delivered it. */
		recall: (): string | undefined => {
			const entry = entries[slot];
			if (typeof entry === 'string') {
				const [earlier, taskId] = entry.split(' ');
				return earlier === fingerprint ? taskId : undefined;
			}
			if (entry?.fingerprint !== fingerprint || entry.execution !== execution) return undefined;
			throw refusal(this, MESSAGES.notSentAgain(entry), itemIndex, 'may_have_arrived');
		},
		accepted: (taskId: string) => {
			entries[slot] = `${fingerprint} ${taskId}`;
			const { $execution } = this.getWorkflowDataProxy?.(itemIndex) ?? {};
			$execution?.customData?.set('documentExtractionTasks', keptTaskIds(Object.values(entries)));
		},
		failed: (error: unknown) => {
			if (failureKind(error) === 'may_have_arrived') {
				const { message, description } = error as Error & { description?: string | null };
				entries[slot] = {
					fingerprint,
					execution,
					message,
					...(description ? { description } : {}),
				};
			} else if (typeof entries[slot] !== 'string') {
				// it did not reach the service: a later try sends it
				delete entries[slot];
			}
		},
	};
}
