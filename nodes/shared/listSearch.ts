import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { fetchProjects } from './projects';

export async function searchProjects(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const projects = await fetchProjects.call(this);
	const needle = filter?.trim().toLowerCase() ?? '';
	return {
		results: projects
			.filter(
				(p) =>
					!needle || p.name.toLowerCase().includes(needle) || p.id.toLowerCase().includes(needle),
			)
			.map((p) => ({
				name: p.name,
				value: p.id,
				description: p.documentTypes.length
					? `Document types: ${p.documentTypes.join(', ')}`
					: undefined,
			})),
	};
}
