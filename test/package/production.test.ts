/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { allExampleFiles, EXAMPLES, type Example, files, read } from './exampleFiles';

/**
 * The production workflow, for n8n 2.x and 1.x, as shipped: its shape, what n8n's editor hides,
 * and what the 1.x file needs. Its promises (claims, conditional updates, stuck and overdue rows,
 * order independent of the canvas) are proven by running it: test/e2e/cases/production.test.js.
 */

describe('the production workflow (examples/production.json)', () => {
	const prod = read('production.json');
	const nodeOf = (wf: Example, name: string) => wf.nodes.find((n) => n.name === name)!;
	const next = (name: string, output = 0) =>
		(prod.connections[name]?.main?.[output] ?? []).map((c) => c.node);

	it('is the only production file: intake, completion and catch-up in one workflow', () => {
		expect(files.filter((f) => f.startsWith('production'))).toEqual(['production.json']);
		const types = prod.nodes.map((n) => n.type);
		expect(types).toEqual(
			expect.arrayContaining([
				'n8n-nodes-base.webhook',
				'n8n-nodes-document-extraction.documentExtractionTrigger',
				'n8n-nodes-base.scheduleTrigger',
			]),
		);
		expect(types).not.toContain('n8n-nodes-base.executeWorkflow');
		expect(types).not.toContain('n8n-nodes-base.executeWorkflowTrigger');
		expect(next('Document Extraction Trigger')).toEqual(['A Finished Task']);
		expect(next('By Status', 0)).toEqual(['A Finished Task']);
	});

	it('keeps execution order v1 in every example, and answers Intake from a Respond to Webhook node that runs after the sending', () => {
		for (const { wf } of allExampleFiles)
			expect((wf as unknown as { settings: object }).settings).toMatchObject({
				executionOrder: 'v1',
			});
		expect(nodeOf(prod, 'Receive Documents').parameters).toMatchObject({
			responseMode: 'responseNode',
		});
		expect(nodeOf(prod, 'Answer the Caller').type).toBe('n8n-nodes-base.respondToWebhook');
		// the answer waits for the post's documents (one item even for a post without any) and
		// for the loop's end: a Merge runs when both its
		// inputs have data, or with what it has once nothing else is left to run
		const after = nodeOf(prod, 'After the Sending');
		expect(after.type).toBe('n8n-nodes-base.merge');
		expect((after.parameters as { mode?: string }).mode ?? 'append').toBe('append');
		const into = (name: string) =>
			Object.entries(prod.connections).flatMap(([from, byType]) =>
				(byType.main ?? []).flatMap((targets, output) =>
					(targets ?? [])
						.filter((c) => c.node === name)
						.map((c) => `${from}[${output}] → ${(c as { index?: number }).index ?? 0}`),
				),
			);
		expect(into('After the Sending').sort()).toEqual([
			'Loop Over Documents[0] → 1',
			'One Item per Document[0] → 0',
		]);
		expect(next('After the Sending')).toEqual(['Answer Each Document']);
		expect(next('Answer Each Document')).toEqual(['Answer the Caller']);
	});

	it('compares with "equals" only in Row Exists and Row Not Exists (n8n hides their Condition field and reads it as equals)', () => {
		for (const { file, wf } of allExampleFiles)
			for (const n of wf.nodes.filter((x) =>
				['rowExists', 'rowNotExists'].includes(String(x.parameters.operation)),
			))
				for (const c of (n.parameters.filters as { conditions: Array<{ condition?: string }> })
					.conditions)
					expect({ file, node: n.name, condition: c.condition ?? 'eq' }).toEqual({
						file,
						node: n.name,
						condition: 'eq',
					});
	});

	it('every Data Table node uses the table by name, and the workflow creates it with the columns the others use', () => {
		const tableNodes = prod.nodes.filter((n) => n.type === 'n8n-nodes-base.dataTable');
		const create = tableNodes.find((n) => n.parameters.operation === 'create')!;
		const created = (create.parameters.columns as { column: Array<{ name: string }> }).column.map(
			(c) => c.name,
		);
		for (const n of tableNodes.filter((t) => t.parameters.resource !== 'table')) {
			expect(n.parameters.dataTableId).toEqual({
				__rl: true,
				mode: 'name',
				value: create.parameters.tableName,
			});
			const written = Object.keys((n.parameters.columns as { value?: object })?.value ?? {});
			const filtered = (
				(n.parameters.filters as { conditions?: Array<{ keyName: string }> })?.conditions ?? []
			).map((c) => c.keyName);
			for (const column of [
				...written,
				...filtered.filter((c) => !['id', 'createdAt', 'updatedAt'].includes(c)),
			]) {
				expect(created).toContain(column);
			}
		}
	});

	it('Submit (not Submit and Wait) keeps input fields and reads the project picked in the trigger; Get Status outputs unknown tasks as items', () => {
		const submit = nodeOf(prod, 'Submit');
		expect(submit.parameters).toMatchObject({
			operation: 'submit',
			options: { keepInputFields: true },
			project: {
				__rl: true,
				mode: 'id',
				value: "={{ $('Document Extraction Trigger').params.project.value }}",
			},
		});
		expect(nodeOf(prod, 'Document Extraction Trigger').parameters.project).toMatchObject({
			mode: 'list',
		});
		expect(nodeOf(prod, 'Get Status').parameters).toMatchObject({
			operation: 'getStatus',
			options: { outputNotFoundAsItems: true },
		});
	});

	it.each([
		['production.json', prod],
		['n8n1/production.json', read('n8n1/production.json')],
	])(
		'%s runs as imported: its placeholders call nothing, and it names no address; the user picks project and type',
		(_file, wf) => {
			// Downstream Step and Tell Someone show what they get until replaced: nothing to fail on
			for (const name of ['Downstream Step', 'Tell Someone']) {
				const placeholder = nodeOf(wf, name);
				expect(placeholder.type).toBe('n8n-nodes-base.set');
				expect(placeholder).toMatchObject({
					notesInFlow: true,
					notes: expect.stringMatching(/^Replace with your /),
				});
			}
			const names = (name: string) =>
				(
					nodeOf(wf, name).parameters.assignments as { assignments: Array<{ name: string }> }
				).assignments.map((a) => a.name);
			expect(names('Downstream Step')).toEqual([
				'task_id',
				'customer',
				'file_name',
				'status',
				'result',
				'error',
			]);
			expect(names('Tell Someone')).toEqual(
				expect.arrayContaining(['status', 'task_id', 'what_to_do']),
			);
			expect(wf.nodes.filter((n) => n.type === 'n8n-nodes-base.httpRequest')).toEqual([]);
			expect(JSON.stringify(wf)).not.toMatch(/127\.0\.0\.1|localhost|:8790/);
			// nothing of the emulator's is picked for the user
			expect(nodeOf(wf, 'Document Extraction Trigger').parameters.project).toEqual({
				__rl: true,
				mode: 'list',
				value: '',
			});
			expect(nodeOf(wf, 'Submit').parameters.documentType).toBe('');
		},
	);
});

