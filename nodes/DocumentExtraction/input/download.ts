import type { IBinaryData, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { displayUrl, parseHttpUrl } from '../../shared/urls';
import { checkDownloadAddress, isInstanceSsrfBlock } from './downloadAddress';
import {
	describeDownload,
	isDocumentType,
	responseHeader,
	type ResponseHeaders,
} from './downloadedFile';
import { asNodeError, failureKind, nodeError } from '../../shared/transport/errors';
import { CancelledError } from '../../shared/wait';
import { MESSAGES } from '../messages';

/**
 * Downloads a document from a URL given to the node (URL input source). This is the only
 * request the node sends to a host other than the Document Extraction Service: it goes
 * through n8n's plain request helper (the credential is for the service, not for the
 * document's host), streams the body into n8n's binary data store and checks it on the way.
 */

type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

/** Redirects followed for a download at most. */
const MAX_DOWNLOAD_REDIRECTS = 5;

interface DownloadOptions {
	itemIndex: number;
	/** The largest file accepted, in bytes. */
	maxBytes: number;
	/** Time for the whole download, headers and body, in milliseconds. */
	timeoutMs: number;
	/** Allows loopback, private, link-local, unspecified and shared addresses (off by default). */
	allowPrivateAddresses?: boolean;
	/** The execution's cancel signal: a stopped execution ends the download at once. */
	signal?: AbortSignal;
}

interface StreamResponse {
	statusCode: number;
	statusMessage?: string;
	headers: ResponseHeaders;
	body: BinaryStream;
}

/**
 * GETs `url` as a stream, following up to MAX_DOWNLOAD_REDIRECTS redirects one hop at a time so
 * that each hop's address is checked before it is contacted. Answers with the first response
 * that is not a redirect (or a redirect without a Location).
 */
async function fetchFollowingRedirects(
	this: IExecuteFunctions,
	url: URL,
	{
		itemIndex,
		timeoutMs,
		signal,
		allowPrivateAddresses,
	}: { itemIndex: number; timeoutMs: number; signal: AbortSignal; allowPrivateAddresses: boolean },
): Promise<StreamResponse> {
	let target = url;
	for (let hop = 0; ; hop++) {
		if (!allowPrivateAddresses) {
			await checkDownloadAddress.call(this, target, { itemIndex, signal, redirected: hop > 0 });
		}
		const request: IHttpRequestOptions = {
			method: 'GET',
			url: target.toString(),
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: timeoutMs,
			disableFollowRedirect: true,
			abortSignal: signal,
			headers: { Accept: 'application/pdf, image/*;q=0.9, */*;q=0.1' },
		};
		const response = (await this.helpers.httpRequest(request)) as StreamResponse;
		const location = responseHeader(response.headers, 'location');
		if (response.statusCode < 300 || response.statusCode >= 400 || !location) return response;
		if (response.body && typeof response.body.destroy === 'function') response.body.destroy();
		const next = parseHttpUrl(location, target);
		const refuse = ({ message, description }: { message: string; description: string }) =>
			nodeError(this, 'download_failed', message, { itemIndex, description });
		if (!next) throw refuse(MESSAGES.redirectNotHttp(displayUrl(url)));
		if (hop + 1 > MAX_DOWNLOAD_REDIRECTS) {
			throw refuse(MESSAGES.tooManyRedirects(displayUrl(url), MAX_DOWNLOAD_REDIRECTS));
		}
		target = next;
	}
}

function megabytes(bytes: number): string {
	return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

class DownloadTooLarge extends Error {}

/**
 * Downloads the document at `url` into n8n's binary data store and returns its binary data.
 * Redirects are followed (up to 5), one hop at a time: the address of every hop is checked
 * before it is contacted (see `checkDownloadAddress`); the whole download must finish within `timeoutMs`;
 * a 4xx/5xx answer, a content type that is not a PDF or an image, a file over `maxBytes`
 * (declared or streamed) and an empty body are clear errors. The body is streamed: in the
 * filesystem and database binary modes only a chunk at a time is in memory.
 */
export async function downloadDocument(
	this: IExecuteFunctions,
	url: URL,
	{
		itemIndex,
		maxBytes,
		timeoutMs,
		allowPrivateAddresses = false,
		signal: cancel,
	}: DownloadOptions,
): Promise<IBinaryData> {
	const shown = displayUrl(url);
	const fail = ({ message, description }: { message: string; description: string }) =>
		nodeError(this, 'download_failed', message, { itemIndex, description });

	const timeout = AbortSignal.timeout(timeoutMs);
	const signal = cancel ? AbortSignal.any([timeout, cancel]) : timeout;
	const timedOut = () => fail(MESSAGES.downloadTimedOut(shown, timeoutMs));

	let response: StreamResponse | undefined;
	let failure: unknown;
	try {
		response = await fetchFollowingRedirects.call(this, url, {
			itemIndex,
			timeoutMs,
			signal,
			allowPrivateAddresses,
		});
	} catch (error) {
		failure = error;
	}
	if (response === undefined) {
		// a refused address or redirect, already explained
		if (failureKind(failure) === 'download_failed') throw failure;
		if (timeout.aborted) throw timedOut();
		if (cancel?.aborted) throw asNodeError(this, new CancelledError(), itemIndex);
		if (isInstanceSsrfBlock(failure)) {
			throw fail(MESSAGES.ssrfBlocked(shown, (failure as Error).message));
		}
		const reason = (failure as Error)?.message || 'network error';
		throw fail(MESSAGES.unreachable(shown, reason));
	}

	const body = response.body;
	const discard = () => {
		if (body && typeof body.destroy === 'function') body.destroy();
	};
	const status = response.statusCode;
	if (status < 200 || status >= 300) {
		discard();
		const text = `${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
		throw fail(MESSAGES.downloadRefused(shown, status, text));
	}

	const { fileName, mimeType, declaredType } = describeDownload(url, response.headers);
	if (!isDocumentType(mimeType)) {
		discard();
		throw fail(MESSAGES.notADocument(shown, declaredType));
	}

	const declaredLength = Number(responseHeader(response.headers, 'content-length'));
	if (
		responseHeader(response.headers, 'content-length') !== '' &&
		Number.isFinite(declaredLength)
	) {
		if (declaredLength > maxBytes) {
			discard();
			throw fail(MESSAGES.tooLarge(shown, megabytes(maxBytes), megabytes(declaredLength)));
		}
		if (declaredLength === 0) {
			discard();
			throw fail(MESSAGES.emptyDownload(shown));
		}
	}

	let received = 0;
	const counted = body.compose(async function* (chunks: AsyncIterable<Buffer>) {
		for await (const chunk of chunks) {
			received += chunk.length;
			if (received > maxBytes) throw new DownloadTooLarge();
			yield chunk;
		}
	}) as unknown as BinaryStream;

	let binary: IBinaryData;
	try {
		binary = await this.helpers.prepareBinaryData(counted, fileName, mimeType);
	} catch (error) {
		discard();
		if (error instanceof DownloadTooLarge || received > maxBytes) {
			throw fail(MESSAGES.tooLarge(shown, megabytes(maxBytes)));
		}
		if (timeout.aborted) throw timedOut();
		if (cancel?.aborted) throw asNodeError(this, new CancelledError(), itemIndex);
		throw fail(MESSAGES.downloadBroke(shown, (error as Error).message));
	}

	if (received === 0) throw fail(MESSAGES.emptyDownload(shown));
	binary.fileName = fileName;
	binary.mimeType = mimeType;
	return binary;
}
