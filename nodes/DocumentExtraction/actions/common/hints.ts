import type { IExecuteFunctions, NodeExecutionHint } from 'n8n-workflow';

import { skippedFilesHint, type SkippedFile } from '../../input/inputFiles';

const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

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
export function outputHints(report: RunReport): NodeExecutionHint[] {
	const hints: NodeExecutionHint[] = [];
	const timedOut = report.timedOut.length;
	if (timedOut) {
		// A task none of whose status checks was answered may have finished: it is not "running".
		const unknown = report.timedOut.filter((checked) => !checked).length;
		const what =
			unknown === 0
				? `${plural(timedOut, 'task was', 'tasks were')} still running after Max Wait`
				: unknown === timedOut
					? `${plural(timedOut, 'task has', 'tasks have')} no known status: no status check was answered within Max Wait`
					: `${plural(timedOut, 'task', 'tasks')} did not finish within Max Wait (${unknown} without any status answer)`;
		hints.push({
			type: 'warning',
			location: 'outputPane',
			message: `${timedOut} ${what}; ${plural(timedOut, 'its task_id is', 'their task_ids are')} in the output: fetch ${plural(timedOut, 'it', 'them')} later with Get Status, or raise Max Wait`,
		});
	}
	const { failedTasks } = report;
	if (failedTasks) {
		hints.push({
			type: 'warning',
			location: 'outputPane',
			message: `${failedTasks} ${plural(failedTasks, 'task', 'tasks')} failed at the service; ${plural(failedTasks, 'it is', 'they are')} output with status "failed" and the service's error text`,
		});
	}
	const count = report.errorItems.length;
	if (count) {
		const withTask = report.errorItems.filter(Boolean).length;
		let message = `${count} ${plural(count, 'item', 'items')} failed and ${plural(count, 'is', 'are')} output as ${plural(count, 'an error item', 'error items')} (On Error → Continue), with the reason in "error"`;
		if (withTask === count) {
			message += `; ${plural(count, 'it carries its', 'they carry their')} task_id: fetch ${plural(count, 'it', 'them')} with Get Status`;
		} else if (withTask) {
			message += `; ${withTask} of them had been submitted and ${plural(withTask, 'carries its', 'carry their')} task_id: fetch ${plural(withTask, 'it', 'them')} with Get Status`;
		}
		hints.push({ type: 'warning', location: 'outputPane', message });
	}
	const skipped = skippedFilesHint(report.skippedFiles);
	if (skipped) hints.push({ type: 'info', location: 'outputPane', message: skipped });
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
