import type { IDataObject } from 'n8n-workflow';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
	return UUID_PATTERN.test(value);
}

/** Status values that end a task; anything else means it is still running. */
export const TERMINAL_STATUSES = ['complete', 'failed'] as const;

export function isTerminal(status: unknown): status is (typeof TERMINAL_STATUSES)[number] {
	return status === 'complete' || status === 'failed';
}

/**
 * Runs `worker` over `inputs` with at most `limit` calls in flight and returns the results
 * in input order.
 */
export async function mapWithConcurrency<I, O>(
	inputs: readonly I[],
	limit: number,
	worker: (input: I, index: number) => Promise<O>,
): Promise<O[]> {
	const results = new Array<O>(inputs.length);
	let next = 0;
	const lanes = Math.max(1, Math.min(Math.floor(limit) || 1, inputs.length));
	const runLane = async () => {
		while (next < inputs.length) {
			const index = next++;
			results[index] = await worker(inputs[index], index);
		}
	};
	await Promise.all(Array.from({ length: lanes }, runLane));
	return results;
}

/**
 * A counting semaphore: `run` waits for a free slot, so that no more than `limit`
 * requests are in flight at once, whichever item they belong to.
 */
export class RequestLimiter {
	private active = 0;

	private readonly waiting: Array<() => void> = [];

	constructor(private readonly limit: number) {}

	async run<T>(task: () => Promise<T>): Promise<T> {
		if (this.active >= this.limit) {
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		} else {
			this.active++;
		}
		try {
			return await task();
		} finally {
			const wake = this.waiting.shift();
			if (wake) wake();
			else this.active--;
		}
	}
}

export interface ProjectSummary {
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
export function summarizeProject(record: unknown): ProjectSummary | undefined {
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

export function summarizeProjects(body: unknown): ProjectSummary[] {
	return (extractProjectList(body) ?? [])
		.map(summarizeProject)
		.filter((p): p is ProjectSummary => p !== undefined);
}
