import type { IDataObject } from 'n8n-workflow';

/** The answer to a post without a `documents` list, or an empty one (400). */
export const NO_DOCUMENTS = {
	kind: 'no_documents',
	error:
		'The post has no documents. Send a JSON body {"documents": [{"url": "https://…", "key": "…", "file_name": "…"}]}: one entry per document, url required.',
};
const MAX_CONTEXT = 10000;

const isKey = (key: unknown) => (typeof key === 'string' && key !== '') || typeof key === 'number';

/** Why Intake cannot take a document (undefined when it can), in the words of its answer. */
function reasonOf({ key, url, file_name: fileName }: IDataObject, context: string) {
	if (url === undefined || url === null || url === '') return 'url is missing';
	if (typeof url !== 'string' || !/^https?:\/\/\S+$/i.test(url))
		return 'url is not an http or https address';
	if (key != null && !isKey(key)) return 'key is neither text nor a number';
	if (fileName != null && typeof fileName !== 'string') return 'file_name is not text';
	if (context.length > MAX_CONTEXT)
		return `its other fields take ${context.length} characters as JSON, more than ${MAX_CONTEXT}`;
	return undefined;
}

/**
 * A post's documents in its order (undefined without a non-empty `documents` list): document_key
 * (its key, else its url), url, file_name, context (every field but key and url, as JSON), position
 * (from 1), and the reason when Intake cannot take it, a key repeated within the post included.
 */
export function readDocuments(body: unknown): IDataObject[] | undefined {
	const posted = (body as IDataObject | undefined)?.documents;
	if (!Array.isArray(posted) || posted.length === 0) return undefined;
	const seen = new Set<string | null>();
	return posted.map((doc: unknown, index) => {
		const isObject = doc !== null && typeof doc === 'object' && !Array.isArray(doc);
		const { key, url, ...rest } = (isObject ? doc : {}) as IDataObject;
		const context = JSON.stringify(rest);
		const documentKey = isKey(key) ? String(key) : typeof url === 'string' && url ? url : null;
		let reason = isObject
			? reasonOf(doc as IDataObject, context)
			: 'a document is a JSON object: {"url": "https://…", "key": "…", …}';
		if (!reason && seen.has(documentKey))
			reason = 'the key repeats an earlier document of this post';
		else if (!reason) seen.add(documentKey);
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
