import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { worded } from '../../../shared/explain';
import { extractProjectList } from '../../../shared/projects';
import { apiRequest } from '../../../shared/transport/request';
import { answerJson } from '../../../shared/transport/service';
import { eachItem, type NodeRun, runUnits, type Unit } from '../common/itemRunner';

export const description: INodeProperties[] = [];

/** One item per project of the answer's list; an answer without one is output whole. */
export async function execute(
	this: IExecuteFunctions,
	run: NodeRun,
): Promise<INodeExecutionData[]> {
	const listFor = async ({ itemIndex }: Unit) => {
		const options = { method: 'GET', path: '/projects', itemIndex, signal: run.signal } as const;
		const body = await apiRequest.call(this, options).catch((error: unknown) => {
			throw worded(error);
		});
		const list = extractProjectList(body);
		if (!list) return [{ json: answerJson(body), pairedItem: { item: itemIndex } }];
		return list.map((entry) => ({
			json:
				entry && typeof entry === 'object' && !Array.isArray(entry) ? entry : { project: entry },
			pairedItem: { item: itemIndex },
		}));
	};
	return await runUnits.call(this, run, eachItem, listFor, { oneAtATime: true });
}
