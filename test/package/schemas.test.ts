/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { DocumentExtraction } from '../../nodes/DocumentExtraction/DocumentExtraction.node';

/**
 * The output schemas n8n's editor shows before a run: __schema__/v{x.y.z}/{resource}/{operation}.json
 * next to the compiled node (shipped: package.test.ts), a JSON schema with `type` and non-empty
 * `properties`. n8n picks the file by version, resource and operation only: Submit and Wait and Get
 * Status output the project's own fields by default (Output "Result Only"), which no file can know.
 */

const SCHEMA_DIR = path.resolve(__dirname, '../../nodes/DocumentExtraction/__schema__');
const { description } = new DocumentExtraction();
const schemaFiles = readdirSync(SCHEMA_DIR, { recursive: true, encoding: 'utf8' })
	.filter((f) => statSync(path.join(SCHEMA_DIR, f)).isFile())
	.map((f) => f.split(path.sep).join('/'));
type Schema = { type: string; properties: object };
const schemaOf = (file: string): Schema =>
	JSON.parse(readFileSync(path.join(SCHEMA_DIR, file), 'utf8'));

const optionsOf = (property?: INodeProperties) =>
	(property?.options ?? []) as INodePropertyOptions[];
const routes = optionsOf(description.properties.find((p) => p.name === 'resource')).flatMap((r) =>
	optionsOf(
		description.properties.find(
			(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(String(r.value)),
		),
	).map((o) => `${String(r.value)}/${String(o.value)}`),
);
/** Operations whose output is the fields of the project's schema: no schema file. */
const PROJECT_SHAPED = ['document/submitAndWait', 'document/getStatus'];
const pad = (v: number) => String(v).split('.').concat(['0', '0']).slice(0, 3).join('.');

describe('output schemas', () => {
	it("cover every operation of every version whose output has fixed fields, and no other; Submit's its exact fields", () => {
		expect(routes).toEqual(expect.arrayContaining(PROJECT_SHAPED));
		const expected = ([] as number[])
			.concat(description.version)
			.flatMap((v) =>
				routes
					.filter((r) => !PROJECT_SHAPED.includes(r))
					.map((route) => `v${pad(v)}/${route}.json`),
			);
		expect(schemaFiles.sort()).toEqual(expected.sort());
		const output = description.properties.find(
			(p) => p.name === 'output' && p.displayOptions?.show?.operation?.includes('submitAndWait'),
		);
		expect(output?.default).toBe('result');
		// Submit outputs exactly these
		const submit = schemaOf('v1.0.0/document/submit.json').properties;
		expect(Object.keys(submit).sort()).toEqual(['document_type', 'project', 'task_id']);
	});

	it.each(schemaFiles)('%s is a JSON schema the editor accepts', (file) => {
		expect(schemaOf(file).type).toBe('object');
		expect(Object.keys(schemaOf(file).properties).length).toBeGreaterThan(0);
	});
});
