import type { IExecuteFunctions, NodeExecutionHint } from 'n8n-workflow';

import { describeFile, describeFiles, type ItemFile } from '../../input/inputFiles';
import { HINTS } from '../../messages';

/** What a run met that the user must know, recorded as it happens for the hints after it. */
export class RunReport {
	/** One entry per task Max Wait ran out for: whether any status check was answered for it. */
	readonly timedOut: boolean[] = [];
	/** Tasks that ended with status failed and were output as items. */
	failedTasks = 0;
	/** One entry per error item (On Error → Continue): whether it carries its task_id. */
	readonly errorItems: boolean[] = [];
	/** Files File Types did not count: not sent. */
	readonly skippedFiles: Array<ItemFile & { itemIndex: number }> = [];
}

/** Adds the hints n8n shows above the output, on versions whose execute context offers them. */
export function addOutputHints(this: IExecuteFunctions, report: RunReport): void {
	const hints: NodeExecutionHint[] = [];
	const warn = (message: string) =>
		hints.push({ type: 'warning', location: 'outputPane', message });
	const timedOut = report.timedOut.length;
	if (timedOut) {
		warn(HINTS.timedOut(timedOut, report.timedOut.filter((checked) => !checked).length));
	}
	if (report.failedTasks) warn(HINTS.failedTasks(report.failedTasks));
	const count = report.errorItems.length;
	if (count) warn(HINTS.errorItems(count, report.errorItems.filter(Boolean).length));
	const skipped = report.skippedFiles;
	if (skipped.length) {
		const list = describeFiles(skipped, (file) => `item ${file.itemIndex} ${describeFile(file)}`);
		const message = HINTS.skippedFiles(skipped.length, list);
		hints.push({ type: 'info', location: 'outputPane', message });
	}
	const context = this as Partial<Pick<IExecuteFunctions, 'addExecutionHints'>>;
	if (hints.length && typeof context.addExecutionHints === 'function') {
		context.addExecutionHints(...hints);
	}
}
