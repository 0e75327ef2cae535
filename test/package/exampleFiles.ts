/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The example workflows as the package tests read them. */
export const EXAMPLES = path.resolve(__dirname, '../../examples');

export interface ExampleNode {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
	typeVersion?: number;
}
export interface Example {
	id: string;
	name: string;
	nodes: ExampleNode[];
	connections: Record<string, Record<string, Array<Array<{ node: string }>>>>;
}

export const read = (file: string): Example =>
	JSON.parse(readFileSync(path.join(EXAMPLES, file), 'utf8')) as Example;
export const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));

/** Every example of both n8n versions: examples/*.json and examples/n8n1/*.json. */
export const allExampleFiles = [
	...files.map((file) => ({ file, wf: read(file) })),
	...readdirSync(path.join(EXAMPLES, 'n8n1'))
		.filter((f) => f.endsWith('.json'))
		.map((f) => ({ file: `n8n1/${f}`, wf: read(`n8n1/${f}`) })),
];
