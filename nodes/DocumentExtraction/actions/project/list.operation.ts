import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { extractProjectList } from '../../../shared/projects';
import { listProjects } from '../../../shared/transport/service';
import { eachItem, type NodeRun, runUnits, type Unit } from '../common/itemRunner';

const properties: INodeProperties[] = [];

const displayOptions = { show: { resource: ['project'], operation: ['list'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** One item per project of the answer's list; an answer without one is output whole. */
function projectItems(body: unknown, itemIndex: number): INodeExecutionData[] {
	const list = extractProjectList(body);
	if (!list) {
		const json =
			body && typeof body === 'object' && !Array.isArray(body)
				? (body as IDataObject)
				: { response: body as IDataObject };
		return [{ json, pairedItem: { item: itemIndex } }];
	}
	return list.map((entry) => ({
		json: entry && typeof entry === 'object' && !Array.isArray(entry) ? entry : { project: entry },
		pairedItem: { item: itemIndex },
	}));
}

export async function execute(
	this: IExecuteFunctions,
	run: NodeRun,
): Promise<INodeExecutionData[]> {
	const listFor = async ({ itemIndex }: Unit) =>
		projectItems(await listProjects.call(this, itemIndex, run.signal), itemIndex);
	return await runUnits.call(this, run, eachItem, listFor, { oneAtATime: true });
}
