import { allExampleFiles, type Example, files, read } from './exampleFiles';

/** The example workflows: importable as they are. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the plain script npm start runs
const { localExample } = require('../../scripts/local-examples.js') as {
	localExample: (workflow: Example, emulatorUrl: string) => Example;
};

const examples = files.map((file) => ({ file, wf: read(file) }));

describe('examples/*.json', () => {
	it.each(files)('%s: unique ids and names, connections between its own nodes', (file) => {
		const wf = read(file);
		const names = wf.nodes.map((n) => n.name);
		expect(new Set(names).size).toBe(names.length);
		for (const [from, byType] of Object.entries(wf.connections)) {
			expect(names).toContain(from);
			for (const target of Object.values(byType).flat(2)) expect(names).toContain(target.node);
		}
	});

	it('have workflow ids and webhook ids of their own', () => {
		const ids = examples.map(({ wf }) => wf.id);
		expect(new Set(ids).size).toBe(ids.length);
		const hooks = examples.flatMap(({ wf }) => wf.nodes.flatMap((n) => n.webhookId ?? []));
		expect(new Set(hooks).size).toBe(hooks.length);
	});
});

/** Every example file, n8n 2.x and 1.x: examples/*.json and examples/n8n1/*.json. */

/** Every string of a node's parameters, with where it is (for the failure message). */
function stringsOf(value: unknown, at: string, out: Array<{ at: string; text: string }> = []) {
	if (typeof value === 'string') out.push({ at, text: value });
	else if (Array.isArray(value)) value.forEach((v, i) => stringsOf(v, `${at}[${i}]`, out));
	else if (value && typeof value === 'object')
		for (const [k, v] of Object.entries(value)) stringsOf(v, `${at}.${k}`, out);
	return out;
}

/** An error's text: `.error`, `.message`, `error`, `message` (a field or a variable). */
const TEXT = String.raw`\b(?:error|message|errorMessage|description)\b`;
/** Ways an expression or a Code node decides on a text. */
const READS_TEXT = [
	// String($json.error).includes('…'), $json.error.startsWith(…), $json.error?.match(/…/)
	new RegExp(
		String.raw`${TEXT}['"\]]*\s*\)*\s*\??\.\s*(?:includes|match|matchAll|indexOf|lastIndexOf|search|startsWith|endsWith|localeCompare)\s*\(`,
	),
	// /may have/.test($json.error), /…/i.exec(String($json.error))
	new RegExp(String.raw`\.\s*(?:test|exec)\s*\([^)]*${TEXT}`),
	// $json.error === 'text', 'text' !== $json.error
	new RegExp(String.raw`${TEXT}['"\]]*\s*\)*\s*[!=]==?\s*['"\x60]`),
	new RegExp(String.raw`['"\x60]\s*[!=]==?\s*[^,;)?:]*${TEXT}`),
];
/** Operations of the Filter, If and Switch conditions that compare a text (not just its presence). */
const TEXT_OPERATIONS = /^(?!exists|notExists|empty|notEmpty).+$/;

/** The places in a workflow where an expression, a Code node or a condition reads an error's text. */
function readsErrorText(wf: Example): string[] {
	const found: string[] = [];
	for (const node of wf.nodes) {
		for (const { at, text } of stringsOf(node.parameters, node.name)) {
			if (!(text.startsWith('=') || text.includes('{{') || /jsCode|pythonCode|code/.test(at)))
				continue;
			if (READS_TEXT.some((re) => re.test(text))) found.push(`${at}: ${text.slice(0, 160)}`);
		}
		// conditions of Filter, If and Switch nodes: a text operation on an error's text
		for (const { at, text } of stringsOf(node.parameters, node.name)) {
			if (!at.endsWith('.leftValue') || !new RegExp(TEXT).test(text)) continue;
			const condition = at
				.slice(0, -'.leftValue'.length)
				.split(/\.|\[|\]/)
				.filter(Boolean);
			let here: unknown = { [node.name]: node.parameters };
			for (const key of condition) here = (here as Record<string, unknown>)?.[key];
			const operator = (here as { operator?: { type?: string; operation?: string } })?.operator;
			if (operator?.type === 'string' && TEXT_OPERATIONS.test(String(operator.operation)))
				found.push(`${at}: ${operator.operation} on ${text}`);
		}
	}
	return found;
}

describe('no example decides on the text of an error (examples/*.json, examples/n8n1/*.json)', () => {
	it.each(allExampleFiles.map(({ file }) => file))(
		'%s: branches on the error item’s kind, never on its message',
		(file) => {
			const { wf } = allExampleFiles.find((x) => x.file === file)!;
			expect(readsErrorText(wf)).toEqual([]);
		},
	);
});

const ACTION = /^n8n-nodes-document-extraction\.documentExtraction(Tool|Trigger)?$/;
const NON_PRODUCTION = ['submit-and-wait.json', 'trigger-to-crm.json', 'mcp-server.json'];
const EMAIL_FILES = [
	'email-to-crm-gmail.json',
	'email-to-crm-imap.json',
	'email-to-crm-outlook.json',
];

