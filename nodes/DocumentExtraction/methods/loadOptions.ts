import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { fetchProjects, projectText } from '../../shared/projects';

/** The document types of the project chosen in the Project field (all projects' when none is). */
export async function getDocumentTypes(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const selected = projectText(
		this.getCurrentNodeParameter('project', { extractValue: true }),
	).toLowerCase();
	const projects = await fetchProjects.call(this);
	const chosen = projects.filter(
		(p) => !selected || p.id.toLowerCase() === selected || p.name.toLowerCase() === selected,
	);
	const names = [...new Set(chosen.flatMap((p) => p.documentTypes))].sort();
	return names.map((name) => ({ name, value: name }));
}
