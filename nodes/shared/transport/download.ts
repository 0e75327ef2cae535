import type { IBinaryData, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	ADDRESS_CLASS_NAMES,
	classifyHost,
	classifyIp,
	isRestricted,
	type RestrictedAddressClass,
} from '../addresses';

/**
 * Downloads a document from a URL given to the node (URL input source). This is the only
 * request the node sends to a host other than the Document Extraction Service: it goes
 * through n8n's plain request helper (the credential is for the service, not for the
 * document's host), streams the body into n8n's binary data store and checks it on the way.
 */

type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

/** Redirects followed for a download at most. */
export const MAX_DOWNLOAD_REDIRECTS = 5;
export const DEFAULT_MAX_DOWNLOAD_MB = 50;
export const DEFAULT_DOWNLOAD_TIMEOUT_S = 60;

export interface DownloadOptions {
	itemIndex: number;
	/** The largest file accepted, in bytes. */
	maxBytes: number;
	/** Time for the whole download, headers and body, in milliseconds. */
	timeoutMs: number;
	/** Allows loopback, private, link-local, unspecified and shared addresses (off by default). */
	allowPrivateAddresses?: boolean;
}

/** The name of the option that allows private network addresses, as the node shows it. */
export const ALLOW_PRIVATE_ADDRESSES_OPTION = 'Allow Private Addresses';

interface StreamResponse {
	statusCode: number;
	statusMessage?: string;
	headers: Record<string, string | string[] | undefined>;
	body: BinaryStream;
}

/** MIME types accepted as documents; application/octet-stream and no type are judged by the file name. */
const DOCUMENT_TYPE = /^(application\/(pdf|x-pdf)|image\/[a-z0-9.+-]+)$/;
const UNTYPED = ['', 'application/octet-stream', 'binary/octet-stream', 'application/binary'];

const EXTENSION_TYPES: Record<string, string> = {
	pdf: 'application/pdf',
	png: 'image/png',
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	gif: 'image/gif',
	webp: 'image/webp',
	tif: 'image/tiff',
	tiff: 'image/tiff',
	bmp: 'image/bmp',
	heic: 'image/heic',
};

const TYPE_EXTENSIONS: Record<string, string> = {
	'application/pdf': 'pdf',
	'application/x-pdf': 'pdf',
	'image/png': 'png',
	'image/jpeg': 'jpg',
	'image/gif': 'gif',
	'image/webp': 'webp',
	'image/tiff': 'tiff',
	'image/bmp': 'bmp',
	'image/heic': 'heic',
};