describe('the email examples (examples/email-to-crm-*.json)', () => {
	const EXTRACT = 'Extract Every Attachment';
	const CRM = 'CRM Record (replace with your CRM)';
	const TRIGGERS: Record<
		string,
		{ type: string; downloads: (p: Record<string, unknown>) => unknown }
	> = {
		'email-to-crm-imap.json': {
			type: 'n8n-nodes-base.emailReadImap',
			// Download Attachments is shown (and read) with the format Simple only
			downloads: (p) =>
				p.format === 'simple' &&
				p.downloadAttachments === true &&
				p.dataPropertyAttachmentsPrefixName,
		},
		'email-to-crm-gmail.json': {
			type: 'n8n-nodes-base.gmailTrigger',
			// the options are read with Simplify off only
			downloads: (p) => {
				const o = p.options as Record<string, unknown>;
				return (
					p.simple === false &&
					o.downloadAttachments === true &&
					o.dataPropertyAttachmentsPrefixName
				);
			},
		},
		'email-to-crm-outlook.json': {
			type: 'n8n-nodes-base.microsoftOutlookTrigger',
			downloads: (p) => {
				const o = p.options as Record<string, unknown>;
				return o.downloadAttachments === true && o.attachmentsPrefix;
			},
		},
	};

	it('are one file per mail source', () => {
		expect(files.filter((f) => f.startsWith('email'))).toEqual(EMAIL_FILES);
	});

	it.each(EMAIL_FILES)(
		'%s: a chain, its trigger with Download Attachments on, every attachment sent, the CRM step to replace',
		(file) => {
			const wf = read(file);
			const { type, downloads } = TRIGGERS[file];
			const working = wf.nodes.filter((n) => !n.type.endsWith('.stickyNote'));
			expect(working.map((n) => n.type)).toEqual([
				type,
				'n8n-nodes-document-extraction.documentExtraction',
				'n8n-nodes-base.httpRequest',
			]);
			const [trigger, extract, crm] = working;
			expect(downloads(trigger.parameters)).toBe('attachment_');
			// a chain: every node has one next node at most, nothing depends on canvas position
			const next = (name: string) => (wf.connections[name]?.main ?? []).flat().map((c) => c.node);
			expect(next(trigger.name)).toEqual([EXTRACT]);
			expect(next(EXTRACT)).toEqual([CRM]);
			expect(next(CRM)).toEqual([]);
			expect(Object.keys(wf.connections).sort()).toEqual([EXTRACT, trigger.name].sort());
			expect(extract.name).toBe(EXTRACT);
			expect(extract.parameters).toMatchObject({
				operation: 'submitAndWait',
				filesToSend: 'all',
				options: { keepInputFields: true },
			});
			// the user picks the credentials and the project after the import
			for (const node of working) expect(node.credentials).toBeUndefined();
			expect(extract.parameters.project).toEqual({ __rl: true, mode: 'list', value: '' });
			// the CRM step maps invoice fields: the file's Document Type is invoice, kept when the
			// user picks a project that has it
			expect(extract.parameters.documentType).toBe('invoice');
			// the CRM step: the fields mapped, and until replaced the emulator's CRM stand-in
			expect(crm.name).toBe(CRM);
			expect(crm.parameters).toMatchObject({
				method: 'POST',
				url: 'http://127.0.0.1:8790/_emulator/sink/crm',
			});
			const body = (crm.parameters.bodyParameters as { parameters: Array<{ name: string }> })
				.parameters;
			expect(body.map((p) => p.name)).toEqual(
				expect.arrayContaining(['file', 'invoice_number', 'vendor', 'total', 'currency']),
			);
			const notes = wf.nodes
				.filter((n) => n.type.endsWith('.stickyNote'))
				.map((n) => String(n.parameters.content))
				.join('\n');
			expect(notes).toContain(`Replace this node`);
			expect(notes).toContain(CRM);
			expect(wf).toMatchObject({ settings: { executionOrder: 'v1' } });
		},
	);
});

describe('the examples as npm start imports them (scripts/local-examples.js)', () => {
	it.each(files)(
		'%s: a URL download reaches the emulator on 127.0.0.1 in the local copy',
		(file) => {
			const shipped = read(file);
			const local = localExample(shipped, 'http://127.0.0.1:41234');
			const urlNodes = (wf: Example) =>
				wf.nodes.filter((n) => ACTION.test(n.type) && n.parameters.inputSource === 'url');
			for (const node of urlNodes(local)) {
				expect(node.parameters.options).toMatchObject({ allowPrivateAddresses: true });
			}
			// the option belongs to the local copy: an example meant for any n8n keeps it off
			for (const node of urlNodes(shipped)) {
				expect(
					(node.parameters.options as Record<string, unknown>)?.allowPrivateAddresses ?? false,
				).toBe(false);
			}
			expect(JSON.stringify(local)).not.toContain('127.0.0.1:8790');
			expect(read(file)).toEqual(shipped);
		},
	);

	it.each(files)('%s: every project is picked from the list, with its name shown', (file) => {
		// a project read from another node's pick (production.json's Submit) is checked there; the
		// email examples and production.json leave it empty for the user to pick (checked in their
		// own tests)
		const projects = read(file)
			.nodes.filter(
				(n) =>
					ACTION.test(n.type) &&
					n.parameters.project &&
					NON_PRODUCTION.includes(file) &&
					!/params\.project/.test(JSON.stringify(n.parameters.project)),
			)
			.map((n) => n.parameters.project);
		if (NON_PRODUCTION.includes(file)) expect(projects.length).toBeGreaterThan(0);
		for (const project of projects) {
			expect(project).toMatchObject({ __rl: true, mode: 'list', cachedResultName: 'Invoices' });
			expect((project as { value: string }).value).toMatch(/^[0-9a-f-]{36}$/);
		}
	});
});
