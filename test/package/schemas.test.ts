/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { DocumentExtraction } from '../../nodes/DocumentExtraction/DocumentExtraction.node';

/**
 * The output schemas n8n's editor shows for the node before it has run: n8n reads
 * __schema__/v{major.minor.patch}/{resource}/{operation}.json next to the node's compiled file
 * and accepts a JSON schema with `type` and non-empty `properties`. n8n picks the file by node
 * version, resource and operation only, never by another parameter: Submit and Wait and Get
 * Status output the project's own fields (Output "Result Only", the default), which no file can
 * know, so they have none, and the editor lists no field that their output lacks.
 */

const ROOT = path.resolve(__dirname, '../..');
const SCHEMA_DIR = path.join(ROOT, 'nodes/DocumentExtraction/__schema__');
const { description } = new DocumentExtraction();

function files(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const full = path.join(dir, name);
		return statSync(full).isDirectory() ? files(full) : [full];
	});
}

const schemaFiles = files(SCHEMA_DIR).map((f) => path.relative(SCHEMA_DIR, f));
const optionsOf = (property?: INodeProperties) =>
	(property?.options ?? []) as INodePropertyOptions[];
const routes = optionsOf(description.properties.find((p) => p.name === 'resource')).flatMap((r) =>
	optionsOf(
		description.properties.find(
			(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(String(r.value)),
		),
	).map((o) => `${String(r.value)}/${String(o.value)}`),
);
const versions = ([] as number[]).concat(description.version);
/** Operations whose output is the fields of the project's schema: no schema file. */
const PROJECT_SHAPED = ['document/submitAndWait', 'document/getStatus'];
const pad = (v: number) => String(v).split('.').concat(['0', '0']).slice(0, 3).join('.');

describe('output schemas', () => {
	it('cover every operation of every version of the node whose output has fixed fields', () => {
		expect(routes).toEqual(expect.arrayContaining(PROJECT_SHAPED));
		const expected = versions.flatMap((v) =>
			routes.filter((r) => !PROJECT_SHAPED.includes(r)).map((route) => `v${pad(v)}/${route}.json`),
		);
		expect(schemaFiles.sort()).toEqual(expected.sort());
	});

	it('offer nothing for Submit and Wait and Get Status, whose default output is the project fields', () => {
		const output = description.properties.find(
			(p) => p.name === 'output' && p.displayOptions?.show?.operation?.includes('submitAndWait'),
		);
		expect(output?.default).toBe('result');
		for (const route of PROJECT_SHAPED) {
			expect(schemaFiles.filter((f) => f.endsWith(`/${route}.json`))).toEqual([]);
		}
	});

	it.each(schemaFiles.map((f) => [f]))('%s is a JSON schema the editor accepts', (file) => {
		const schema = JSON.parse(readFileSync(path.join(SCHEMA_DIR, file), 'utf8'));
		expect(schema.type).toBe('object');
		expect(Object.keys(schema.properties).length).toBeGreaterThan(0);
	});

	it('offer exactly the fields Submit outputs: task_id, project, document_type', () => {
		const schema = JSON.parse(
			readFileSync(path.join(SCHEMA_DIR, 'v1.0.0/document/submit.json'), 'utf8'),
		);
		expect(Object.keys(schema.properties).sort()).toEqual(['document_type', 'project', 'task_id']);
	});

	it('are shipped next to the compiled node file', () => {
		const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
			cwd: ROOT,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		});
		const packed = (JSON.parse(output)[0].files as Array<{ path: string }>).map((f) => f.path);
		for (const file of schemaFiles) {
			expect(packed).toContain(`dist/nodes/DocumentExtraction/__schema__/${file}`);
		}
	});
});
