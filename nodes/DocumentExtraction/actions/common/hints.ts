import type { IExecuteFunctions, NodeExecutionHint } from 'n8n-workflow';

import { describeFile, describeFiles, type ItemFile } from '../../input/inputFiles';
import { HINTS } from '../../messages';

/** A file left out, with its item. */
interface SkippedFile extends ItemFile {
	itemIndex: number;
}

/**
 * What a run of an operation met that the user must know, recorded by the operation and its
 * item runner as it happens, and read by the hints after the run.
 */
export class RunReport {
	/** One entry per task Max Wait ran out for: whether any status check was answered for it. */
	readonly timedOut: boolean[] = [];

	/** Tasks that ended with status failed and were output as items. */
	failedTasks = 0;

	/** One entry per error item (On Error → Continue): whether it carries its task_id. */
	readonly errorItems: boolean[] = [];

	/** Files of items with several that File Types did not count: not sent. */
	readonly skippedFiles: SkippedFile[] = [];
}

/**
 * What the user must know after a run: tasks still running after Max Wait, tasks that failed
 * at the service (output as items), and items that failed (error items under "On Error →
 * Continue"), and files not sent as documents (File Types). Shown by n8n above the output panel.
 */
function outputHints(report: RunReport): NodeExecutionHint[] {
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
	return hints;
}

/** Adds the output hints to the run, on n8n versions whose execute context offers them. */
export function addOutputHints(this: IExecuteFunctions, report: RunReport): void {
	const hints = outputHints(report);
	const context = this as Partial<Pick<IExecuteFunctions, 'addExecutionHints'>>;
	if (hints.length && typeof context.addExecutionHints === 'function') {
		context.addExecutionHints(...hints);
	}
}
