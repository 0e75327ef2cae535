import type { IExecuteFunctions, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';

const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

/** An error item of "On Error → Continue": the item runner's `{ error, task_id? }`, no task status. */
function isErrorItem(item: INodeExecutionData): boolean {
	return typeof item.json.error === 'string' && !('status' in item.json);
}

/**
 * What the user must know after a run, read from the node's output items: tasks still running
 * after Max Wait, tasks that failed at the service (output as items), and items that failed
 * (error items under "On Error → Continue"). Shown by n8n above the output panel.
 */
export function outputHints(items: INodeExecutionData[]): NodeExecutionHint[] {
	const hints: NodeExecutionHint[] = [];
	const timedOutItems = items.filter((item) => item.json.timedOut === true);
	const timedOut = timedOutItems.length;
	if (timedOut) {
		// A task none of whose status checks was answered may have finished: it is not "running".
		const unknown = timedOutItems.filter((item) => item.json.statusChecked === false).length;
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
	const failedTasks = items.filter(
		(item) => item.json.status === 'failed' && item.json.timedOut !== true,
	).length;
	if (failedTasks) {
		hints.push({
			type: 'warning',
			location: 'outputPane',
			message: `${failedTasks} ${plural(failedTasks, 'task', 'tasks')} failed at the service; ${plural(failedTasks, 'it is', 'they are')} output with status "failed" and the service's error text`,
		});
	}
	const errors = items.filter(isErrorItem);
	if (errors.length) {
		const withTask = errors.filter((item) => typeof item.json.task_id === 'string').length;
		const count = errors.length;
		let message = `${count} ${plural(count, 'item', 'items')} failed and ${plural(count, 'is', 'are')} output as ${plural(count, 'an error item', 'error items')} (On Error → Continue), with the reason in "error"`;
		if (withTask === count) {
			message += `; ${plural(count, 'it carries its', 'they carry their')} task_id: fetch ${plural(count, 'it', 'them')} with Get Status`;
		} else if (withTask) {
			message += `; ${withTask} of them had been submitted and ${plural(withTask, 'carries its', 'carry their')} task_id: fetch ${plural(withTask, 'it', 'them')} with Get Status`;
		}
		hints.push({ type: 'warning', location: 'outputPane', message });
	}
	return hints;
}

/** Adds the output hints to the run, on n8n versions whose execute context offers them. */
export function addOutputHints(this: IExecuteFunctions, items: INodeExecutionData[]): void {
	const hints = outputHints(items);
	const context = this as Partial<Pick<IExecuteFunctions, 'addExecutionHints'>>;
	if (hints.length && typeof context.addExecutionHints === 'function') {
		context.addExecutionHints(...hints);
	}
}
