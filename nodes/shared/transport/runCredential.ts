import type {
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE, readCredential } from '../credential';
import { type Pacer, pacerFor } from './pacer';

export type ApiContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

type RunCredential = { baseUrl: string; authorization: string; pacer: Pacer } | { refused: string };

/**
 * The credential of each run (node context), read once: each read is a database read and a
 * decryption in n8n. One that fails the checks is kept as its message, for every item's error.
 */
const runCredentials = new WeakMap<object, Promise<RunCredential>>();

async function checkedCredential(ctx: ApiContext): Promise<RunCredential> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	try {
		const { apiKey, baseUrl } = readCredential(credentials);
		return {
			baseUrl,
			authorization: `Bearer ${apiKey}`,
			pacer: pacerFor(baseUrl, credentials.apiKey),
		};
	} catch (error) {
		return { refused: (error as Error).message };
	}
}

export async function runCredential(ctx: ApiContext): Promise<RunCredential> {
	if (!runCredentials.has(ctx)) runCredentials.set(ctx, checkedCredential(ctx));
	return await runCredentials.get(ctx)!;
}
