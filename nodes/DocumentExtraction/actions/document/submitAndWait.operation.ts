import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { DEFAULT_MAX_WAIT_S, DEFAULT_POLL_INTERVAL_S, MIN_POLL_INTERVAL_S } from '../../constants';
import { documentFields, documentOptions, outputField } from '../../descriptions';
import {
	asNodeError,
	errorDetail,
	failureKind,
	failureOf,
	mayPass,
} from '../../../shared/transport/errors';
import { latestStart } from '../../../shared/transport/deadline';
import { isTerminal } from '../../../shared/transport/service';
import { wait } from '../../../shared/wait';
import { MESSAGES, refusal, timedOutMessage } from '../../messages';
import type { NodeRun } from '../common/itemRunner';
import { numberOption } from '../common/settings';
import { documentOutput, documentUnits, runDocuments, sendDocument } from '../common/submission';
import { fetchTask, shapeTask } from '../common/taskStatus';

const properties: INodeProperties[] = [
	...documentFields,
	outputField,
	documentOptions(
		{
			displayName: 'Max Wait (Seconds)',
			name: 'maxWait',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_MAX_WAIT_S,
			description:
				"The longest an item may take, from its start: waiting for a request slot, the download (URL input), sending (with waits for rate limits) and waiting for the result. An upload under way is not cut short: an item ends within Max Wait plus at most one upload's own time limit: 30 s plus 1 s for every 256 KB of the upload (the file in base64, about 5.3 s per MB of file). For a hard bound, also cap the file (Max Download Size). A task still running then is output with its task_id, its last status and timedOut: true, so Get Status can pick it up later.",
		},
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
	),
];

const displayOptions = { show: { resource: ['document'], operation: ['submitAndWait'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/**
 * Sends each document and polls its task until it ends; Max Wait bounds the whole unit, a task that
 * outlives it is output with timedOut: true. A check failing for a passing reason is retried.
 */
export async function execute(
	this: IExecuteFunctions,
	run: NodeRun,
): Promise<INodeExecutionData[]> {
	const { report, signal } = run;
	const unitsOf = (itemIndex: number) => documentUnits.call(this, run, itemIndex);
	return await runDocuments.call(this, run, unitsOf, async (unit) => {
		const { itemIndex, options } = unit;
		const started = Date.now();
		const pollIntervalS =
			numberOption.call(this, options, {
				name: 'pollInterval',
				label: 'Poll Interval',
				minimum: MIN_POLL_INTERVAL_S,
				itemIndex,
			}) ?? DEFAULT_POLL_INTERVAL_S;
		const maxWaitS =
			numberOption.call(this, options, { name: 'maxWait', label: 'Max Wait', itemIndex }) ??
			DEFAULT_MAX_WAIT_S;
		const output = this.getNodeParameter('output', itemIndex, 'result') as string;
		const deadline = started + maxWaitS * 1000;
		const submission = await sendDocument.call(this, run, unit, deadline);
		const { taskId } = submission;

		let task: IDataObject | undefined;
		let lastError: Error | undefined;
		let noSlot = false;
		let done = false;
		while (!done) {
			const lastCheck = latestStart(deadline);
			const wake = Math.min(Date.now() + pollIntervalS * 1000, lastCheck);
			if (wake < Date.now()) break;
			await wait(wake - Date.now(), signal);
			try {
				task = await fetchTask.call(this, run, taskId, itemIndex, deadline);
				lastError = undefined;
			} catch (error) {
				if (signal?.aborted || !mayPass(error)) throw asNodeError(this, error, itemIndex);
				if (failureKind(error) === 'out_of_time') {
					noSlot = failureOf(error)?.facts?.slots !== undefined;
					break;
				}
				lastError = error as Error;
			}
			done = task !== undefined && isTerminal(task.status) && !lastError;
			if (wake === lastCheck) break;
		}

		if (done && task!.status === 'failed' && options.outputFailedAsItems !== true) {
			throw refusal(this, MESSAGES.taskFailed(taskId, task!.error), itemIndex, 'task_failed');
		}
		if (done) {
			if (task!.status === 'failed') report.failedTasks++;
			return documentOutput(run, unit, submission, shapeTask(task!, output));
		}
		// Too little time for another check: the rest of Max Wait is waited out all the same.
		await wait(Math.max(0, deadline - Date.now()), signal);
		report.timedOut.push(task !== undefined);
		const why = task ? 'running' : lastError ? 'unanswered' : noSlot ? 'noSlot' : 'noTimeLeft';
		const json: IDataObject = {
			task_id: taskId,
			status: task?.status ?? null,
			timedOut: true,
			waitedSeconds: Math.round((Date.now() - started) / 1000),
			statusChecked: task !== undefined,
			message: timedOutMessage(maxWaitS, run.slots.limit, why),
		};
		if (lastError) {
			const { message, detail } = errorDetail(lastError);
			json.lastPollError = message;
			if (detail !== undefined) json.lastPollErrorDetail = detail;
		}
		return documentOutput(run, unit, submission, json);
	});
}
