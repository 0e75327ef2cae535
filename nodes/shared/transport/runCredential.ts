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

/** Each run's credential (node context), read and decrypted once; a refused one as its message. */
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
