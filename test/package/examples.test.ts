/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The example workflows as shipped (examples/*.json, examples/n8n1/*.json for n8n 1.x) and as `npm
 * start` imports them; the production workflow's promises: test/e2e/cases/production.test.js.
 */

type Params = Record<string, unknown>;
type ExampleNode = Params & { name: string; type: string; parameters: Params };
interface Example {
	id: string;
	nodes: ExampleNode[];
	connections: Record<string, Record<string, Array<Array<{ node: string }>>>>;
	settings?: object;
}

const ROOT = path.resolve(__dirname, '../..');
const jsonIn = (dir: string) =>
	readdirSync(path.join(ROOT, dir)).filter((f) => f.endsWith('.json'));
const read = (file: string): Example =>
	JSON.parse(readFileSync(path.join(ROOT, 'examples', file), 'utf8')) as Example;
const files = jsonIn('examples');
const allFiles = [...files, ...jsonIn('examples/n8n1').map((f) => `n8n1/${f}`)];
const nodeOf = (wf: Example, name: string) => wf.nodes.find((n) => n.name === name)!;
const next = (wf: Example, name: string, output = 0) =>
	(wf.connections[name]?.main?.[output] ?? []).map((c) => c.node);
const notesOf = (wf: Example) =>
	wf.nodes
		.filter((n) => n.type === 'n8n-nodes-base.stickyNote')
		.map((n) => String(n.parameters.content))
		.join('\n');

const ACTION = /^n8n-nodes-document-extraction\.documentExtraction(Tool|Trigger)?$/;
const EMPTY_PROJECT = { __rl: true, mode: 'list', value: '' };

/** Every nested value of `value`, with where it is (for the failure message). */
function nested(value: unknown, at: string, out: Array<{ at: string; value: unknown }> = []) {
	out.push({ at, value });
	if (value && typeof value === 'object')
		for (const [k, v] of Object.entries(value)) nested(v, `${at}.${k}`, out);
	return out;
}

/** An error's text: `.error`, `.message`, `error`, `message` (a field or a variable). */
const TEXT = String.raw`\b(?:error|message|errorMessage|description)\b`;
/** Ways an expression or a Code node decides on a text: the text first, or the test first. */
const READS_TEXT = [
	// $json.error.startsWith(…), String($json.error).includes('…'), $json.error === 'text'
	new RegExp(
		String.raw`${TEXT}['"\]]*\s*\)*\s*(?:\??\.\s*(?:includes|match|matchAll|indexOf|lastIndexOf|search|startsWith|endsWith|localeCompare)\s*\(|[!=]==?\s*['"\x60])`,
	),
	// /may have/.test($json.error), /…/i.exec(String($json.error)), 'text' !== $json.error
	new RegExp(String.raw`(?:\.\s*(?:test|exec)\s*\([^)]*|['"\x60]\s*[!=]==?\s*[^,;)?:]*)${TEXT}`),
];

/** Where an expression, a Code node or a Filter/If/Switch condition reads an error's text. */
function readsErrorText(wf: Example): string[] {
	return wf.nodes.flatMap((node) =>
		nested(node.parameters, node.name).flatMap(({ at, value }) => {
			if (typeof value === 'string') {
				const code = value.startsWith('=') || value.includes('{{') || /code/i.test(at);
				return code && READS_TEXT.some((re) => re.test(value)) ? [`${at}: ${value}`] : [];
			}
			// a condition: a string operation other than (not) exists / (not) empty on an error's text
			const { leftValue, operator: op } = (value ?? {}) as {
				leftValue?: unknown;
				operator?: Params;
			};
			const onText = typeof leftValue === 'string' && new RegExp(TEXT).test(leftValue);
			const compares = !/^(exists|notExists|empty|notEmpty)$/.test(String(op?.operation));
			return onText && op?.type === 'string' && compares
				? [`${at}: ${op.operation} on ${leftValue}`]
				: [];
		}),
	);
}

describe.each(allFiles)('examples/%s', (file) => {
	const wf = read(file);

	it('has unique node names, connections between its own nodes, execution order v1, Row Exists with equals only', () => {
		const names = wf.nodes.map((n) => n.name);
		expect(new Set(names).size).toBe(names.length);
		for (const [from, byType] of Object.entries(wf.connections)) {
			expect(names).toContain(from);
			for (const target of Object.values(byType).flat(2)) expect(names).toContain(target.node);
		}
		expect(wf.settings).toMatchObject({ executionOrder: 'v1' });
		// n8n hides the Condition field of Row Exists and Row Not Exists and reads it as equals
		const compared = wf.nodes
			.filter((n) => ['rowExists', 'rowNotExists'].includes(String(n.parameters.operation)))
			.flatMap((n) =>
				(n.parameters.filters as { conditions: Array<{ condition?: string }> }).conditions.map(
					(c) => `${n.name}: ${c.condition ?? 'eq'}`,
				),
			);
		expect(compared.filter((c) => !c.endsWith(': eq'))).toEqual([]);
	});

	it('branches on the error item’s kind, never on its message', () => {
		expect(readsErrorText(wf)).toEqual([]);
	});
});

it('examples/*.json have workflow ids and webhook ids of their own', () => {
	const examples = files.map(read);
	const ids = examples.map((wf) => wf.id);
	expect(new Set(ids).size).toBe(ids.length);
	const hooks = examples.flatMap((wf) => wf.nodes.flatMap((n) => n.webhookId ?? []));
	expect(new Set(hooks).size).toBe(hooks.length);
});

describe('the email examples (examples/email-to-crm-*.json)', () => {
	const EXTRACT = 'Extract Every Attachment';
	const CRM = 'CRM Record (replace with your CRM)';
	const ON = { downloadAttachments: true };
	/** Each mail trigger with Download Attachments on, its files named attachment_<n>. */
	const TRIGGERS: Record<string, { type: string; parameters: Params }> = {
		'email-to-crm-gmail.json': {
			type: 'n8n-nodes-base.gmailTrigger',
			// the options are read with Simplify off only
			parameters: {
				simple: false,
				options: { ...ON, dataPropertyAttachmentsPrefixName: 'attachment_' },
			},
		},
		'email-to-crm-imap.json': {
			type: 'n8n-nodes-base.emailReadImap',
			// Download Attachments is shown (and read) with the format Simple only
			parameters: { format: 'simple', ...ON, dataPropertyAttachmentsPrefixName: 'attachment_' },
		},
		'email-to-crm-outlook.json': {
			type: 'n8n-nodes-base.microsoftOutlookTrigger',
			parameters: { options: { ...ON, attachmentsPrefix: 'attachment_' } },
		},
	};

	it('are one file per mail source', () => {
		expect(files.filter((f) => f.startsWith('email'))).toEqual(Object.keys(TRIGGERS));
	});

	it.each(Object.keys(TRIGGERS))(
		'%s: a chain, its trigger with Download Attachments on, every attachment sent, the CRM step to replace',
		(file) => {
			const wf = read(file);
			const { type, parameters } = TRIGGERS[file];
			const working = wf.nodes.filter((n) => !n.type.endsWith('.stickyNote'));
			expect(working.map((n) => n.type)).toEqual([
				type,
				'n8n-nodes-document-extraction.documentExtraction',
				'n8n-nodes-base.httpRequest',
			]);
			const [trigger, extract, crm] = working;
			expect(trigger.parameters).toMatchObject(parameters);
			// a chain: nothing depends on canvas position
			expect(next(wf, trigger.name)).toEqual([EXTRACT]);
			expect(next(wf, EXTRACT)).toEqual([CRM]);
			expect(Object.keys(wf.connections).sort()).toEqual([EXTRACT, trigger.name].sort());
			expect(extract.name).toBe(EXTRACT);
			// the user picks the credentials and the project; the CRM step maps invoice fields
			expect(extract.parameters).toMatchObject({
				operation: 'submitAndWait',
				filesToSend: 'all',
				// an email without a document, or a signature logo, is no task and no failure
				options: { keepInputFields: true, minImageSize: 20, withoutDocument: 'skip' },
				project: EMPTY_PROJECT,
				documentType: 'invoice',
			});
			for (const node of working) expect(node.credentials).toBeUndefined();
			// until replaced, the CRM step posts to the emulator's CRM stand-in
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
			expect(notesOf(wf)).toContain('Replace this node');
			expect(notesOf(wf)).toContain(CRM);
		},
	);
});

describe('the examples as npm start imports them (scripts/local-examples.js)', () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- the plain script npm start runs
	const { localExample } = require('../../scripts/local-examples.js') as {
		localExample: (workflow: Example, emulatorUrl: string) => Example;
	};

	it.each(files)('%s: only the local copy may download from 127.0.0.1', (file) => {
		const shipped = read(file);
		const local = localExample(shipped, 'http://127.0.0.1:41234');
		const urlOptions = (wf: Example) =>
			wf.nodes
				.filter((n) => ACTION.test(n.type) && n.parameters.inputSource === 'url')
				.map((n) => (n.parameters.options as Params | undefined)?.allowPrivateAddresses ?? false);
		expect(urlOptions(local)).toEqual(urlOptions(local).map(() => true));
		// the option belongs to the local copy: an example meant for any n8n keeps it off
		expect(urlOptions(shipped)).toEqual(urlOptions(shipped).map(() => false));
		expect(JSON.stringify(local)).not.toContain('127.0.0.1:8790');
		expect(read(file)).toEqual(shipped);
	});

	it.each(['submit-and-wait.json', 'trigger-to-crm.json', 'mcp-server.json'])(
		'%s: every project is picked from the list, with its name shown',
		(file) => {
			const projects = read(file)
				.nodes.filter((n) => ACTION.test(n.type) && n.parameters.project)
				.map((n) => n.parameters.project);
			expect(projects.length).toBeGreaterThan(0);
			for (const project of projects) {
				expect(project).toMatchObject({ __rl: true, mode: 'list', cachedResultName: 'Invoices' });
				expect((project as { value: string }).value).toMatch(/^[0-9a-f-]{36}$/);
			}
		},
	);
});

