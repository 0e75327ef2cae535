import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest, type ApiContext } from '../transport';
import { isUuid, summarizeProjects, type ProjectSummary } from './utils';

/** The Project field shared by the action node and the trigger: a list, or an ID or name. */
export const projectLocator: INodeProperties = {
	displayName: 'Project',
	name: 'project',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The project whose schema shapes the extracted data',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a project...',
			typeOptions: { searchListMethod: 'searchProjects', searchable: true },
		},
		{
			displayName: 'By ID or Name',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. Invoices or 3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c',
			validation: [
				{
					type: 'regex',
					properties: { regex: '\\S+', errorMessage: 'Enter a project ID or name' },
				},
			],
		},
	],
};

export async function fetchProjects(
	this: ApiContext,
	itemIndex?: number,
): Promise<ProjectSummary[]> {
	const body = await apiRequest.call(this, { method: 'GET', path: '/projects', itemIndex });
	return summarizeProjects(body);
}

/**
 * Turns the Project field into a project_id. A UUID is taken as it is; a name is looked up
 * in GET /projects (case-insensitively), and an unknown name is an error listing the projects.
 */
export async function resolveProjectId(
	this: ApiContext,
	project: string,
	itemIndex?: number,
): Promise<string> {
	const wanted = project.trim();
	if (isUuid(wanted)) return wanted;
	const projects = await fetchProjects.call(this, itemIndex);
	const match =
		projects.find((p) => p.id === wanted || p.name === wanted) ??
		projects.find((p) => p.name.toLowerCase() === wanted.toLowerCase());
	if (match) return match.id;
	const known = projects.map((p) => `${p.name} (${p.id})`).join(', ');
	throw new NodeOperationError(this.getNode(), `No project named "${wanted}"`, {
		itemIndex,
		description: known
			? `The projects of this account are: ${known}. Pick one from the list or enter its ID.`
			: 'The account has no projects. Create one in the web dashboard first.',
	});
}

export function projectValue(value: unknown): string {
	if (value && typeof value === 'object') return String((value as IDataObject).value ?? '').trim();
	return String(value ?? '').trim();
}
