import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { DEFAULT_MAX_WAIT_S, DEFAULT_POLL_INTERVAL_S, MIN_POLL_INTERVAL_S } from '../../constants';
import {
	documentFields,
	keepInputFieldsOption,
	maxPagesOption,
	outputField,
	submissionOptions,
} from '../../descriptions';
import { optionsCollection } from '../../../shared/descriptions';
import { asNodeError, errorDetail, failureKind, mayPass } from '../../../shared/transport/errors';
import { latestStart } from '../../../shared/transport/request';
import { isTerminal } from '../../../shared/transport/service';
import { wait } from '../../../shared/wait';
import { RunReport } from '../common/hints';
import { outputItem } from '../common/itemRunner';
import { type RequestSlots, SlotDeadlineError } from '../common/requestSlots';
import { numberOptionOr } from '../common/settings';
import { processSubmissions } from '../common/submission';
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
				'How long to wait for a result. A task still running then is output with its task_id, its last status and timedOut: true, so Get Status can pick it up later.',
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

interface WaitOutcome {
	/** The task as the service last described it; undefined when no status check was answered. */
	task?: IDataObject;
	timedOut: boolean;
	waitedMs: number;
	/** The error of the last status check, when it failed for a passing reason (5xx, timeout, network, 429). */
	lastError?: Error;
}

/** The time kept, before a status check's own least time, for a busy request slot. */
export const SLOT_WAIT_MS = 500;

/**
 * Polls GET /task_status until the task is complete or failed, or until maxWaitMs is spent.
 * The last check is made just before Max Wait runs out, never with a near-zero timeout: the
 * time between checks is shortened so that each one can still start (latestStart) after
 * SLOT_WAIT_MS for a request slot. Status checks go before uploads waiting for a request slot; time spent
 * waiting for a slot counts toward Max Wait. A check that fails for a passing reason (5xx,
 * timeout, network error, 429) is retried until then; only a 4xx answer ends the wait early.
 * No request or wait outlasts maxWaitMs, and a stopped execution stops the wait at once.
 */
export async function waitForTask(
	this: IExecuteFunctions,
	taskId: string,
	itemIndex: number,
	slots: RequestSlots,
	intervalMs: number,
	maxWaitMs: number,
	signal?: AbortSignal,
): Promise<WaitOutcome> {
	const started = Date.now();
	const deadline = started + maxWaitMs;
	const lastCheckBy = latestStart(deadline, SLOT_WAIT_MS);
	let task: IDataObject | undefined;
	let lastError: Error | undefined;
	const pause = async (ms: number) => {
		try {
			await wait(ms, signal);
		} catch (error) {
			throw asNodeError(this, error, itemIndex);
		}
	};
	for (;;) {
		const spare = lastCheckBy - Date.now();
		if (spare < 0) break;
		// The check after a shortened wait is the last one there is time for.
		const last = spare <= intervalMs;
		await pause(Math.min(intervalMs, spare));
		try {
			task = await fetchTask.call(this, taskId, itemIndex, slots, { deadline, signal });
			lastError = undefined;
		} catch (error) {
			if (signal?.aborted) throw asNodeError(this, error, itemIndex);
			if (error instanceof SlotDeadlineError || failureKind(error) === 'outOfTime') break;
			if (!mayPass(error)) throw asNodeError(this, error, itemIndex);
			lastError = error as Error;
		}
		if (task && isTerminal(task.status) && !lastError) {
			return { task, timedOut: false, waitedMs: Date.now() - started };
		}
		if (last) break;
	}
	// Too little time for another check: the rest of Max Wait is waited out all the same.
	await pause(Math.max(0, deadline - Date.now()));
	return {
		task,
		timedOut: true,
		waitedMs: Date.now() - started,
		...(lastError ? { lastError } : {}),
	};
}

/** The output of a task still running (or never answered for) when Max Wait ran out. */
function timedOutItem(
	taskId: string,
	outcome: WaitOutcome,
	maxWaitS: number,
	slots: number,
): IDataObject {
	const { task, waitedMs, lastError } = outcome;
	const json: IDataObject = {
		task_id: taskId,
		status: task?.status ?? null,
		timedOut: true,
		waitedSeconds: Math.round(waitedMs / 1000),
		statusChecked: task !== undefined,
		message:
			task !== undefined
				? `The task was still running after ${maxWaitS} s. Fetch its result later with Get Status and this task_id.`
				: lastError
					? `No status check was answered within Max Wait (${maxWaitS} s), so the task's status is not known. Fetch it later with Get Status and this task_id.`
					: `No status check could be made within Max Wait (${maxWaitS} s): all ${slots} request slots stayed busy. The task's status is not known: fetch it later with Get Status and this task_id, or raise Max Wait or Max Concurrent Requests.`,
	};
	if (lastError) {
		const { message, detail } = errorDetail(lastError);
		json.lastPollError = message;
		if (detail !== undefined) json.lastPollErrorDetail = detail;
	}
	return json;
}

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

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	report = new RunReport(),
): Promise<INodeExecutionData[]> {
	return await processSubmissions.call(
		this,
		items,
		async (itemIndex, { options, submit, slots, signal }) => {
			const { pollIntervalS, maxWaitS, output, outputFailedAsItems } = readWaitSettings.call(
				this,
				itemIndex,
				options,
			);

			// 429 answers to the upload are waited out for at most Max Wait.
			const { taskId, settings, downloaded } = await submit(maxWaitS * 1000);
			const outcome = await waitForTask.call(
				this,
				taskId,
				itemIndex,
				slots,
				pollIntervalS * 1000,
				maxWaitS * 1000,
				signal,
			);
			const task = outcome.task ?? {};

			let json: IDataObject;
			if (outcome.timedOut) {
				json = timedOutItem(taskId, outcome, maxWaitS, slots.limit);
				report.timedOut.push(outcome.task !== undefined);
			} else if (task.status === 'failed' && !outputFailedAsItems) {
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
				if (task.status === 'failed') report.failedTasks++;
				json = shapeTask(task, output);
			}
			if (settings.keepInputFields) json = { ...items[itemIndex].json, ...json };
			return outputItem(items[itemIndex], itemIndex, json, {
				includeInputBinary: settings.includeInputBinary,
				downloaded,
			});
		},
		report,
	);
}