function header(headers: StreamResponse['headers'], name: string): string {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** The URL without credentials, query or fragment: safe to show in messages and outputs. */
export function displayUrl(url: URL): string {
	return `${url.protocol}//${url.host}${url.pathname}`;
}

/** Parses and checks the address: http or https with a host, else a clear error. */
export function parseDocumentUrl(this: IExecuteFunctions, raw: unknown, itemIndex: number): URL {
	const text = typeof raw === 'string' ? raw.trim() : '';
	let url: URL | undefined;
	try {
		url = new URL(text);
	} catch {
		url = undefined;
	}
	if (!url || !['http:', 'https:'].includes(url.protocol) || !url.hostname) {
		throw new NodeOperationError(
			this.getNode(),
			text ? `"${text.slice(0, 200)}" is not an http(s) URL` : 'No document URL given',
			{
				itemIndex,
				description:
					'Document URL must be a full http:// or https:// address of a PDF or image, for example https://example.com/invoice.pdf.',
			},
		);
	}
	return url;
}

/** The file name of a Content-Disposition header (filename* first), if any. */
export function fileNameFromDisposition(disposition: string): string | undefined {
	const extended = /filename\*\s*=\s*([^;]+)/i.exec(disposition);
	if (extended) {
		const value = extended[1].trim().replace(/^"(.*)"$/, '$1');
		const encoded = value.replace(/^[^']*'[^']*'/, '');
		try {
			const name = decodeURIComponent(encoded);
			if (name) return baseName(name);
		} catch {
			// fall back to the plain filename parameter
		}
	}
	const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(disposition);
	if (plain) {
		const name = (plain[2] ?? plain[1]).replace(/\\(.)/g, '$1').trim();
		if (name) return baseName(name);
	}
	return undefined;
}

function baseName(name: string): string {
	return name.split(/[\\/]/).pop() ?? name;
}

function extensionOf(name: string): string {
	const match = /\.([a-z0-9]+)$/i.exec(name);
	return match ? match[1].toLowerCase() : '';
}

/** The file name and MIME type of a download: from the response when it has them, else from the URL. */
export function describeDownload(
	url: URL,
	headers: StreamResponse['headers'],
): { fileName: string; mimeType: string; declaredType: string } {
	const declaredType = header(headers, 'content-type').split(';')[0].trim().toLowerCase();
	let fileName = fileNameFromDisposition(header(headers, 'content-disposition'));
	if (!fileName) {
		let last = '';
		try {
			last = decodeURIComponent(url.pathname.split('/').pop() ?? '');
		} catch {
			last = url.pathname.split('/').pop() ?? '';
		}
		fileName = last || 'document';
	}
	let mimeType = UNTYPED.includes(declaredType)
		? (EXTENSION_TYPES[extensionOf(fileName)] ?? (declaredType || 'application/octet-stream'))
		: declaredType;
	if (mimeType === 'application/x-pdf') mimeType = 'application/pdf';
	if (!extensionOf(fileName) && TYPE_EXTENSIONS[mimeType]) {
		fileName = `${fileName}.${TYPE_EXTENSIONS[mimeType]}`;
	}
	return { fileName, mimeType, declaredType };
}

/** Whether an error is n8n's own SSRF protection refusing an address (n8n 2.x). */
function isInstanceSsrfBlock(error: unknown): boolean {
	for (let current = error, depth = 0; current && depth < 5; depth++) {
		const { name, cause } = current as { name?: unknown; cause?: unknown };
		if (name === 'SsrfBlockedIpError' || name === 'SsrfBlockedHostnameError') return true;
		current = cause;
	}
	return false;
}

type LookupCallback = (error: Error | null, addresses: Array<{ address: string }> | string) => void;
type Lookup = (hostname: string, options: { all: true }, callback: LookupCallback) => void;
interface EgressHelpers {
	getSecureEgressFilter?: (policy?: string) => { createSecureLookup?: () => Lookup };
}

/**
 * The addresses `hostname` resolves to, looked up through n8n's own resolver, or undefined where
 * this n8n version offers none to nodes (n8n 1.x) or the lookup failed (the request then fails
 * as it would have). The lookup asks n8n for its unfiltered resolver ('unsafe'): the addresses
 * are judged here, by the same rules as IP literals; n8n's own policy still applies to the
 * request itself.
 */
async function resolveHost(
	this: IExecuteFunctions,
	hostname: string,
	signal: AbortSignal,
): Promise<string[] | undefined> {
	const helpers = this.helpers as unknown as EgressHelpers;
	if (typeof helpers.getSecureEgressFilter !== 'function') return undefined;
	let lookup: Lookup | undefined;
	try {
		lookup = helpers.getSecureEgressFilter('unsafe')?.createSecureLookup?.();
	} catch {
		lookup = undefined;
	}
	if (typeof lookup !== 'function') return undefined;
	const resolving = new Promise<string[] | undefined>((resolve) => {
		try {
			lookup(hostname, { all: true }, (error, addresses) => {
				if (error || !Array.isArray(addresses)) resolve(undefined);
				else resolve(addresses.map((entry) => entry.address));
			});
		} catch {
			resolve(undefined);
		}
	});
	const aborted = new Promise<undefined>((resolve) => {
		if (signal.aborted) resolve(undefined);
		signal.addEventListener('abort', () => resolve(undefined), { once: true });
	});
	return await Promise.race([resolving, aborted]);
}

/**
 * Refuses, before anything connects to it, an address the download must not reach unless
 * private addresses are allowed: loopback, private, link-local, unspecified and shared addresses,
 * as IP literals in any notation the URL parser accepts, as `localhost` or `*.localhost`, and as
 * host names that resolve to them (where n8n lets a node resolve names).
 */
export async function checkDownloadAddress(
	this: IExecuteFunctions,
	url: URL,
	{
		itemIndex,
		signal,
		redirected = false,
	}: { itemIndex: number; signal: AbortSignal; redirected?: boolean },
): Promise<void> {
	const refuse = (kind: RestrictedAddressClass, resolvedTo?: string) => {
		const target = `${redirected ? 'was redirected to' : 'points to'} ${url.host}${resolvedTo ? `, which resolves to ${resolvedTo}` : ''}`;
		return new NodeOperationError(
			this.getNode(),
			`The document URL ${target}: ${ADDRESS_CLASS_NAMES[kind]}. Downloads from such addresses are refused unless "${ALLOW_PRIVATE_ADDRESSES_OPTION}" is on`,
			{
				itemIndex,
				description: `Nothing was sent to this address. A URL can come from an AI agent or from a document, so by default the node reaches only public addresses. For a document on an intranet server, turn on the "${ALLOW_PRIVATE_ADDRESSES_OPTION}" option of this node.`,
			},
		);
	};
	const kind = classifyHost(url.hostname);
	if (isRestricted(kind)) throw refuse(kind);
	if (kind !== undefined) return;
	for (const address of (await resolveHost.call(this, url.hostname, signal)) ?? []) {
		const resolved = classifyIp(address);
		if (isRestricted(resolved)) throw refuse(resolved, address);
	}
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
		const location = header(response.headers, 'location');
		if (response.statusCode < 300 || response.statusCode >= 400 || !location) return response;
		if (response.body && typeof response.body.destroy === 'function') response.body.destroy();
		let next: URL | undefined;
		try {
			next = new URL(location, target);
		} catch {
			next = undefined;
		}
		if (!next || !['http:', 'https:'].includes(next.protocol)) {
			throw new NodeOperationError(
				this.getNode(),
				`The document URL ${displayUrl(url)} redirected to an address that is not http(s)`,
				{ itemIndex, description: 'Give the address of the file itself.' },
			);
		}
		if (hop + 1 > MAX_DOWNLOAD_REDIRECTS) {
			throw new NodeOperationError(
				this.getNode(),
				`The document URL ${displayUrl(url)} redirected more than ${MAX_DOWNLOAD_REDIRECTS} times`,
				{
					itemIndex,
					description: 'Give the address of the file itself, or one with fewer redirects.',
				},
			);
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
	{ itemIndex, maxBytes, timeoutMs, allowPrivateAddresses = false }: DownloadOptions,
): Promise<IBinaryData> {
	const shown = displayUrl(url);
	const fail = (message: string, description: string) =>
		new NodeOperationError(this.getNode(), message, { itemIndex, description });

	const timeout = AbortSignal.timeout(timeoutMs);
	const cancel =
		typeof this.getExecutionCancelSignal === 'function'
			? this.getExecutionCancelSignal()
			: undefined;
	const signal = cancel ? AbortSignal.any([timeout, cancel]) : timeout;
	const timedOut = () =>
		fail(
			`Downloading the document from ${shown} took longer than ${timeoutMs / 1000} s`,
			'The host did not send the whole file in time. Check the URL, or raise the "Download Timeout" option.',
		);

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
		if (failure instanceof NodeOperationError) throw failure;
		if (timeout.aborted) throw timedOut();
		if (cancel?.aborted)
			throw new NodeOperationError(this.getNode(), failure as Error, { itemIndex });
		if (isInstanceSsrfBlock(failure)) {
			throw fail(
				`n8n's SSRF protection blocked the download from ${shown}: ${(failure as Error).message}`,
				'This n8n instance restricts the addresses nodes may reach (N8N_SSRF_PROTECTION_ENABLED). Ask the n8n administrator to add the host to N8N_SSRF_ALLOWED_HOSTNAMES or its range to N8N_SSRF_ALLOWED_IP_RANGES, or use a public URL.',
			);
		}
		const reason = (failure as Error)?.message || 'network error';
		throw fail(
			`Could not download the document from ${shown}`,
			`${reason}. Check that the URL is right and that the host is reachable from n8n.`,
		);
	}

	const body = response.body;
	const discard = () => {
		if (body && typeof body.destroy === 'function') body.destroy();
	};
	const status = response.statusCode;
	if (status < 200 || status >= 300) {
		discard();
		const text = `${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
		throw fail(
			`The document could not be downloaded from ${shown}: the host answered ${text}`,
			status === 404
				? 'There is no file at this address. Check the URL.'
				: status >= 300 && status < 400
					? 'The host redirected without saying where to (no Location header).'
					: status === 401 || status === 403
						? 'The host refused access. Use a public URL, or a pre-signed one that is still valid.'
						: 'Check the URL, or try again later.',
		);
	}

	const { fileName, mimeType, declaredType } = describeDownload(url, response.headers);
	if (!DOCUMENT_TYPE.test(mimeType)) {
		discard();
		throw fail(
			`The URL ${shown} did not return a PDF or an image (content type ${declaredType || 'unknown'})`,
			'Give the address of the file itself (application/pdf or image/*), not of a web page that shows or links to it.',
		);
	}

	const declaredLength = Number(header(response.headers, 'content-length'));
	if (header(response.headers, 'content-length') !== '' && Number.isFinite(declaredLength)) {
		if (declaredLength > maxBytes) {
			discard();
			throw fail(
				`The document at ${shown} is too large: ${megabytes(declaredLength)}, the limit is ${megabytes(maxBytes)}`,
				'Raise the "Max Download Size" option, or use a smaller file.',
			);
		}
		if (declaredLength === 0) {
			discard();
			throw fail(
				`The document at ${shown} is empty (0 bytes)`,
				'The host sent no content. Check the URL.',
			);
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
			throw fail(
				`The document at ${shown} is too large: more than ${megabytes(maxBytes)}`,
				'Raise the "Max Download Size" option, or use a smaller file.',
			);
		}
		if (timeout.aborted) throw timedOut();
		if (cancel?.aborted)
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
		throw fail(
			`Downloading the document from ${shown} failed`,
			`${(error as Error).message || 'the connection broke'}. Try again.`,
		);
	}

	if (received === 0) {
		throw fail(
			`The document at ${shown} is empty (0 bytes)`,
			'The host sent no content. Check the URL.',
		);
	}
	binary.fileName = fileName;
	binary.mimeType = mimeType;
	return binary;
}
