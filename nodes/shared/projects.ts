import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import type { ApiContext } from './transport/runCredential';
import { listProjects } from './transport/service';
import { isUuid } from './uuid';
import { explain } from './explain';
import { noSuchProject } from './messages';
import { nodeError } from './transport/errors';

/** One project as the nodes use it, whatever the service calls its fields. */
interface ProjectSummary {
	id: string;
	name: string;
	documentTypes: string[];
	raw: IDataObject;
}

const LIST_KEYS = ['projects', 'items', 'data', 'results'];

/**
 * The list of projects inside a GET /projects answer: a bare array, or an object that wraps it
 * under projects, items, data or results. Undefined when the shape is not recognised.
 */
export function extractProjectList(body: unknown): IDataObject[] | undefined {
	if (Array.isArray(body)) return body as IDataObject[];
	if (body && typeof body === 'object') {
		for (const key of LIST_KEYS) {
			const value = (body as IDataObject)[key];
			if (Array.isArray(value)) return value as IDataObject[];
			if (value && typeof value === 'object') {
				const nested = extractProjectList(value);
				if (nested) return nested;
			}
		}
	}
	return undefined;
}

function documentTypeName(entry: unknown): string | undefined {
	if (typeof entry === 'string') return entry;
	if (entry && typeof entry === 'object') {
		const { name, document_type, id } = entry as IDataObject;
		const value = name ?? document_type ?? id;
		return value === undefined ? undefined : String(value);
	}
	return undefined;
}

/** Reads id, name and document types from one project record, whatever it calls them. */
function summarizeProject(record: unknown): ProjectSummary | undefined {
	if (typeof record === 'string') return { id: record, name: record, documentTypes: [], raw: {} };
	if (!record || typeof record !== 'object') return undefined;
	const raw = record as IDataObject;
	const id = raw.project_id ?? raw.id ?? raw.uuid;
	if (id === undefined || id === null) return undefined;
	const name = raw.name ?? raw.project_name ?? raw.title ?? id;
	const types = raw.document_types ?? raw.documentTypes ?? raw.types;
	return {
		id: String(id),
		name: String(name),
		documentTypes: Array.isArray(types)
			? types.map(documentTypeName).filter((t): t is string => t !== undefined)
			: [],
		raw,
	};
}

function summarizeProjects(body: unknown): ProjectSummary[] {
	return (extractProjectList(body) ?? [])
		.map(summarizeProject)
		.filter((p): p is ProjectSummary => p !== undefined);
}

export async function fetchProjects(
	this: ApiContext,
	itemIndex?: number,
	signal?: AbortSignal,
): Promise<ProjectSummary[]> {
	const body = await listProjects.call(this, itemIndex, signal).catch((error: unknown) => {
		throw explain(error);
	});
	return summarizeProjects(body);
}

/**
 * How a project answers to what the user typed, its ID or its name: exactly, differing only in
 * case, or as a part of either (a search).
 */
type ProjectMatch = 'exact' | 'ignoringCase' | 'part';

/**
 * The one rule by which a project answers to a text (the Project field, or a search in its
 * list): by its ID or its name, exactly, then ignoring case, then as a part. Every project
 * answers to an empty text as a part.
 */
export function matchProject(project: ProjectSummary, text: string): ProjectMatch | undefined {
	const wanted = text.trim();
	if (project.id === wanted || project.name === wanted) return 'exact';
	const lower = wanted.toLowerCase();
	const [id, name] = [project.id.toLowerCase(), project.name.toLowerCase()];
	if (id === lower || name === lower) return 'ignoringCase';
	if (id.includes(lower) || name.includes(lower)) return 'part';
	return undefined;
}

/** The project a Project field names: the first that answers exactly, else ignoring case. */
export function findProject(projects: ProjectSummary[], text: string): ProjectSummary | undefined {
	return (
		projects.find((p) => matchProject(p, text) === 'exact') ??
		projects.find((p) => matchProject(p, text) === 'ignoringCase')
	);
}

/**
 * Turns the Project field into a project_id. A UUID is taken as it is; a name is looked up
 * in GET /projects (findProject), and an unknown name is an error listing the projects.
 */
export async function resolveProjectId(
	this: ApiContext,
	project: string,
	itemIndex?: number,
	signal?: AbortSignal,
): Promise<string> {
	const wanted = project.trim();
	if (isUuid(wanted)) return wanted;
	const projects = await fetchProjects.call(this, itemIndex, signal);
	const match = findProject(projects, wanted);
	if (match) return match.id;
	const known = projects.map((p) => `${p.name} (${p.id})`).join(', ');
	const { message, description } = noSuchProject(wanted, known);
	throw nodeError(this, 'not_found', message, { itemIndex, description });
}

/** The value of the Project field (read with extractValue) as trimmed text: an ID or a name. */
export function projectText(value: unknown): string {
	return String(value ?? '').trim();
}

/**
 * The Project field of either node, as trimmed text (an ID or a name, '' when empty): for an
 * item of the action node (with `itemIndex`), or of the trigger's hooks and webhook.
 */
export function readProjectField(
	ctx: IExecuteFunctions | IHookFunctions | IWebhookFunctions,
	itemIndex?: number,
): string {
	const value =
		itemIndex === undefined
			? (ctx as IHookFunctions).getNodeParameter('project', '', { extractValue: true })
			: (ctx as IExecuteFunctions).getNodeParameter('project', itemIndex, '', {
					extractValue: true,
				});
	return projectText(value);
}
