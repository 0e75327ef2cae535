import type { IExecuteFunctions } from 'n8n-workflow';

import { parseHttpUrl } from '../../shared/urls';
import { MESSAGES, refusal } from '../messages';

/** The http(s) address in a URL field of an item; `whenEmpty` is the message for nothing given. */
export function readUrlField(
	this: IExecuteFunctions,
	raw: unknown,
	itemIndex: number,
	{ whenEmpty, description }: { whenEmpty?: string; description: string },
): URL {
	const text = typeof raw === 'string' ? raw.trim() : '';
	const url = parseHttpUrl(text);
	if (url) return url;
	const message = text || !whenEmpty ? MESSAGES.notAUrl(text) : whenEmpty;
	throw refusal(this, { message, description }, itemIndex);
}
