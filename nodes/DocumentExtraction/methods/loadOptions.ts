import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { fetchProjects, projectText } from '../../shared/projects';

/** What the Document Type list offers while no project is chosen: a hint, not an error. */
const CHOOSE_PROJECT_FIRST: INodePropertyOptions = {
	name: 'Choose a Project First',
	value: '',
	description: 'The document types are those of the project chosen in the Project field',
};

/** The document types of the project chosen in the Project field. */
export async function getDocumentTypes(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	let chosen: unknown;
	try {
		chosen = this.getCurrentNodeParameter('project', { extractValue: true });
	} catch {
		// an unfinished Project value (a mode without a value yet) is not chosen yet
		return [CHOOSE_PROJECT_FIRST];
	}
	const selected = projectText(chosen).toLowerCase();
	if (!selected) return [CHOOSE_PROJECT_FIRST];
	const projects = await fetchProjects.call(this);
	const matches = projects.filter(
		(p) => p.id.toLowerCase() === selected || p.name.toLowerCase() === selected,
	);
	const names = [...new Set(matches.flatMap((p) => p.documentTypes))].sort();
	return names.map((name) => ({ name, value: name }));
}
