import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import { asNodeError } from '../../shared/transport/errors';
import { displayUrl, parseHttpUrl } from '../../shared/urls';
import { attemptSignal, CancelledError } from '../../shared/wait';
import { MESSAGES, refusal, type Words } from '../messages';
import { refusedAddress } from './downloadAddress';
import {
	describeDownload,
	isDocumentType,
	responseHeader,
	type ResponseHeaders,
} from './downloadedFile';

// The one request to a host other than the service: n8n's plain helper, as the credential is the service's.

type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

const MAX_DOWNLOAD_REDIRECTS = 5;

interface StreamResponse {
	statusCode: number;
	statusMessage?: string;
	headers: ResponseHeaders;
	body: BinaryStream;
}

/** Whether an error is n8n's own SSRF protection refusing an address (n8n 2.x), known by name only. */
function isInstanceSsrfBlock(error: unknown): boolean {
	for (let current = error, depth = 0; current && depth < 5; depth++) {
		const { name, cause } = current as { name?: unknown; cause?: unknown };
		if (name === 'SsrfBlockedIpError' || name === 'SsrfBlockedHostnameError') return true;
		current = cause;
	}
	return false;
}

/** GETs `url` one redirect hop at a time, each hop's address checked before it is contacted. */
async function fetchFollowingRedirects(
	this: IExecuteFunctions,
	url: URL,
	signal: AbortSignal,
	allowPrivateAddresses: boolean,
): Promise<StreamResponse | { refused: Words }> {
	let target = url;
	for (let hop = 0; ; hop++) {
		const refused =
			!allowPrivateAddresses && (await refusedAddress.call(this, target, signal, hop > 0));
		if (refused) return { refused };
		const response = (await this.helpers.httpRequest({
			method: 'GET',
			url: target.toString(),
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			abortSignal: signal,
			headers: { Accept: 'application/pdf, image/*;q=0.9, */*;q=0.1' },
		})) as StreamResponse;
		const location = responseHeader(response.headers, 'location');
		if (response.statusCode < 300 || response.statusCode >= 400 || !location) return response;
		response.body?.destroy?.();
		const next = parseHttpUrl(location, target);
		if (!next) return { refused: MESSAGES.redirectNotHttp(displayUrl(url)) };
		if (hop + 1 > MAX_DOWNLOAD_REDIRECTS) {
			return { refused: MESSAGES.tooManyRedirects(displayUrl(url), MAX_DOWNLOAD_REDIRECTS) };
		}
		// user info in a Location would become Basic auth to that host: never sent
		target = Object.assign(next, { username: '', password: '' });
	}
}

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

interface DownloadOptions {
	itemIndex: number;
	maxBytes: number;
	timeoutMs: number;
	allowPrivateAddresses?: boolean;
	signal?: AbortSignal;
}

/** Streams the document at `url` into n8n's binary data store within `timeoutMs` and `maxBytes`;
 * every failure of a download is decided here, as download_failed (a stop stays a stop). */
export async function downloadDocument(
	this: IExecuteFunctions,
	url: URL,
	options: DownloadOptions,
): Promise<IBinaryData> {
	const { itemIndex, maxBytes, timeoutMs, signal: cancel } = options;
	// one timer for the whole download, cleared when it ends
	const clock = attemptSignal(cancel, timeoutMs);
	try {
		const shown = displayUrl(url);
		const fail = (words: Words) => refusal(this, words, itemIndex, 'download_failed');
		const interrupted = () => {
			if (clock.timedOut()) return fail(MESSAGES.downloadTimedOut(shown, timeoutMs));
			if (cancel?.aborted) return asNodeError(this, new CancelledError(), itemIndex);
			return undefined;
		};

		let response: StreamResponse | { refused: Words };
		try {
			const allow = options.allowPrivateAddresses === true;
			response = await fetchFollowingRedirects.call(this, url, clock.signal, allow);
		} catch (error) {
			const reason = (error as Error)?.message;
			throw (
				interrupted() ??
				fail(
					isInstanceSsrfBlock(error)
						? MESSAGES.ssrfBlocked(shown, reason)
						: MESSAGES.unreachable(shown, reason || 'network error'),
				)
			);
		}
		if ('refused' in response) throw fail(response.refused);

		const { body, statusCode: status, headers } = response;
		const refuse = (words: Words) => {
			body?.destroy?.();
			return fail(words);
		};
		if (status < 200 || status >= 300) {
			const text = `${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
			throw refuse(MESSAGES.downloadRefused(shown, status, text));
		}
		const { fileName, mimeType, declaredType } = describeDownload(url, headers);
		if (!isDocumentType(mimeType)) throw refuse(MESSAGES.notADocument(shown, declaredType));
		const length = responseHeader(headers, 'content-length');
		const declared = Number(length);
		if (length !== '' && Number.isFinite(declared)) {
			if (declared > maxBytes) {
				throw refuse(MESSAGES.tooLarge(shown, megabytes(maxBytes), megabytes(declared)));
			}
			if (declared === 0) throw refuse(MESSAGES.emptyDownload(shown));
		}

		let received = 0;
		const counted = body.compose(async function* (chunks: AsyncIterable<Buffer>) {
			for await (const chunk of chunks) {
				received += chunk.length;
				if (received > maxBytes) throw new Error('too large');
				yield chunk;
			}
		}) as unknown as BinaryStream;
		let binary: IBinaryData;
		try {
			binary = await this.helpers.prepareBinaryData(counted, fileName, mimeType);
		} catch (error) {
			if (received > maxBytes) throw refuse(MESSAGES.tooLarge(shown, megabytes(maxBytes)));
			body?.destroy?.();
			throw interrupted() ?? fail(MESSAGES.downloadBroke(shown, (error as Error).message));
		}
		if (received === 0) throw fail(MESSAGES.emptyDownload(shown));
		return Object.assign(binary, { fileName, mimeType });
	} finally {
		clock.dispose();
	}
}