describe('the production workflow for n8n 1.x (examples/n8n1)', () => {
	const N8N1 = path.join(EXAMPLES, 'n8n1');
	const set = readdirSync(N8N1)
		.filter((f) => f.endsWith('.json'))
		.map((file) => ({
			file,
			wf: JSON.parse(readFileSync(path.join(N8N1, file), 'utf8')) as Example,
		}));

	it('is what scripts/examples-n8n1.js makes of the 2.x file', () => {
		const run = spawnSync(process.execPath, ['scripts/examples-n8n1.js', '--check'], {
			cwd: path.resolve(__dirname, '../..'),
			encoding: 'utf8',
		});
		expect(run.stderr).toBe('');
		expect(run.status).toBe(0);
		expect(set.map(({ file }) => file)).toEqual(['production.json']);
	});

	it('its note names the 1.x step that starts the workflow: the Active switch, not Publish', () => {
		for (const { wf } of set) {
			const notes = wf.nodes
				.filter((n) => n.type === 'n8n-nodes-base.stickyNote')
				.map((n) => String(n.parameters.content))
				.join('\n');
			expect(notes).toContain('**Active**');
			expect(notes.replace('n8n 1.x has no Publish', '')).not.toMatch(/publish/i);
		}
	});

	it('uses only the Data table node version 1, by the ID in the Settings node', () => {
		for (const { file, wf } of set) {
			const tableNodes = wf.nodes.filter((n) => n.type === 'n8n-nodes-base.dataTable');
			const settings = wf.nodes.find((n) => n.name === 'Settings');
			const assignments = (
				settings!.parameters.assignments as { assignments: Array<{ name: string }> }
			).assignments;
			expect(assignments.map((a) => a.name)).toContain('data_table_id');
			expect(tableNodes.length).toBeGreaterThan(0);
			for (const n of tableNodes) {
				expect({
					file,
					node: n.name,
					version: n.typeVersion,
					resource: n.parameters.resource,
				}).toEqual({
					file,
					node: n.name,
					version: 1,
					resource: 'row',
				});
				expect(n.parameters.dataTableId).toEqual({
					__rl: true,
					mode: 'id',
					value:
						"={{ $('Settings').params.assignments.assignments.find((a) => a.name === 'data_table_id').value }}",
				});
			}
		}
	});

	it("uses no $('…').item across a Data table insert (1.x pairs each inserted row with the first item then)", () => {
		const crossings: string[] = [];
		for (const { file, wf } of set) {
			const next = (name: string) => (wf.connections[name]?.main ?? []).flat().map((c) => c.node);
			const reach = (from: string, step: (name: string) => string[]) => {
				const seen = new Set<string>();
				const todo = step(from);
				while (todo.length) {
					const name = todo.pop()!;
					if (seen.has(name)) continue;
					seen.add(name);
					todo.push(...step(name));
				}
				seen.delete(from);
				return seen;
			};
			const previous = (name: string) =>
				Object.keys(wf.connections).filter((from) => next(from).includes(name));
			const inserts = wf.nodes.filter(
				(n) => n.type === 'n8n-nodes-base.dataTable' && n.parameters.operation === 'insert',
			);
			for (const insert of inserts) {
				const before = reach(insert.name, previous);
				for (const name of reach(insert.name, next)) {
					const node = wf.nodes.find((n) => n.name === name)!;
					for (const [, ref] of JSON.stringify(node.parameters).matchAll(
						/\$\('([^']+)'\)\.item\b/g,
					))
						if (before.has(ref)) crossings.push(`${file}: ${name} uses $('${ref}').item`);
				}
			}
		}
		expect(crossings).toEqual([]);
	});
});

