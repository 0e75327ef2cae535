import type { IDataObject } from 'n8n-workflow';

/** What the shared code tells the user, each sentence written once. */

export const STOPPED = 'The execution was stopped';

export const CHECK_BEFORE_RESENDING =
	'Check the tasks of the project in the web dashboard, or wait for its task.completed webhook, before you send it again.';

export const SECOND_CHARGE = 'could create a second task and a second charge';

/** Where the API key goes, for a Base URL that seems to hold it. */
const KEY_FIELD = 'the API key belongs in the API Key field.';

/** What is wrong with the credential: its Base URL (each ending the sentence it starts) or its key. */
export const CREDENTIAL = {
	baseUrl: (reason: string) => `The Base URL of the Document Extraction API credential ${reason}`,
	notHttp:
		'must start with http:// or https:// followed by a host. Enter the address of the service, for example https://api.example.com.',
	userInfo: (shown: string) =>
		`must not contain a user name or password (shown here without them: ${shown}). Remove the part before "@"; ${KEY_FIELD}`,
	query: (shown: string) =>
		`must not contain a query (shown here without it: ${shown}). Remove the "?" and what follows it; ${KEY_FIELD}`,
	fragment: (shown: string) =>
		`must not contain a fragment (shown here without it: ${shown}). Remove the "#" and what follows it.`,
	unencrypted: (host: string, option: string) =>
		`uses http:// for ${host}: the API key would travel unencrypted. Use https://, or turn on "${option}" in the credential if the host is a trusted gateway on your own network.`,
	notTheService: (shown: string, answer: string) =>
		`The Base URL of the Document Extraction API credential does not lead to the service: ${shown}/projects answered ${answer}. Enter the address of the service with its path prefix, if it has one (for example https://api.example.com/v1).`,
	localhostName: (host: string, option: string) =>
		`uses http:// for ${host}: n8n may look names under .localhost up in DNS, and the API key would then travel unencrypted. Use http://127.0.0.1 or http://localhost for this machine, https://, or turn on "${option}" in the credential.`,
	keyFormat:
		'The API key of the Document Extraction API credential has the wrong format: keys look like vnd_… with no spaces. Copy the key from the web dashboard of the Document Extraction Service (or ask your account administrator for one) and paste it into the credential.',
};

export function noSuchProject(name: string, known: string) {
	return {
		message: `No project named "${name}"`,
		description: known
			? `The projects of this account are: ${known}. Pick one from the list or enter its ID.`
			: 'The account has no projects. Create one in the web dashboard first.',
	};
}

/** How an error for an empty Project field starts; each node says what to pick. */
export const NO_PROJECT_SELECTED = 'No project selected';

export const NETWORK_REASONS: Record<string, string> = {
	ECONNREFUSED: 'The connection was refused (ECONNREFUSED)',
	ENOTFOUND: 'The host name was not found (ENOTFOUND)',
	EAI_AGAIN: 'The host name could not be looked up (EAI_AGAIN)',
	ENETUNREACH: 'The network is unreachable (ENETUNREACH)',
	EHOSTUNREACH: 'The host is unreachable (EHOSTUNREACH)',
	ECONNRESET: 'The connection was closed unexpectedly (ECONNRESET)',
	EPIPE: 'The connection was closed while sending (EPIPE)',
	EPROTO: 'The secure connection failed (EPROTO): the address may not speak https',
};

/** Renders a 422 detail list (`[{loc, msg}]`) as readable `field: message` lines. */
export function formatValidationDetail(detail: unknown): string {
	if (Array.isArray(detail)) {
		return detail
			.map((entry) => {
				if (entry && typeof entry === 'object') {
					const { loc, msg, message } = entry as IDataObject;
					const path = Array.isArray(loc)
						? loc.filter((part) => part !== 'body').join('.')
						: typeof loc === 'string'
							? loc
							: '';
					const text = String(msg ?? message ?? JSON.stringify(entry));
					return path ? `${path}: ${text}` : text;
				}
				return String(entry);
			})
			.join('\n');
	}
	if (detail && typeof detail === 'object') return JSON.stringify(detail);
	return detail === undefined ? '' : String(detail);
}

const MAX_DETAIL_IN_MESSAGE = 400;

/** The service's detail on one line, for an error message: several lines joined by "; ". */
export function detailForMessage(detail: unknown): string {
	const text = formatValidationDetail(detail)
		.split('\n')
		.map((line) => line.trim())
		.filter(Boolean)
		.join('; ');
	return text.length > MAX_DETAIL_IN_MESSAGE
		? `${text.slice(0, MAX_DETAIL_IN_MESSAGE - 1)}…`
		: text;
}
