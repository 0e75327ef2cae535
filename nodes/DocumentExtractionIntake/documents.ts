import type { IDataObject } from 'n8n-workflow';

/** The answer to a post without a `documents` list, or an empty one (400). */
export const NO_DOCUMENTS = {
	kind: 'no_documents',
	error:
		'The post has no documents. Send a JSON body {"documents": [{"url": "https://…", "key": "…", "file_name": "…"}]}: one entry per document, url required.',
};

/** One document of a post, as the workflow takes it: `reason` when Intake cannot take it. */
export interface IntakeDocument extends IDataObject {
	document_key: string | null;
	url: string | null;
	file_name: string | null;
	/** Every field but key and url, as JSON. */
	context: string;
	/** 1 for the post's first document. */
	position: number;
	reason?: string;
}

const MAX_CONTEXT = 10000;

/** Why Intake cannot take `doc` (undefined when it can), the rules the answer's reasons name. */
function reasonOf(doc: unknown, key: unknown, url: unknown, rest: IDataObject, context: string) {
	const keyed = (typeof key === 'string' && key !== '') || typeof key === 'number';
	if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
		return 'a document is a JSON object: {"url": "https://…", "key": "…", …}';
	if (url === undefined || url === null || url === '') return 'url is missing';
	if (typeof url !== 'string' || !/^https?:\/\/\S+$/i.test(url))
		return 'url is not an http or https address';
	if (key != null && !keyed) return 'key is neither text nor a number';
	if (rest.file_name != null && typeof rest.file_name !== 'string') return 'file_name is not text';
	if (context.length > MAX_CONTEXT)
		return `its other fields take ${context.length} characters as JSON, more than ${MAX_CONTEXT}`;
	return undefined;
}

/**
 * The documents of a post's body, in its order; undefined when it has no `documents` list or an
 * empty one. A document's key is its `key` (text or a number), or its `url` when it has none; a key
 * that repeats an earlier document Intake takes is refused. Nothing else of the request is read.
 */
export function readDocuments(body: unknown): IntakeDocument[] | undefined {
	const posted = (body as IDataObject | undefined)?.documents;
	if (!Array.isArray(posted) || posted.length === 0) return undefined;
	const seen = new Set<string>();
	return posted.map((doc: unknown, index) => {
		const isObject = doc !== null && typeof doc === 'object' && !Array.isArray(doc);
		const { key, url, ...rest } = (isObject ? doc : {}) as IDataObject;
		const context = JSON.stringify(rest);
		const keyed = (typeof key === 'string' && key !== '') || typeof key === 'number';
		const documentKey = keyed ? String(key) : typeof url === 'string' && url ? url : null;
		let reason = reasonOf(doc, key, url, rest, context);
		if (!reason && seen.has(documentKey as string))
			reason = 'the key repeats an earlier document of this post';
		if (!reason) seen.add(documentKey as string);
		return {
			document_key: documentKey,
			url: typeof url === 'string' ? url : null,
			file_name: typeof rest.file_name === 'string' ? rest.file_name : null,
			context,
			position: index + 1,
			...(reason ? { reason } : {}),
		};
	});
}
