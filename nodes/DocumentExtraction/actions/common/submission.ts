import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readDocumentInput } from '../../input/documentInput';
import { submissionBodyFactory } from '../../input/requestBody';
import { asNodeError } from '../../../shared/transport/errors';
import { DOCUMENT_RATE_LIMIT_ADVICE } from '../../../shared/transport/messages';
import { submitDocument } from '../../../shared/transport/service';
import type { RunReport } from './hints';
import { type ItemRun, NotStartedError, processItems } from './itemRunner';
import { eachFile, selectItemFiles } from './perFile';
import { RequestSlots } from './requestSlots';
import {
	readFileSelection,
	readOptions,
	readRunSettings,
	readSubmissionSettings,
	type SubmissionSettings,
} from './settings';
import { documentFingerprint, submissionMemory } from './submissionMemory';

/**
 * Sending documents: each item's document read and sent once, within the run's request slots,
 * with what it became kept in the execution (submissionMemory.ts).
 */

/** A document the service accepted: its task id and the settings it was submitted with. */
export interface Submission {
	taskId: string;
	settings: SubmissionSettings;
	/**
	 * The document downloaded from the Document URL (URL input source), when it is to be
	 * output ("Include Downloaded File"); null for a URL input whose file is not kept, so that
	 * it is not held in memory while the item waits.
	 */
	downloaded?: IBinaryData | null;
}

/** How one document is sent: the run's slots, its halt switch and the cancel signal. */
export interface SendLimits extends ItemRun {
	slots: RequestSlots;
	/** Set when the run will fail: nothing more is sent. */
	halt?: { stopped: boolean };
	/** How long 429 answers to the upload are waited out (Max Wait for Submit and Wait). */
	throttleBudgetMs?: number;
}

/**
 * Reads the item's document and sends POST /process_file with the item's settings. When `halt`
 * is stopped by the time a request slot is free, nothing is sent (NotStartedError).
 */
export async function submitItem(
	this: IExecuteFunctions,
	itemIndex: number,
	settings: SubmissionSettings,
	{ slots, halt = { stopped: false }, throttleBudgetMs, signal }: SendLimits,
): Promise<Submission> {
	const { fields, source } = settings;
	const read = async () => await readDocumentInput.call(this, itemIndex, source, signal);
	// A binary field is checked before a request slot is taken, so that a missing file fails
	// the item at once. A download shares the slot of the upload that sends it: a file is
	// fetched only when it can be sent at once, so with a limit of k no more than k files are
	// open or held for sending.
	const fromBinary = source.urlInput ? undefined : await read();
	// A document an earlier try of this node already delivered is not sent again.
	const memory = submissionMemory.call(this, {
		itemIndex,
		// one of several files of the item has its own entry
		file: settings.file,
		fields,
		document: documentFingerprint(
			fromBinary?.source,
			source.urlInput ? String(source.documentUrl ?? '').trim() : undefined,
		),
	});
	const earlierTask = memory.recall();
	if (earlierTask !== undefined) {
		return {
			taskId: earlierTask,
			settings,
			downloaded: !source.urlInput
				? undefined
				: settings.includeDownloadedFile
					? ((await read()).downloaded ?? null)
					: null,
		};
	}
	// A run stopped by an earlier failure downloads nothing more.
	if (halt.stopped) throw new NotStartedError();
	const { response, downloaded } = await slots.run(async () => {
		if (halt.stopped) throw new NotStartedError();
		const input = fromBinary ?? (await read());
		const body = submissionBodyFactory.call(this, input.source, fields);
		let answer: IDataObject | undefined;
		try {
			answer = (await submitDocument.call(this, body, fields, itemIndex, input.source.bodyBytes, {
				throttleBudgetMs,
				rateLimitAdvice: DOCUMENT_RATE_LIMIT_ADVICE,
				signal,
			})) as IDataObject | undefined;
		} catch (error) {
			memory.failed(error);
			// Before the slot goes to the next document: without "Continue On Fail", none is sent after it.
			if (!this.continueOnFail()) halt.stopped = true;
			throw asNodeError(this, error, itemIndex);
		}
		if (typeof answer?.task_id === 'string' && answer.task_id) memory.accepted(answer.task_id);
		return {
			response: answer,
			downloaded: input.downloaded && (settings.includeDownloadedFile ? input.downloaded : null),
		};
	}, signal);
	const taskId = response?.task_id;
	if (typeof taskId !== 'string' || !taskId) {
		throw new NodeOperationError(
			this.getNode(),
			'The service accepted the document but returned no task_id',
			{
				itemIndex,
				description: `Response: ${JSON.stringify(response)}`,
			},
		);
	}
	return { taskId, settings, downloaded };
}

