/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

/**
 * The layout rules of docs/development.md: code both nodes use lives in nodes/shared/ (or is
 * named there as an exception); neither node's folder imports from the other's; shared code
 * imports from neither node; nothing under nodes/ imports credentials/; no operation imports
 * another; inside a node, only the node file and its actions import from actions/ (descriptions,
 * constants and input lie below them); only the transport builds an error of the service; no
 * import cycle; no product file over MAX_LINES and no test file over MAX_TEST_LINES; the benchmark imports no test code; and
 * test/unit/nodes/ mirrors nodes/ file for file.
 */

const ROOT = resolve(__dirname, '../..');
const MAX_LINES = 250;
/** The longest a test file may be: a longer one holds more than one subject. */
const MAX_TEST_LINES = 600;

function filesBelow(dir: string, endings: string[]): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return filesBelow(path, endings);
		return endings.some((ending) => path.endsWith(ending)) ? [path] : [];
	});
}

const rel = (path: string) => relative(ROOT, path).split('\\').join('/');

/** The relative imports and requires of a file, resolved to paths below the repository root. */
function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const specs = [
		...text.matchAll(/(?:from|import)\s*'(\.{1,2}\/[^']+)'/g),
		...text.matchAll(/require\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g),
	].map((m) => m[1]);
	return specs.map((spec) => rel(resolve(dirname(file), spec)));
}

/** The product file an import names: the path with .ts, or its index.ts. */
function productFile(target: string): string | undefined {
	for (const candidate of [`${target}.ts`, `${target}/index.ts`, target]) {
		if (existsSync(join(ROOT, candidate)) && candidate.endsWith('.ts')) return candidate;
	}
	return undefined;
}

const folderOf = (path: string) => path.split('/').slice(0, 2).join('/');

const TRANSPORT = 'nodes/shared/transport/';

const product = [
	...filesBelow(join(ROOT, 'nodes'), ['.ts']),
	...filesBelow(join(ROOT, 'credentials'), ['.ts']),
].map((file) => ({
	path: rel(file),
	imports: importsOf(file),
	lines: readFileSync(file, 'utf8').split('\n').length,
	text: readFileSync(file, 'utf8'),
}));
const byPath = new Map(product.map((file) => [file.path, file]));
const edges = (path: string) =>
	(byPath.get(path)?.imports ?? [])
		.map(productFile)
		.filter((target): target is string => target !== undefined);

