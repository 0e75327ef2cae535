import type { IDataObject } from 'n8n-workflow';

/** The service's detail of an error answer, as text for a message or a description. */

/** Renders a 422 detail list (`[{loc, msg}]`) as readable `field: message` lines. */
export function formatValidationDetail(detail: unknown): string {
	if (Array.isArray(detail)) {
		return detail
			.map((entry) => {
				if (entry && typeof entry === 'object') {
					const { loc, msg, message } = entry as IDataObject;
					const path = Array.isArray(loc)
						? loc.filter((part) => part !== 'body').join('.')
						: typeof loc === 'string'
							? loc
							: '';
					const text = String(msg ?? message ?? JSON.stringify(entry));
					return path ? `${path}: ${text}` : text;
				}
				return String(entry);
			})
			.join('\n');
	}
	if (detail && typeof detail === 'object') return JSON.stringify(detail);
	return detail === undefined ? '' : String(detail);
}

/** The longest part of a message taken from the service's detail. */
const MAX_DETAIL_IN_MESSAGE = 400;

/** The service's detail on one line, for an error message: several lines joined by "; ". */
export function detailForMessage(detail: unknown): string {
	const text = formatValidationDetail(detail)
		.split('\n')
		.map((line) => line.trim())
		.filter(Boolean)
		.join('; ');
	return text.length > MAX_DETAIL_IN_MESSAGE
		? `${text.slice(0, MAX_DETAIL_IN_MESSAGE - 1)}…`
		: text;
}
