import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { fetchProjects, matchProject } from './projects';

export async function searchProjects(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const projects = await fetchProjects.call(this);
	return {
		results: projects
			.filter((p) => matchProject(p, filter ?? '') !== undefined)
			.map((p) => ({
				name: p.name,
				value: p.id,
				description: p.documentTypes.length
					? `Document types: ${p.documentTypes.join(', ')}`
					: undefined,
			})),
	};
}
