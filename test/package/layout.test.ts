/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

/**
 * The layout rules: code both nodes use lives in nodes/shared/; neither node's folder imports
 * from the other's; shared code imports from neither node; no operation imports another.
 */

const ROOT = resolve(__dirname, '../..');
const NODES = join(ROOT, 'nodes');

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

/** The relative imports of a file, resolved to paths below the repository root. */
function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const specs = [...text.matchAll(/(?:from|import)\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
	return specs.map((spec) => relative(ROOT, resolve(dirname(file), spec)));
}

const folderOf = (path: string) => path.split('/').slice(0, 2).join('/');

describe('layout', () => {
	const files = sourceFiles(NODES).map((file) => ({
		path: relative(ROOT, file),
		imports: importsOf(file),
	}));

	it.each([
		['nodes/DocumentExtraction', ['nodes/DocumentExtractionTrigger']],
		['nodes/DocumentExtractionTrigger', ['nodes/DocumentExtraction']],
		['nodes/shared', ['nodes/DocumentExtraction', 'nodes/DocumentExtractionTrigger']],
	])('%s imports nothing from %j', (folder, forbidden) => {
		const offending = files
			.filter((file) => folderOf(file.path) === folder)
			.flatMap((file) =>
				file.imports
					.filter((target) => forbidden.includes(folderOf(target)))
					.map((target) => `${file.path} -> ${target}`),
			);
		expect(offending).toEqual([]);
	});

	it('has shared code that both nodes use', () => {
		const users = (node: string) =>
			files.some(
				(file) =>
					folderOf(file.path) === node &&
					file.imports.some((target) => folderOf(target) === 'nodes/shared'),
			);
		expect(users('nodes/DocumentExtraction')).toBe(true);
		expect(users('nodes/DocumentExtractionTrigger')).toBe(true);
	});

	it('has operations that never import one another', () => {
		const offending = files
			.filter((file) => file.path.endsWith('.operation.ts'))
			.flatMap((file) =>
				file.imports
					.filter((target) => target.endsWith('.operation'))
					.map((target) => `${file.path} -> ${target}`),
			);
		expect(offending).toEqual([]);
	});
});
