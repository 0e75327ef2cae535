export type ResponseHeaders = Record<string, string | string[] | undefined>;

const DOCUMENT_TYPE = /^(application\/(pdf|x-pdf)|image\/[a-z0-9.+-]+)$/;
const UNTYPED = ['', 'application/octet-stream', 'binary/octet-stream', 'application/binary'];

const EXTENSION_TYPES: Record<string, string> = {
	pdf: 'application/pdf',
	png: 'image/png',
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	gif: 'image/gif',
	webp: 'image/webp',
	tiff: 'image/tiff',
	tif: 'image/tiff',
	bmp: 'image/bmp',
	heic: 'image/heic',
};

/** The extension a name without one gets: the first of its type above. */
const TYPE_EXTENSIONS: Record<string, string> = Object.fromEntries(
	Object.entries(EXTENSION_TYPES)
		.reverse()
		.map(([extension, type]) => [type, extension]),
);

export function isDocumentType(mimeType: string): boolean {
	return DOCUMENT_TYPE.test(mimeType);
}

/** One header of a response (the first value of a repeated one), or ''. */
export function responseHeader(headers: ResponseHeaders, name: string): string {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** The file name of a Content-Disposition header (filename* first), if any. */
function fileNameFromDisposition(disposition: string): string | undefined {
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

export function extensionOf(name: string): string {
	const match = /\.([a-z0-9]+)$/i.exec(name);
	return match ? match[1].toLowerCase() : '';
}

/** The MIME type given, or by the name's extension for none or a generic one (mail clients send PDFs so). */
export function fileType(fileName: string, givenType: string): string {
	const type = givenType.split(';')[0].trim().toLowerCase();
	const mimeType = UNTYPED.includes(type)
		? (EXTENSION_TYPES[extensionOf(fileName)] ?? (type || 'application/octet-stream'))
		: type;
	return mimeType === 'application/x-pdf' ? 'application/pdf' : mimeType;
}

/** The file name and MIME type of a download: from the response when it has them, else from the URL. */
export function describeDownload(
	url: URL,
	headers: ResponseHeaders,
): { fileName: string; mimeType: string; declaredType: string } {
	const declaredType = responseHeader(headers, 'content-type').split(';')[0].trim().toLowerCase();
	let fileName = fileNameFromDisposition(responseHeader(headers, 'content-disposition'));
	if (!fileName) {
		let last = '';
		try {
			last = decodeURIComponent(url.pathname.split('/').pop() ?? '');
		} catch {
			last = url.pathname.split('/').pop() ?? '';
		}
		fileName = last || 'document';
	}
	const mimeType = fileType(fileName, declaredType);
	if (!extensionOf(fileName) && TYPE_EXTENSIONS[mimeType]) {
		fileName = `${fileName}.${TYPE_EXTENSIONS[mimeType]}`;
	}
	return { fileName, mimeType, declaredType };
}
