import type { INode, INodePropertyOptions } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { DocumentExtraction } from '../../../../nodes/DocumentExtraction/DocumentExtraction.node';

describe('Document Extraction node description', () => {
	const { subtitle, properties } = new DocumentExtraction().description;
	const operations = properties
		.filter((p) => p.name === 'operation')
		.flatMap((p) => (p.options ?? []) as INodePropertyOptions[]);

	it('names every operation in the subtitle as its option does, and nothing else', () => {
		for (const { value, name } of operations) {
			expect(subtitle).toContain(`${String(value)}: "${name}"`);
		}
		expect(subtitle?.match(/\w+: "[^"]*"/g)).toHaveLength(operations.length);
		expect(subtitle).toMatch(/\[\$parameter\["operation"\]\] \}\}$/);
	});
});

describe('Project field typed By ID or Name', () => {
	const description = new DocumentExtraction().description;

	/** The issues n8n reports for the node's parameters, as it does before it runs a workflow. */
	function issuesFor(projectValue: string) {
		const node: INode = {
			id: 'n1',
			name: 'Document Extraction',
			type: 'n8n-nodes-document-extraction.documentExtraction',
			typeVersion: 1,
			position: [0, 0],
			parameters: {
				resource: 'document',
				operation: 'submitAndWait',
				project: { __rl: true, mode: 'id', value: projectValue },
				documentType: 'invoice',
			},
		};
		return NodeHelpers.getNodeParametersIssues(description.properties, node, description)
			?.parameters?.project;
	}

	it.each([
		'Invoices',
		'Invoices EU',
		'Invoices EU – Zürich (2025)',
		' Padded name ',
		'Ünïcödé & Co.',
	])('accepts "%s"', (name) => {
		expect(issuesFor(name)).toBeUndefined();
	});

	it.each(['', '   '])('refuses "%s" with a message that says what to enter', (name) => {
		expect(JSON.stringify(issuesFor(name))).toMatch(/project ID or name|required/i);
	});
});
