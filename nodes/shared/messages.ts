/**
 * What the shared code tells the user, each sentence written once: a stop, the errors of the
 * credential and of the Project field. The words of a request's failures are in explain.ts;
 * each node's own messages are in its messages module (../DocumentExtraction/messages,
 * ../DocumentExtractionTrigger/messages).
 */

/** Fixed messages of errors, by what happened. */
export const ERRORS = {
	stopped: 'The execution was stopped',
} as const;

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
	keyFormat:
		'The API key of the Document Extraction API credential has the wrong format: keys look like vnd_… Copy the key from the web dashboard of the Document Extraction Service (or ask your account administrator for one) and paste it into the credential.',
};

/** An unknown name in the Project field, and the projects the account has. */
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
