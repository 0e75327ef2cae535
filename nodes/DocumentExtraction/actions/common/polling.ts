import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { timedOutMessage } from '../../../shared/messages';
import { latestStart } from '../../../shared/transport/deadline';
import { asNodeError, errorDetail, failureKind, mayPass } from '../../../shared/transport/errors';
import { isTerminal } from '../../../shared/transport/service';
import { type RequestSlots, SlotDeadlineError } from '../../../shared/transport/slots';
import { wait } from '../../../shared/wait';
import { fetchTask } from './taskStatus';

/** How a wait for a task ended. */
export interface WaitOutcome {
	/** The task as the service last described it; undefined when no status check was answered. */
	task?: IDataObject;
	timedOut: boolean;
	/** The error of the last status check, when it failed for a passing reason (5xx, timeout, network, 429). */
	lastError?: Error;
	/** No request slot came free for a status check before the deadline. */
	noSlot?: boolean;
}

export interface PollSpec {
	taskId: string;
	itemIndex: number;
	slots: RequestSlots;
	intervalMs: number;
	/** Epoch milliseconds: the item's deadline (its start + Max Wait). */
	deadline: number;
	signal?: AbortSignal;
}

/**
 * Polls GET /task_status every `intervalMs` until the task is complete or failed, or until the
 * item's deadline. The transport says when the last check can still start (latestStart), and
 * the wait before it is shortened to that moment, so a task that finishes just before the
 * deadline is still seen. Status checks go before uploads waiting for a request slot; time
 * spent waiting for one counts. A check that fails for a passing reason (5xx, timeout, network
 * error, 429) is retried at the next interval; any other failure (404, a stop) ends the wait.
 */
export async function waitForTask(
	this: IExecuteFunctions,
	{ taskId, itemIndex, slots, intervalMs, deadline, signal }: PollSpec,
): Promise<WaitOutcome> {
	let task: IDataObject | undefined;
	let lastError: Error | undefined;
	let noSlot = false;
	const pause = async (ms: number) => {
		try {
			await wait(ms, signal);
		} catch (error) {
			throw asNodeError(this, error, itemIndex);
		}
	};
	for (;;) {
		const lastCheck = latestStart(deadline);
		const wake = Math.min(Date.now() + intervalMs, lastCheck);
		if (wake < Date.now()) break;
		await pause(wake - Date.now());
		try {
			task = await fetchTask.call(this, taskId, itemIndex, slots, { deadline, signal });
			lastError = undefined;
		} catch (error) {
			if (signal?.aborted) throw asNodeError(this, error, itemIndex);
			if (failureKind(error) === 'out_of_time') {
				noSlot = error instanceof SlotDeadlineError;
				break;
			}
			if (!mayPass(error)) throw asNodeError(this, error, itemIndex);
			lastError = error as Error;
		}
		if (task && isTerminal(task.status) && !lastError) return { task, timedOut: false };
		if (wake === lastCheck) break;
	}
	// Too little time for another check: the rest of Max Wait is waited out all the same.
	await pause(Math.max(0, deadline - Date.now()));
	return {
		task,
		timedOut: true,
		...(lastError ? { lastError } : {}),
		...(noSlot ? { noSlot } : {}),
	};
}

/** The output of a task still running (or never answered for) when Max Wait ran out. */
export function timedOutItem(
	taskId: string,
	outcome: WaitOutcome,
	{ maxWaitS, waitedMs, slots }: { maxWaitS: number; waitedMs: number; slots: number },
): IDataObject {
	const { task, lastError, noSlot } = outcome;
	const json: IDataObject = {
		task_id: taskId,
		status: task?.status ?? null,
		timedOut: true,
		waitedSeconds: Math.round(waitedMs / 1000),
		statusChecked: task !== undefined,
		message: timedOutMessage({
			maxWaitS,
			slots,
			why:
				task !== undefined
					? 'running'
					: lastError
						? 'unanswered'
						: noSlot
							? 'noSlot'
							: 'noTimeLeft',
		}),
	};
	if (lastError) {
		const { message, detail } = errorDetail(lastError);
		json.lastPollError = message;
		if (detail !== undefined) json.lastPollErrorDetail = detail;
	}
	return json;
}
