import { ALLOW_PRIVATE_ADDRESSES_OPTION, DEFAULT_FILE_TYPES } from '../constants';
import { plural } from './run';

const NO_BINARY_ADVICE =
	'This item has no binary data at all. Put a node that reads the file before this one: an email trigger with Download Attachments on, Read/Write Files from Disk, or HTTP Request with the response format set to File.';

const SKIP_ADVICE =
	'To let such items pass with no output (an email with no document), set the option Items Without a Document to Skip.';

const hasFields = (list: string) => `This item has these binary fields: ${list}.`;

const noBinaryField = (names: string, itemIndex: number, fix = '') =>
	`No binary field ${names} on item ${itemIndex}${fix}`;

export const INPUT_MESSAGES = {
	notAUrl: (text: string) => `"${text.slice(0, 200)}" is not an http(s) URL`,
	documentUrlField: {
		whenEmpty: 'No document URL given',
		description:
			'Document URL must be a full http:// or https:// address of a PDF or image, for example https://example.com/invoice.pdf.',
	},
	webhookUrlDescription:
		'Enter the full address of the endpoint that receives the events, for example https://example.com/hooks/extraction.',
	noInputBinaryField: (field: string, itemIndex: number, available: string[]) => ({
		message: noBinaryField(`"${field}"`, itemIndex),
		description: available.length
			? `${hasFields(available.map((name) => `"${name}"`).join(', '))} Set "Input Binary Field" to one of them.`
			: NO_BINARY_ADVICE,
	}),
	emptyFile: (field: string, fileName: string | undefined) => ({
		message: `The file in binary field "${field}" is empty`,
		description: `${fileName ? `"${fileName}" has 0 bytes. ` : ''}Pass a PDF or image file with content.`,
	}),

	noFileTypes: {
		message: `File Types is empty: enter MIME types or file extensions, for example ${DEFAULT_FILE_TYPES}, .pdf`,
		description:
			'File Types decides which files of the item are sent as documents. Its default sends PDFs and images, the files the service reads.',
	},
	badFileType: (entry: string, text: string) => ({
		message: `File Types: "${entry}" is neither a MIME type nor a file extension. Write it like application/pdf, image/* or .pdf`,
		description: `File Types is "${text}". Separate its entries with commas.`,
	}),
	noFieldNames: {
		message:
			'No binary field names given in Input Binary Fields: enter them separated by commas, for example attachment_0, attachment_1',
		description: 'Or set Files to Send to All Binary Fields to send every file of the item.',
	},
	missingFields: (names: string[], itemIndex: number, available: string) => ({
		message: noBinaryField(
			names.map((name) => `"${name}"`).join(', '),
			itemIndex,
			': set Input Binary Fields to fields the item has, or Files to Send to All Binary Fields',
		),
		description: available ? hasFields(available) : NO_BINARY_ADVICE,
	}),
	noBinaryData: (itemIndex: number) => ({
		message: `No binary data on item ${itemIndex}: there is no file to send`,
		description: `An email without attachments gives such an item, Download Attachments on or off. ${SKIP_ADVICE} Otherwise put a node that reads the file before this one: an email trigger with Download Attachments on, Read/Write Files from Disk, or HTTP Request with the response format set to File.`,
	}),
	noDocumentFile: (kind: string, itemIndex: number, count: number, files: string) => ({
		message: `No ${kind} on item ${itemIndex}: its ${plural(count, 'file is', `${count} files are`)} ${files}`,
		description: `Only a ${kind} is sent to the service. ${SKIP_ADVICE} Add the type of the file to File Types if it is a document after all (for example .pdf for a PDF sent as another type).`,
	}),
	wantedKind: (label: string, minImageKb = 0) =>
		(label === DEFAULT_FILE_TYPES ? 'PDF or image' : `file of the types in File Types (${label})`) +
		(minImageKb ? ` (images from ${minImageKb} KB)` : ''),

	redirectNotHttp: (shown: string) => ({
		message: `The document URL ${shown} redirected to an address that is not http(s)`,
		description: 'Give the address of the file itself.',
	}),
	tooManyRedirects: (shown: string, max: number) => ({
		message: `The document URL ${shown} redirected more than ${max} times`,
		description: 'Give the address of the file itself, or one with fewer redirects.',
	}),
	downloadTimedOut: (shown: string, timeoutMs: number) => ({
		message: `Downloading the document from ${shown} took longer than ${timeoutMs / 1000} s`,
		description:
			'The host did not send the whole file in time. Check the URL, or raise the "Download Timeout" option.',
	}),
	ssrfBlocked: (shown: string, reason: string) => ({
		message: `n8n's SSRF protection blocked the download from ${shown}: ${reason}`,
		description:
			'This n8n instance restricts the addresses nodes may reach (N8N_SSRF_PROTECTION_ENABLED). Ask the n8n administrator to add the host to N8N_SSRF_ALLOWED_HOSTNAMES or its range to N8N_SSRF_ALLOWED_IP_RANGES, or use a public URL.',
	}),
	unreachable: (shown: string, reason: string) => ({
		message: `Could not download the document from ${shown}`,
		description: `${reason}. Check that the URL is right and that the host is reachable from n8n.`,
	}),
	downloadRefused: (shown: string, status: number, statusText: string) => ({
		message: `The document could not be downloaded from ${shown}: the host answered ${statusText}`,
		description:
			status === 404
				? 'There is no file at this address. Check the URL.'
				: status >= 300 && status < 400
					? 'The host redirected without saying where to (no Location header).'
					: status === 401 || status === 403
						? 'The host refused access. Use a public URL, or a pre-signed one that is still valid.'
						: 'Check the URL, or try again later.',
	}),
	notADocument: (shown: string, declaredType: string) => ({
		message: `The URL ${shown} did not return a PDF or an image (content type ${declaredType || 'unknown'})`,
		description:
			'Give the address of the file itself (application/pdf or image/*), not of a web page that shows or links to it.',
	}),
	tooLarge: (shown: string, limit: string, size?: string) => ({
		message: `The document at ${shown} is too large: ${size ? `${size}, the limit is ${limit}` : `more than ${limit}`}`,
		description: 'Raise the "Max Download Size" option, or use a smaller file.',
	}),
	emptyDownload: (shown: string) => ({
		message: `The document at ${shown} is empty (0 bytes)`,
		description: 'The host sent no content. Check the URL.',
	}),
	downloadBroke: (shown: string, reason: string) => ({
		message: `Downloading the document from ${shown} failed`,
		description: `${reason || 'the connection broke'}. Try again.`,
	}),
	privateAddress: (target: string, className: string) => ({
		message: `The document URL ${target}: ${className}. Downloads from such addresses are refused unless "${ALLOW_PRIVATE_ADDRESSES_OPTION}" is on`,
		description: `Nothing was sent to this address. A URL can come from an AI agent or from a document, so by default the node reaches only public addresses. For a document on an intranet server, turn on the "${ALLOW_PRIVATE_ADDRESSES_OPTION}" option of this node.`,
	}),
};
