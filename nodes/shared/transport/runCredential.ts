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

/** The credential as the requests of one run use it: read and checked once per run. */
interface RunCredential {
	baseUrl: string;
	authorization: string;
	pacer: Pacer;
}

/**
 * The credential of each run (each node context), read once. Reading a credential is costly in
 * n8n (a database read and a decryption each time), so the requests of a run share one read.
 * A credential that fails the checks is remembered as its error message, which every request
 * of the run then reports for its own item.
 */
const runCredentials = new WeakMap<object, Promise<RunCredential | { refused: string }>>();

async function checkedCredential(ctx: ApiContext): Promise<RunCredential | { refused: string }> {
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

export async function runCredential(ctx: ApiContext): Promise<RunCredential | { refused: string }> {
	let credential = runCredentials.get(ctx);
	if (!credential) {
		credential = checkedCredential(ctx);
		runCredentials.set(ctx, credential);
	}
	return await credential;
}
