import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { DOCUMENT_RATE_LIMIT_ADVICE, ERRORS } from '../../../shared/messages';
import { asNodeError, nodeError } from '../../../shared/transport/errors';
import { submitDocument } from '../../../shared/transport/service';
import { RequestSlots } from '../../../shared/transport/slots';
import { readDocumentInput } from '../../input/documentInput';
import { submissionBodyFactory } from '../../input/requestBody';
import { type NodeRun, NotStartedError, outputItem, runUnits, type Unit } from './itemRunner';
import { selectItemFiles } from './perFile';
import {
	readFileSelection,
	readOptions,
	readRunSettings,
	readSubmissionSettings,
	type SubmissionSettings,
} from './settings';
import { documentFingerprint, submissionMemory } from './submissionMemory';

/**
 * Sending documents: each unit's document (an item's, or one of its files) read and sent once,
 * within the run's request slots, with what it became kept in the execution
 * (submissionMemory.ts).
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

/** A unit of Submit or Submit and Wait: an item or one of its files, with the item's options. */
export interface DocumentUnit extends Unit {
	/** The item's Options collection, read once. */
	options: IDataObject;
}

/**
 * Reads the unit's document and sends POST /process_file with its settings, by `deadline`
 * when set (the item's Max Wait: the wait for a request slot, the download and the 429 waits of
 * the upload all end with it). Nothing is sent once the run has halted (NotStartedError).
 */
async function submitUnit(
	this: IExecuteFunctions,
	run: NodeRun,
	slots: RequestSlots,
	unit: DocumentUnit,
	settings: SubmissionSettings,
	deadline: number | undefined,
): Promise<Submission> {
	const { itemIndex } = unit;
	const { fields, source } = settings;
	const { signal } = run;
	const read = async () => await readDocumentInput.call(this, itemIndex, source, signal, deadline);
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
		const downloaded = !source.urlInput
			? undefined
			: settings.includeDownloadedFile
				? ((await read()).downloaded ?? null)
				: null;
		return { taskId: earlierTask, settings, downloaded };
	}
	// A run stopped by an earlier failure downloads nothing more.
	if (run.halted) throw new NotStartedError();
	const { response, downloaded } = await slots.run(
		async () => {
			if (run.halted) throw new NotStartedError();
			const input = fromBinary ?? (await read());
			const body = submissionBodyFactory.call(this, input.source, fields);
			let answer: IDataObject | undefined;
			try {
				answer = (await submitDocument.call(this, body, fields, itemIndex, input.source.bodyBytes, {
					deadline,
					rateLimitAdvice: DOCUMENT_RATE_LIMIT_ADVICE,
					signal,
				})) as IDataObject | undefined;
			} catch (error) {
				memory.failed(error);
				// Before the slot goes to the next document: the run may send none after it.
				run.failed();
				throw asNodeError(this, error, itemIndex);
			}
			if (typeof answer?.task_id === 'string' && answer.task_id) memory.accepted(answer.task_id);
			return {
				response: answer,
				downloaded: input.downloaded && (settings.includeDownloadedFile ? input.downloaded : null),
			};
		},
		signal,
		{ deadline },
	);
	const taskId = response?.task_id;
	if (typeof taskId !== 'string' || !taskId) {
		throw nodeError(this, 'unexpected', ERRORS.noTaskId, {
			itemIndex,
			description: `Response: ${JSON.stringify(response)}`,
		});
	}
	return { taskId, settings, downloaded };
}

/** What the work of a document operation gets for its unit. */
export interface SubmissionWork {
	/**
	 * Reads the unit's settings and sends its document; with a `deadline`, waits for a request
	 * slot and 429 answers no longer than that.
	 */
	submit: (deadline?: number) => Promise<Submission>;
	/** The run's request slots (Max Concurrent Requests). */
	slots: RequestSlots;
}

/**
 * Runs `work` for every document, all side by side, with the run's settings read once and one
 * set of request slots for the run (Max Concurrent Requests), which bounds every upload and
 * status check of every file. An item's document is its Input Binary Field or URL; with Files
 * to Send → All or Listed Binary Fields each file that counts is a unit of its own, with its
 * own output item. Submitted task ids are kept by the run, so that an error item or a failure
 * that stops the run names them.
 */
export async function processSubmissions(
	this: IExecuteFunctions,
	run: NodeRun,
	work: (unit: DocumentUnit, submission: SubmissionWork) => Promise<INodeExecutionData>,
): Promise<INodeExecutionData[]> {
	const settings = readRunSettings.call(this);
	const slots = new RequestSlots(settings.maxConcurrency);
	const unitsOf = (itemIndex: number): DocumentUnit[] => {
		const options = readOptions.call(this, itemIndex);
		const selection = settings.urlInput
			? undefined
			: readFileSelection.call(this, itemIndex, options);
		if (!selection || selection.filesToSend === 'field') return [{ itemIndex, options }];
		const input = run.items[itemIndex];
		const { files, skipped } = selectItemFiles.call(this, input, itemIndex, selection);
		run.report.skippedFiles.push(...skipped.map((file) => ({ ...file, itemIndex })));
		return files.map((file) => ({ itemIndex, file, options }));
	};
	const runDocuments = runUnits<DocumentUnit>;
	return await runDocuments.call(this, run, unitsOf, async (unit) => {
		const submit = async (deadline?: number): Promise<Submission> => {
			const unitSettings = readSubmissionSettings.call(
				this,
				unit.itemIndex,
				unit.options,
				settings,
				unit.file?.field,
			);
			const submission = await submitUnit.call(this, run, slots, unit, unitSettings, deadline);
			run.submitted(unit, submission.taskId);
			return submission;
		};
		return await work(unit, { submit, slots });
	});
}

/**
 * The output item of a document: `json` (with the input item's fields first under "Keep Input
 * Fields"), and the binary data its settings keep.
 */
export function documentOutput(
	run: NodeRun,
	unit: Unit,
	json: IDataObject,
	{ settings, downloaded }: Pick<Submission, 'settings' | 'downloaded'>,
): INodeExecutionData {
	const input = run.items[unit.itemIndex];
	return outputItem(
		input,
		unit.itemIndex,
		settings.keepInputFields ? { ...input.json, ...json } : json,
		{ includeInputBinary: settings.includeInputBinary, downloaded },
	);
}
