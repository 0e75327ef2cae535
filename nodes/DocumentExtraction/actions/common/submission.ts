import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { explain } from '../../../shared/explain';
import { asNodeError, nodeError } from '../../../shared/transport/errors';
import { submitDocument } from '../../../shared/transport/service';
import { readDocumentInput } from '../../input/documentInput';
import { type FileSelectionError, selectFiles } from '../../input/inputFiles';
import { MESSAGES } from '../../messages';
import { submissionBodyFactory } from '../../input/requestBody';
import { type NodeRun, notStarted, outputItem, type Unit } from './itemRunner';
import {
	readFileSelection,
	readOptions,
	readSubmissionSettings,
	type SubmissionSettings,
} from './settings';
import { documentFingerprint, submissionMemory } from './submissionMemory';

/**
 * Sending documents, the code Submit and Submit and Wait share: the units of an item, each
 * unit's document read and sent once within the run's request slots (with what it became kept
 * in the execution: submissionMemory.ts), and its output item.
 */

/** A document the service accepted: its task id and the settings it was submitted with. */
interface Submission {
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

/** The units of an item: the item itself, or each file Files to Send picks (skipped ones reported). */
export function documentUnits(
	this: IExecuteFunctions,
	run: NodeRun,
	itemIndex: number,
): DocumentUnit[] {
	const options = readOptions.call(this, itemIndex);
	const selection = run.urlInput ? undefined : readFileSelection.call(this, itemIndex, options);
	if (!selection || selection.filesToSend === 'field') return [{ itemIndex, options }];
	let selected;
	try {
		selected = selectFiles(run.items[itemIndex]?.binary, selection, itemIndex);
	} catch (error) {
		const { message, description } = error as FileSelectionError;
		throw nodeError(this, 'invalid_input', message, { itemIndex, description });
	}
	run.report.skippedFiles.push(...selected.skipped.map((file) => ({ ...file, itemIndex })));
	return selected.files.map((file) => ({ itemIndex, file, options }));
}

/**
 * Reads the unit's settings and document and sends POST /process_file, by `deadline` when set
 * (the item's Max Wait: the wait for a request slot, the download and the 429 waits of the
 * upload all end with it). A binary field is checked before a request slot is taken, so that a
 * missing file fails the item at once; a download shares the slot of the upload that sends it,
 * so with a limit of k no more than k files are open or held for sending. A document an earlier
 * try of this node already delivered is not sent again (submissionMemory.ts); nothing is sent
 * once the run has halted. The task is recorded with the run, so that an error item or a
 * failure that stops the run names it.
 */
export async function sendDocument(
	this: IExecuteFunctions,
	run: NodeRun,
	unit: DocumentUnit,
	deadline?: number,
): Promise<Submission> {
	const { itemIndex } = unit;
	const settings = readSubmissionSettings.call(
		this,
		itemIndex,
		unit.options,
		run,
		unit.file?.field,
	);
	const { fields, source } = settings;
	const { signal } = run;
	const read = async () => await readDocumentInput.call(this, itemIndex, source, signal, deadline);
	const fromBinary = source.urlInput ? undefined : await read();
	const memory = submissionMemory.call(this, {
		itemIndex,
		file: settings.file,
		fields,
		document: documentFingerprint(
			fromBinary?.source,
			source.urlInput ? String(source.documentUrl ?? '').trim() : undefined,
		),
	});
	const keep = (downloaded?: IBinaryData) =>
		downloaded && (settings.includeDownloadedFile ? downloaded : null);
	let taskId = memory.recall();
	let downloaded: IBinaryData | null | undefined;
	if (taskId !== undefined) {
		if (source.urlInput)
			downloaded = settings.includeDownloadedFile
				? (keep((await read()).downloaded) ?? null)
				: null;
	} else {
		// A run stopped by an earlier failure downloads nothing more.
		if (run.halted) throw notStarted(this);
		const sent = await run.slots.run(
			async () => {
				if (run.halted) throw notStarted(this);
				const input = fromBinary ?? (await read());
				const body = submissionBodyFactory.call(this, input.source, fields);
				const limits = { deadline, signal };
				try {
					const task = await submitDocument.call(
						this,
						body,
						itemIndex,
						input.source.bodyBytes,
						limits,
					);
					memory.accepted(task);
					return { task, downloaded: keep(input.downloaded) };
				} catch (error) {
					const failure = asNodeError(
						this,
						explain(error, MESSAGES.documentRequest(fields)),
						itemIndex,
					);
					memory.failed(failure);
					// Before the slot goes to the next document: the run may send none after it.
					run.failed();
					throw failure;
				}
			},
			{ deadline, itemIndex },
		);
		taskId = sent.task;
		downloaded = sent.downloaded;
	}
	run.tasks.set(unit, taskId);
	return { taskId, settings, downloaded };
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
