import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import type { ApiContext } from './transport/runCredential';
import { apiRequest } from './transport/request';
import { isUuid } from './uuid';
import { type About, worded } from './explain';
import { noSuchProject } from './messages';
import { nodeError } from './transport/errors';
import { displayUrl, parseHttpUrl } from './urls';

interface ProjectSummary {
	id: string;
	name: string;
	documentTypes: string[];
}

/** The list in a GET /projects answer: an array, maybe wrapped under one of the keys below. */
export function extractProjectList(body: unknown): IDataObject[] | undefined {
	if (Array.isArray(body)) return body as IDataObject[];
	if (body && typeof body === 'object') {
		for (const key of ['projects', 'items', 'data', 'results']) {
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

function summarizeProject(record: unknown): ProjectSummary | undefined {
	if (typeof record === 'string') return { id: record, name: record, documentTypes: [] };
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
	};
}

export async function fetchProjects(
	this: ApiContext,
	itemIndex?: number,
	signal?: AbortSignal,
): Promise<ProjectSummary[]> {
	const options = { method: 'GET', path: '/projects', itemIndex, signal } as const;
	const body = await apiRequest.call(this, options).catch((error: unknown) => {
		throw worded(error);
	});
	return (extractProjectList(body) ?? [])
		.map(summarizeProject)
		.filter((p): p is ProjectSummary => p !== undefined);
}

/** The one rule by which a project answers to the Project field or a search in its list. */
export function matchProject(
	project: ProjectSummary,
	text: string,
): 'exact' | 'ignoringCase' | 'part' | undefined {
	const wanted = text.trim();
	if (project.id === wanted || project.name === wanted) return 'exact';
	const lower = wanted.toLowerCase();
	const [id, name] = [project.id.toLowerCase(), project.name.toLowerCase()];
	if (id === lower || name === lower) return 'ignoringCase';
	if (id.includes(lower) || name.includes(lower)) return 'part';
	return undefined;
}

export function findProject(projects: ProjectSummary[], text: string): ProjectSummary | undefined {
	return (
		projects.find((p) => matchProject(p, text) === 'exact') ??
		projects.find((p) => matchProject(p, text) === 'ignoringCase')
	);
}

/** The project_id of the Project field: a UUID as it is, a name looked up (unknown: not_found). */
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

export function projectText(value: unknown): string {
	return String(value ?? '').trim();
}

/** The Project field of an action node's item (`itemIndex`), or of the trigger. */
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

/** A webhook registration: a refusal names the address n8n gave, and how to change it. */
export function webhookRequest(projectId: string, url: string): About {
	const parsed = parseHttpUrl(url);
	const shown = parsed ? displayUrl(parsed) : url.replace(/[?#].*$/, '');
	return {
		subject: `project ${projectId}`,
		action: 'the webhook registration',
		refusalAdvice: `n8n gave the webhook URL ${shown}. The service needs an https address it can reach: set n8n's public address with the WEBHOOK_URL environment variable (for example WEBHOOK_URL=https://n8n.example.com/), restart n8n and publish again.`,
	};
}
