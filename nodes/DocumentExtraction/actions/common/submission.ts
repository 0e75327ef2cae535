import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { worded } from '../../../shared/explain';
import { asNodeError } from '../../../shared/transport/errors';
import { submitDocument } from '../../../shared/transport/service';
import { readDocumentInput } from '../../input/documentInput';
import { type FileSelection, selectFiles } from '../../input/inputFiles';
import { submissionBodyFactory } from '../../input/requestBody';
import { MESSAGES } from '../../messages';
import { type NodeRun, notStarted, outputItem, runUnits, type Unit } from './itemRunner';
import { readOptions, readSubmissionSettings } from './settings';
import { submissionMemory } from './submissionMemory';

/** A unit of Submit or Submit and Wait: an item or one of its files, with the item's Options. */
type DocumentUnit = Unit & { options: IDataObject };

export const runDocuments = runUnits<DocumentUnit>;

/** The units of an item: the item itself, or each file Files to Send picks (skipped ones reported). */
export function documentUnits(this: IExecuteFunctions, run: NodeRun, itemIndex: number) {
	const options = readOptions.call(this, itemIndex);
	const filesToSend = (
		run.urlInput ? 'field' : this.getNodeParameter('filesToSend', itemIndex, 'field')
	) as FileSelection['filesToSend'] | 'field';
	if (filesToSend !== 'all' && filesToSend !== 'list') return [{ itemIndex, options }];
	const selection = {
		filesToSend,
		binaryPropertyNames: String(this.getNodeParameter('binaryPropertyNames', itemIndex, '') ?? ''),
		fileTypes: options.fileTypes === undefined ? undefined : String(options.fileTypes),
		minImageKb: Number(options.minImageSize) || 0,
		skipWithoutDocument: options.withoutDocument === 'skip',
	};
	const { files, skipped } = selectFiles(this, run.items[itemIndex]?.binary, selection, itemIndex);
	run.report.skippedFiles.push(...skipped.map((file) => ({ ...file, itemIndex })));
	if (!files.length) run.report.skippedItems.push(itemIndex);
	return files.map((file) => ({ itemIndex, file, options }));
}

/**
 * Sends the unit's document in a request slot, by `deadline` when set. A download shares its
 * upload's slot, so no more than k files are held; what an earlier try delivered is not resent.
 */
export async function sendDocument(
	this: IExecuteFunctions,
	run: NodeRun,
	unit: DocumentUnit,
	deadline?: number,
) {
	const { itemIndex } = unit;
	const settings = readSubmissionSettings.call(this, unit, run.urlInput);
	const { fields, source } = settings;
	const { signal } = run;
	const read = async () => await readDocumentInput.call(this, itemIndex, source, signal, deadline);
	const fromBinary = source.urlInput ? undefined : await read();
	const memory = submissionMemory.call(this, {
		itemIndex,
		file: settings.file,
		fields,
		source: fromBinary?.source,
		url: source.urlInput ? String(source.documentUrl ?? '').trim() : undefined,
	});
	let taskId = memory.recall();
	let downloaded: IBinaryData | null | undefined;
	let slot = false;
	try {
		if (taskId !== undefined) {
			// a URL input's file is downloaded again only to be output
			const again = source.urlInput && settings.includeDownloadedFile;
			if (source.urlInput) downloaded = again ? ((await read()).downloaded ?? null) : null;
		} else {
			if (run.halted) throw notStarted(this);
			slot = await run.slots.take({ deadline, itemIndex });
			if (run.halted) throw notStarted(this);
			const input = fromBinary ?? (await read());
			const body = submissionBodyFactory.call(this, input.source, fields);
			const limits = { deadline, signal };
			taskId = await submitDocument.call(this, body, itemIndex, input.source.bodyBytes, limits);
			memory.accepted(taskId);
			downloaded = input.downloaded && (settings.includeDownloadedFile ? input.downloaded : null);
		}
	} catch (error) {
		// the one place a document's failure gets its words, before the next document takes the slot
		const failure = asNodeError(this, worded(error, MESSAGES.documentRequest(fields)), itemIndex);
		memory.failed(failure);
		run.failed();
		throw failure;
	} finally {
		if (slot) run.slots.release();
	}
	run.tasks.set(unit, taskId);
	// `downloaded` is null for a URL input whose file is not kept
	return { taskId, settings, downloaded };
}

/** The output item of a sent document: `json`, after the input's fields when kept. */
export function documentOutput(
	run: NodeRun,
	{ itemIndex }: DocumentUnit,
	{ settings, downloaded }: Awaited<ReturnType<typeof sendDocument>>,
	json: IDataObject,
): INodeExecutionData {
	const input = run.items[itemIndex];
	const fields = settings.keepInputFields ? { ...input.json, ...json } : json;
	const { includeInputBinary } = settings;
	return outputItem(input, itemIndex, fields, { includeInputBinary, downloaded });
}
