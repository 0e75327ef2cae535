import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { fetchProjects, findProject, projectText } from '../../shared/projects';

// The first entry is a hint with the empty value: n8n's editor warns about a value its list
// lacks ("The value "" is not supported!"), and an empty Document Type is normal.
const hint = (name: string, description: string) => ({ name, value: '', description });

const CHOOSE_PROJECT_FIRST = hint(
	'Choose a Project First',
	'The document types are those of the project chosen in the Project field',
);
const CHOOSE_DOCUMENT_TYPE = hint(
	'Choose a Document Type',
	"Pick one of the project's document types below",
);
const NO_DOCUMENT_TYPES = hint(
	'No Document Types for This Project',
	'The service lists no project with this name or ID, or none of its document types: check the Project field',
);

/** The document types of the project chosen in the Project field, after a hint. */
export async function getDocumentTypes(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	let chosen: unknown;
	try {
		chosen = this.getCurrentNodeParameter('project', { extractValue: true });
	} catch {
		// an unfinished Project value (a mode without a value yet) is not chosen yet
	}
	const selected = projectText(chosen);
	// without a project, the type already set (an imported example's) is listed, not marked unknown
	const set = this.getCurrentNodeParameter('documentType');
	const kept = typeof set === 'string' && /^[^=]/.test(set) ? [{ name: set, value: set }] : [];
	if (!selected) return [CHOOSE_PROJECT_FIRST, ...kept];
	// the project Submit would send to: the same rule as resolving the field
	const project = findProject(await fetchProjects.call(this), selected);
	const names = [...new Set(project?.documentTypes ?? [])].sort();
	if (!names.length) return [NO_DOCUMENT_TYPES];
	return [CHOOSE_DOCUMENT_TYPE, ...names.map((name) => ({ name, value: name }))];
}
