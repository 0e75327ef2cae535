import type { IExecuteFunctions } from 'n8n-workflow';

import { parseHttpUrl } from '../../shared/urls';
import { nodeError } from '../../shared/transport/errors';

/**
 * The http(s) address in a URL field of an item (Document URL, the webhook's URL), or a clear
 * error: `whenEmpty` when nothing was given (else the empty text is named), and `description`,
 * which says what the field expects.
 */
export function readUrlField(
	this: IExecuteFunctions,
	raw: unknown,
	itemIndex: number,
	{ whenEmpty, description }: { whenEmpty?: string; description: string },
): URL {
	const text = typeof raw === 'string' ? raw.trim() : '';
	const url = parseHttpUrl(text);
	if (!url) {
		throw nodeError(
			this,
			'invalid_input',
			text || !whenEmpty ? `"${text.slice(0, 200)}" is not an http(s) URL` : whenEmpty,
			{ itemIndex, description },
		);
	}
	return url;
}
