import type { INodePropertyOptions } from 'n8n-workflow';

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