describe('the production workflow (examples/production.json, examples/n8n1/production.json)', () => {
	it('is the only production file: intake, completion and catch-up in one workflow', () => {
		expect(files.filter((f) => f.startsWith('production'))).toEqual(['production.json']);
		const prod = read('production.json');
		const types = prod.nodes.map((n) => n.type);
		expect(types).toEqual(
			expect.arrayContaining([
				'n8n-nodes-document-extraction.documentExtractionIntake',
				'n8n-nodes-document-extraction.documentExtractionTrigger',
				'n8n-nodes-base.scheduleTrigger',
			]),
		);
		expect(types.filter((type) => type.includes('executeWorkflow'))).toEqual([]);
		expect(next(prod, 'Document Extraction Trigger')).toEqual(['A Finished Task']);
		expect(next(prod, 'Get Status')).toEqual(['A Finished Task']);
	});

	it.each(['production.json', 'n8n1/production.json'])(
		'%s runs as imported: its placeholders call nothing, and it names no address; the user picks project and type',
		(file) => {
			const wf = read(file);
			// Downstream Step and Tell Someone show what they get until replaced: nothing to fail on
			const placeholder = (name: string) => {
				expect(nodeOf(wf, name)).toMatchObject({
					type: 'n8n-nodes-base.set',
					notesInFlow: true,
					notes: expect.stringMatching(/^Replace with your /),
				});
				return nodeOf(wf, name).parameters;
			};
			// the document's whole context (its fields other than key and url), then the task
			expect(String(placeholder('Downstream Step').jsonOutput)).toMatch(
				/^=\{\{ JSON\.stringify\(\{ \.\.\.JSON\.parse\(\$json\.context .*task_id.*status.*result.*error/,
			);
			const { assignments } = placeholder('Tell Someone').assignments as {
				assignments: Array<{ name: string }>;
			};
			expect(assignments.map((a) => a.name)).toEqual(
				expect.arrayContaining(['status', 'task_id', 'what_to_do']),
			);
			expect(wf.nodes.filter((n) => n.type === 'n8n-nodes-base.httpRequest')).toEqual([]);
			expect(JSON.stringify(wf)).not.toMatch(/127\.0\.0\.1|localhost|:8790/);
			// nothing of the emulator's is picked for the user
			expect(nodeOf(wf, 'Document Extraction Trigger').parameters.project).toEqual(EMPTY_PROJECT);
			expect(nodeOf(wf, 'Submit').parameters.documentType).toBe('');
		},
	);

	it('for n8n 1.x is what scripts/examples-n8n1.js makes of the 2.x file, its note naming the Active switch, not Publish', () => {
		const run = spawnSync(process.execPath, ['scripts/examples-n8n1.js', '--check'], {
			cwd: ROOT,
			encoding: 'utf8',
		});
		expect([run.stderr, run.status]).toEqual(['', 0]);
		expect(jsonIn('examples/n8n1')).toEqual(['production.json']);
		const notes = notesOf(read('n8n1/production.json'));
		expect(notes).toContain('**Active**');
		expect(notes.replace('n8n 1.x has no Publish', '')).not.toMatch(/publish/i);
	});
});
