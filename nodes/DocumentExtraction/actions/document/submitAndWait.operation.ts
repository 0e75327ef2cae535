import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { documentFields, maxPagesOption, outputField, submissionOptions } from '../../descriptions';
import { optionsCollection } from '../../../shared/descriptions';
import { documentOutput } from '../../helpers/documentInput';
import type { ConcurrencyLimiter } from '../../../shared/limiter';
import { wait } from '../../../shared/wait';
import { asNodeError, isTransientError } from '../../../shared/transport';
import { isTerminal } from '../../../shared/transport/service';
import { getOptions, positiveNumberOption } from '../common/items.utils';
import { fetchTask, processSubmissions, shapeTask } from '../common/task.utils';

export const DEFAULT_POLL_INTERVAL_S = 2;
export const MIN_POLL_INTERVAL_S = 1;
export const DEFAULT_MAX_WAIT_S = 600;

const properties: INodeProperties[] = [
	...documentFields,
	outputField,
	optionsCollection([
		...submissionOptions,
		{
			displayName: 'Max Wait (Seconds)',
			name: 'maxWait',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_MAX_WAIT_S,
			description:
				'How long to wait for a result. A task still running then is output with its task_id, its last status and timedOut: true, so Get Status can pick it up later.',
		},
		maxPagesOption,
		{
			displayName: 'Output Failed Tasks as Items',
			name: 'outputFailedAsItems',
			type: 'boolean',
			default: false,
			description:
				'Whether a task that ends with status failed is output as a normal item (with its error text) instead of failing the item',
		},
		{
			displayName: 'Poll Interval (Seconds)',
			name: 'pollInterval',
			type: 'number',
			typeOptions: { minValue: MIN_POLL_INTERVAL_S },
			default: DEFAULT_POLL_INTERVAL_S,
			description: 'How often to ask for the task status. The service recommends 2 seconds.',
		},
	]),
];

const displayOptions = { show: { resource: ['document'], operation: ['submitAndWait'] } };

export const description = updateDisplayOptions(displayOptions, properties);

interface WaitOutcome {
	task: IDataObject;
	timedOut: boolean;
	waitedMs: number;
	/** The error of the last poll, when it failed for a passing reason (5xx, timeout, network). */
	lastError?: string;
}

/**
 * Polls GET /task_status until the task is complete or failed, or until maxWaitMs is spent.
 * A poll that fails for a passing reason (5xx, timeout, network error) is retried until then;
 * only a 4xx answer ends the wait early. No request or wait outlasts maxWaitMs, and a stopped
 * execution stops the wait at once.
 */
export async function waitForTask(
	this: IExecuteFunctions,
	taskId: string,
	itemIndex: number,
	limiter: ConcurrencyLimiter,
	intervalMs: number,
	maxWaitMs: number,
): Promise<WaitOutcome> {
	const signal = this.getExecutionCancelSignal();
	const started = Date.now();
	const deadline = started + maxWaitMs;
	let task: IDataObject = { task_id: taskId, status: 'submitted' };
	let lastError: string | undefined;
	const timedOut = (): WaitOutcome => ({
		task,
		timedOut: true,
		waitedMs: Date.now() - started,
		...(lastError ? { lastError } : {}),
	});
	for (;;) {
		const remaining = deadline - Date.now();
		if (remaining <= 0) return timedOut();
		try {
			await wait(Math.min(intervalMs, remaining), signal);
		} catch {
			throw new NodeOperationError(this.getNode(), 'The execution was stopped', { itemIndex });
		}
		if (deadline - Date.now() <= 0) return timedOut();
		try {
			task = await fetchTask.call(this, taskId, itemIndex, limiter, { deadline });
			lastError = undefined;
		} catch (error) {
			if (signal?.aborted || !isTransientError(error)) throw asNodeError(this, error, itemIndex);
			lastError = (error as Error).message;
			continue;
		}
		if (isTerminal(task.status)) return { task, timedOut: false, waitedMs: Date.now() - started };
	}
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return await processSubmissions.call(this, items, async (itemIndex, submit, limiter) => {
		const options = getOptions.call(this, itemIndex);
		const intervalS = positiveNumberOption.call(this, options, {
			name: 'pollInterval',
			label: 'Poll Interval',
			fallback: DEFAULT_POLL_INTERVAL_S,
			minimum: MIN_POLL_INTERVAL_S,
			itemIndex,
		});
		const maxWaitS = positiveNumberOption.call(this, options, {
			name: 'maxWait',
			label: 'Max Wait',
			fallback: DEFAULT_MAX_WAIT_S,
			itemIndex,
		});
		const output = this.getNodeParameter('output', itemIndex, 'result') as string;

		const { taskId, downloaded } = await submit();
		const { task, timedOut, waitedMs, lastError } = await waitForTask.call(
			this,
			taskId,
			itemIndex,
			limiter,
			intervalS * 1000,
			maxWaitS * 1000,
		);

		let json: IDataObject;
		if (timedOut) {
			json = {
				task_id: taskId,
				status: task.status ?? null,
				timedOut: true,
				waitedSeconds: Math.round(waitedMs / 1000),
				message: `The task was still running after ${maxWaitS} s. Fetch its result later with Get Status and this task_id.`,
				...(lastError ? { lastPollError: lastError } : {}),
			};
		} else if (task.status === 'failed' && options.outputFailedAsItems !== true) {
			const reason =
				typeof task.error === 'string' && task.error ? task.error : 'no error text was given';
			// The service's own text may already say so; the message says it once.
			const message = /^extraction failed\b/i.test(reason)
				? reason
				: `Extraction failed: ${reason}`;
			throw new NodeOperationError(this.getNode(), message, {
				itemIndex,
				description: `Task ${taskId} ended with status failed. Check the document, or turn on "Output Failed Tasks as Items" to pass failed tasks on as items.`,
			});
		} else {
			json = shapeTask(task, output);
		}
		return documentOutput(items[itemIndex], json, itemIndex, options, downloaded);
	});
}