describe('layout', () => {
	it.each([
		['nodes/DocumentExtraction', ['nodes/DocumentExtractionTrigger', 'credentials']],
		['nodes/DocumentExtractionTrigger', ['nodes/DocumentExtraction', 'credentials']],
		[
			'nodes/shared',
			['nodes/DocumentExtraction', 'nodes/DocumentExtractionTrigger', 'credentials'],
		],
	])('%s imports nothing from %j', (folder, forbidden) => {
		const offending = product
			.filter((file) => folderOf(file.path) === folder)
			.flatMap((file) =>
				file.imports
					.filter((target) => forbidden.some((f) => target === f || target.startsWith(`${f}/`)))
					.map((target) => `${file.path} -> ${target}`),
			);
		expect(offending).toEqual([]);
	});

	it('has operations that never import one another', () => {
		const offending = product
			.filter((file) => file.path.endsWith('.operation.ts'))
			.flatMap((file) =>
				file.imports
					.filter((target) => target.endsWith('.operation'))
					.map((target) => `${file.path} -> ${target}`),
			);
		expect(offending).toEqual([]);
	});

	it('has nothing inside a node that imports its actions/ back up, but the node file and the actions', () => {
		const offending = product
			.filter((file) => /^nodes\/DocumentExtraction[^/]*\//.test(file.path))
			.filter((file) => !file.path.endsWith('.node.ts'))
			.flatMap((file) => {
				const actions = `${folderOf(file.path)}/actions/`;
				if (file.path.startsWith(actions)) return [];
				return file.imports
					.filter((target) => target.startsWith(actions))
					.map((target) => `${file.path} -> ${target}`);
			});
		expect(offending).toEqual([]);
	});

	it('has the transport as the only place that builds an error of the service', () => {
		const offending = product
			.filter((file) => !file.path.startsWith(TRANSPORT))
			.filter((file) => /new\s+(NodeApiError|ServiceError)\b/.test(file.text))
			.map((file) => file.path);
		expect(offending).toEqual([]);
	});

	it('has no import cycle', () => {
		const cycles: string[] = [];
		const state = new Map<string, 'open' | 'done'>();
		const visit = (path: string, trail: string[]) => {
			if (state.get(path) === 'done') return;
			if (state.get(path) === 'open') {
				cycles.push([...trail.slice(trail.indexOf(path)), path].join(' -> '));
				return;
			}
			state.set(path, 'open');
			for (const target of edges(path)) visit(target, [...trail, path]);
			state.set(path, 'done');
		};
		for (const file of product) visit(file.path, []);
		expect(cycles).toEqual([]);
	});

	it(`has no product file over ${MAX_LINES} lines`, () => {
		const long = product
			.filter((file) => file.lines > MAX_LINES)
			.map((file) => `${file.path}: ${file.lines}`);
		expect(long).toEqual([]);
	});

	it(`has no test file over ${MAX_TEST_LINES} lines`, () => {
		const long = filesBelow(join(ROOT, 'test'), ['.ts', '.js'])
			.map((path) => ({ path: rel(path), lines: readFileSync(path, 'utf8').split('\n').length }))
			.filter((file) => file.lines > MAX_TEST_LINES)
			.map((file) => `${file.path}: ${file.lines}`);
		expect(long).toEqual([]);
	});

	it('has shared code that both nodes use, or that docs/development.md names as an exception', () => {
		const reachable = (entry: string) => {
			const seen = new Set<string>();
			const queue = [entry];
			while (queue.length) {
				const path = queue.pop() as string;
				if (seen.has(path)) continue;
				seen.add(path);
				queue.push(...edges(path));
			}
			return seen;
		};
		const action = reachable('nodes/DocumentExtraction/DocumentExtraction.node.ts');
		const trigger = reachable('nodes/DocumentExtractionTrigger/DocumentExtractionTrigger.node.ts');
		const docs = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
		const section = /### Shared code used by one node\n([\s\S]*?)(?=\n#)/.exec(docs)?.[1] ?? '';
		const exceptions = [...section.matchAll(/`(nodes\/shared\/[^`]+\.ts)`/g)].map((m) => m[1]);
		const oneNodeOnly = product
			.filter((file) => folderOf(file.path) === 'nodes/shared')
			.filter((file) => !(action.has(file.path) && trigger.has(file.path)))
			.map((file) => file.path)
			.filter((path) => !exceptions.includes(path));
		expect(oneNodeOnly).toEqual([]);
	});

	it('has a benchmark that imports no test code', () => {
		const offending = filesBelow(join(ROOT, 'bench'), ['.js', '.ts']).flatMap((file) =>
			importsOf(file)
				.filter((target) => target === 'test' || target.startsWith('test/'))
				.map((target) => `${rel(file)} -> ${target}`),
		);
		expect(offending).toEqual([]);
	});

	it('has unit tests at the path of the file they test (X.test.ts or X.<subject>.test.ts)', () => {
		const tests = filesBelow(join(ROOT, 'test/unit'), ['.test.ts', '.test.js'])
			.map(rel)
			.filter((path) => !path.startsWith('test/unit/helpers/'));
		const orphans = tests.filter((path) => {
			const base = path.replace(/^test\/unit\//, '').replace(/\.test\.[jt]s$/, '');
			const withoutSubject = base.replace(/\.[A-Za-z]+$/, '');
			// an operation's test drops ".operation": document/submit.test.ts tests submit.operation.ts
			return ![base, withoutSubject].some(
				(name) => byPath.has(`${name}.ts`) || byPath.has(`${name}.operation.ts`),
			);
		});
		expect(orphans).toEqual([]);
	});
});
