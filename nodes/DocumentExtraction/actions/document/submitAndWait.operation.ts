import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { DEFAULT_MAX_WAIT_S, DEFAULT_POLL_INTERVAL_S, MIN_POLL_INTERVAL_S } from '../../constants';
import {
	documentFields,
	keepInputFieldsOption,
	maxPagesOption,
	outputField,
	submissionOptions,
} from '../../descriptions';
import { optionsCollection } from '../../../shared/descriptions';
import { taskFailed } from '../../../shared/messages';
import { nodeError } from '../../../shared/transport/errors';
import type { NodeRun } from '../common/itemRunner';
import { timedOutItem, waitForTask } from '../common/polling';
import { numberOptionOr } from '../common/settings';
import { documentOutput, processSubmissions } from '../common/submission';
import { shapeTask } from '../common/taskStatus';

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
				'The longest an item may take, from its start: waiting for a request slot, the download (URL input), sending (with waits for rate limits) and waiting for the result. An upload already under way may finish its own request timeout. A task still running then is output with its task_id, its last status and timedOut: true, so Get Status can pick it up later.',
		},
		keepInputFieldsOption,
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

/** The waiting options of one item of Submit and Wait, read once. */
interface WaitSettings {
	pollIntervalS: number;
	maxWaitS: number;
	/** Output: 'result' (Result Only) or 'full' (Full Task). */
	output: string;
	outputFailedAsItems: boolean;
}

function readWaitSettings(
	this: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
): WaitSettings {
	return {
		pollIntervalS: numberOptionOr.call(this, options, {
			name: 'pollInterval',
			label: 'Poll Interval',
			fallback: DEFAULT_POLL_INTERVAL_S,
			minimum: MIN_POLL_INTERVAL_S,
			itemIndex,
		}),
		maxWaitS: numberOptionOr.call(this, options, {
			name: 'maxWait',
			label: 'Max Wait',
			fallback: DEFAULT_MAX_WAIT_S,
			itemIndex,
		}),
		output: this.getNodeParameter('output', itemIndex, 'result') as string,
		outputFailedAsItems: options.outputFailedAsItems === true,
	};
}

/**
 * Sends each document and waits for its task. Max Wait bounds the whole unit by the wall
 * clock, from its start: the wait for a request slot, the download (URL input), the upload
 * with its 429 waits and retries, and the polling all end by start + Max Wait; only an upload
 * already under way then may finish its own request timeout. A task that outlives Max Wait is
 * output with its task_id (timedOut: true), so nothing sent is lost.
 */
export async function execute(
	this: IExecuteFunctions,
	run: NodeRun,
): Promise<INodeExecutionData[]> {
	const { report, signal } = run;
	return await processSubmissions.call(this, run, async (unit, { submit, slots }) => {
		const started = Date.now();
		const { itemIndex } = unit;
		const { pollIntervalS, maxWaitS, output, outputFailedAsItems } = readWaitSettings.call(
			this,
			itemIndex,
			unit.options,
		);
		const deadline = started + maxWaitS * 1000;
		const submission = await submit(deadline);
		const { taskId } = submission;
		const intervalMs = pollIntervalS * 1000;
		const outcome = await waitForTask.call(this, {
			taskId,
			itemIndex,
			slots,
			intervalMs,
			deadline,
			signal,
		});
		const task = outcome.task ?? {};
		let json: IDataObject;
		if (outcome.timedOut) {
			const waitedMs = Date.now() - started;
			json = timedOutItem(taskId, outcome, { maxWaitS, waitedMs, slots: slots.limit });
			report.timedOut.push(outcome.task !== undefined);
		} else if (task.status === 'failed' && !outputFailedAsItems) {
			const { message, description } = taskFailed(taskId, task.error);
			throw nodeError(this, 'task_failed', message, { itemIndex, description });
		} else {
			if (task.status === 'failed') report.failedTasks++;
			json = shapeTask(task, output);
		}
		return documentOutput(run, unit, json, submission);
	});
}
