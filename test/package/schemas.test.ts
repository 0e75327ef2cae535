/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { DocumentExtraction } from '../../nodes/DocumentExtraction/DocumentExtraction.node';

/**
 * The output schemas n8n's editor shows for the node before it has run: n8n reads
 * __schema__/v{major.minor.patch}/{resource}/{operation}.json next to the node's compiled file
 * and accepts a JSON schema with `type` and non-empty `properties`.
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
const optionsOf = (property?: INodeProperties) => (property?.options ?? []) as INodePropertyOptions[];
const routes = optionsOf(description.properties.find((p) => p.name === 'resource')).flatMap((r) =>
	optionsOf(
		description.properties.find(
			(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(String(r.value)),
		),
	).map((o) => `${String(r.value)}/${String(o.value)}`),
);
const versions = ([] as number[]).concat(description.version);
const pad = (v: number) => String(v).split('.').concat(['0', '0']).slice(0, 3).join('.');

describe('output schemas', () => {
	it('cover every operation of every version of the node', () => {
		const expected = versions.flatMap((v) => routes.map((route) => `v${pad(v)}/${route}.json`));
		expect(schemaFiles.sort()).toEqual(expected.sort());
	});

	it.each(schemaFiles.map((f) => [f]))('%s is a JSON schema the editor accepts', (file) => {
		const schema = JSON.parse(readFileSync(path.join(SCHEMA_DIR, file), 'utf8'));
		expect(schema.type).toBe('object');
		expect(Object.keys(schema.properties).length).toBeGreaterThan(0);
	});

	it('offer task_id to map from Submit, Get Status and Submit and Wait', () => {
		for (const operation of ['submit', 'getStatus', 'submitAndWait']) {
			const schema = JSON.parse(
				readFileSync(path.join(SCHEMA_DIR, 'v1.0.0/document', `${operation}.json`), 'utf8'),
			);
			expect(schema.properties.task_id).toMatchObject({ type: 'string' });
		}
	});

	it('describe the timed-out and failed fields of Submit and Wait', () => {
		const schema = JSON.parse(
			readFileSync(path.join(SCHEMA_DIR, 'v1.0.0/document/submitAndWait.json'), 'utf8'),
		);
		expect(Object.keys(schema.properties)).toEqual(
			expect.arrayContaining(['status', 'result', 'error', 'timedOut', 'waitedSeconds', 'message']),
		);
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