/** What the worker of a document operation gets for its item. */
export interface SubmissionWork extends ItemRun {
	/** The item's Options collection, read once. */
	options: IDataObject;
	/**
	 * Reads the item's document settings and sends its document; 429 answers are waited out for
	 * `throttleBudgetMs` at most.
	 */
	submit: (throttleBudgetMs?: number) => Promise<Submission>;
	/** The run's request slots (Max Concurrent Requests). */
	slots: RequestSlots;
}

/**
 * Runs `worker` for every document, all side by side, with the run's settings read once and one
 * set of request slots for the run (Max Concurrent Requests), which bounds every upload and
 * status check of every file. An item's document is its Input Binary Field or URL; with Files
 * to Send → All or Listed Binary Fields each file that counts is a document of its own, with
 * its own output item (perFile.ts). The worker calls `submit` when it is ready to send its
 * document; submitted task ids are kept so that a failure that stops the run names the tasks
 * already created. Without "Continue On Fail", no document is sent after the first failure;
 * those already submitted finish first.
 */
export async function processSubmissions(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	worker: (itemIndex: number, work: SubmissionWork) => Promise<INodeExecutionData>,
	report?: RunReport,
): Promise<INodeExecutionData[]> {
	const run = readRunSettings.call(this);
	const slots = new RequestSlots(run.maxConcurrency);
	const submittedTasks = new Map<number, string>();
	const halt = { stopped: false };
	const continueOnFail = this.continueOnFail();
	return await processItems.call(
		this,
		items,
		async (itemIndex, { signal }) => {
			const options = readOptions.call(this, itemIndex);
			const submitter =
				(file?: string) =>
				async (throttleBudgetMs?: number): Promise<Submission> => {
					const settings = readSubmissionSettings.call(this, itemIndex, options, run, file);
					const submission = await submitItem.call(this, itemIndex, settings, {
						slots,
						halt,
						throttleBudgetMs,
						signal,
					});
					const earlier = submittedTasks.get(itemIndex);
					submittedTasks.set(
						itemIndex,
						earlier ? `${earlier}, ${submission.taskId}` : submission.taskId,
					);
					return submission;
				};
			const selection = run.urlInput ? undefined : readFileSelection.call(this, itemIndex, options);
			if (!selection || selection.filesToSend === 'field') {
				return await worker(itemIndex, { options, submit: submitter(), slots, signal });
			}
			const { files, skipped } = selectItemFiles.call(this, itemIndex, selection);
			report?.skippedFiles.push(...skipped.map((file) => ({ ...file, itemIndex })));
			return await eachFile.call(
				this,
				itemIndex,
				files,
				async (file, submitted) => {
					const submit = submitter(file.field);
					return await worker(itemIndex, {
						options,
						slots,
						signal,
						submit: async (throttleBudgetMs) => {
							const submission = await submit(throttleBudgetMs);
							submitted(submission.taskId);
							return submission;
						},
					});
				},
				{ continueOnFail, halt, report },
			);
		},
		{ submittedTasks, halt, report },
	);
}
