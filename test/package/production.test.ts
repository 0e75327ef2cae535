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

	it('keeps execution order v1 in every example', () => {
		for (const { wf } of allExampleFiles)
			expect((wf as unknown as { settings: object }).settings).toMatchObject({
				executionOrder: 'v1',
			});
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
});
