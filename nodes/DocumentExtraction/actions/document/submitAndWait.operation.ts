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
import {
	asNodeError,
	errorDetail,
	failureKind,
	failureOf,
	mayPass,
	nodeError,
} from '../../../shared/transport/errors';
import { latestStart } from '../../../shared/transport/deadline';
import { isTerminal } from '../../../shared/transport/service';
import { wait } from '../../../shared/wait';
import { MESSAGES, timedOutMessage } from '../../messages';
import { type NodeRun, runUnits } from '../common/itemRunner';
import { numberOptionOr } from '../common/settings';
import {
	documentOutput,
	type DocumentUnit,
	documentUnits,
	sendDocument,
} from '../common/submission';
import { fetchTask, shapeTask } from '../common/taskStatus';

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
 *
 * The task's status is asked every Poll Interval until it is complete or failed. The transport
 * says when the last check can still start (latestStart), and the wait before it is shortened
 * to that moment, so a task that finishes just before the deadline is still seen. A check that
 * fails for a passing reason (5xx, timeout, network error, 429) is retried at the next interval;
 * any other failure (404, a stop) ends the item.
 */
export async function execute(
	this: IExecuteFunctions,
	run: NodeRun,
): Promise<INodeExecutionData[]> {
	const { report, signal } = run;
	const unitsOf = (itemIndex: number): DocumentUnit[] => documentUnits.call(this, run, itemIndex);
	const runDocuments = runUnits<DocumentUnit>;
	return await runDocuments.call(this, run, unitsOf, async (unit) => {
		const started = Date.now();
		const { itemIndex } = unit;
		const settings = readWaitSettings.call(this, itemIndex, unit.options);
		const { maxWaitS, outputFailedAsItems } = settings;
		const deadline = started + maxWaitS * 1000;
		const submission = await sendDocument.call(this, run, unit, deadline);
		const { taskId } = submission;

		let task: IDataObject | undefined;
		let lastError: Error | undefined;
		let noSlot = false;
		let done = false;
		while (!done) {
			const lastCheck = latestStart(deadline);
			const wake = Math.min(Date.now() + settings.pollIntervalS * 1000, lastCheck);
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

		let json: IDataObject;
		if (!done) {
			// Too little time for another check: the rest of Max Wait is waited out all the same.
			await wait(Math.max(0, deadline - Date.now()), signal);
			report.timedOut.push(task !== undefined);
			json = {
				task_id: taskId,
				status: task?.status ?? null,
				timedOut: true,
				waitedSeconds: Math.round((Date.now() - started) / 1000),
				statusChecked: task !== undefined,
				message: timedOutMessage({
					maxWaitS,
					slots: run.slots.limit,
					why: task ? 'running' : lastError ? 'unanswered' : noSlot ? 'noSlot' : 'noTimeLeft',
				}),
			};
			if (lastError) {
				const { message, detail } = errorDetail(lastError);
				json.lastPollError = message;
				if (detail !== undefined) json.lastPollErrorDetail = detail;
			}
		} else if (task!.status === 'failed' && !outputFailedAsItems) {
			const { message, description } = MESSAGES.taskFailed(taskId, task!.error);
			throw nodeError(this, 'task_failed', message, { itemIndex, description });
		} else {
			if (task!.status === 'failed') report.failedTasks++;
			json = shapeTask(task!, settings.output);
		}
		return documentOutput(run, unit, json, submission);
	});
}
