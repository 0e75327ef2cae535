import type { IExecuteFunctions, NodeExecutionHint } from 'n8n-workflow';

import { describeFiles, type ItemFile } from '../../input/inputFiles';
import { HINTS } from '../../messages';

/** What a run met that the user must know, recorded as it happens for the hints after it. */
export class RunReport {
	/** One entry per task Max Wait ran out for: whether any status check was answered for it. */
	readonly timedOut: boolean[] = [];
	failedTasks = 0;
	/** One entry per error item (On Error → Continue): whether it carries its task_id. */
	readonly errorItems: boolean[] = [];
	/** Files not sent: File Types did not count them, or images under Skip Images Smaller Than. */
	readonly skippedFiles: ItemFile[] = [];
	readonly skippedItems: number[] = [];
}

/** Adds the hints n8n shows above the output, on versions whose execute context offers them. */
export function addOutputHints(this: IExecuteFunctions, report: RunReport): void {
	const hints: NodeExecutionHint[] = [];
	const add = (type: 'warning' | 'info') => (message: string) =>
		hints.push({ type, location: 'outputPane', message });
	const [warn, info] = [add('warning'), add('info')];
	const timedOut = report.timedOut.length;
	if (timedOut) {
		warn(HINTS.timedOut(timedOut, report.timedOut.filter((checked) => !checked).length));
	}
	if (report.failedTasks) warn(HINTS.failedTasks(report.failedTasks));
	const count = report.errorItems.length;
	if (count) warn(HINTS.errorItems(count, report.errorItems.filter(Boolean).length));
	for (const small of [false, true]) {
		const files = report.skippedFiles.filter((file) => !file.small === !small);
		const hint = small ? HINTS.smallImages : HINTS.skippedFiles;
		if (files.length) info(hint(files.length, describeFiles(files)));
	}
	if (report.skippedItems.length) info(HINTS.skippedItems(report.skippedItems));
	if (hints.length) this.addExecutionHints?.(...hints);
}
