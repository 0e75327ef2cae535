/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { existsSync, readdirSync, readFileSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

/** The layout rules of docs/development.md, and the longest a file may be. */

const ROOT = resolve(__dirname, '../..');
const MAX_LINES = 250;
/** A longer test file holds more than one subject. */
const MAX_TEST_LINES = 600;

const filesBelow = (dir: string, endings: string[]): string[] =>
	existsSync(dir)
		? readdirSync(dir, { recursive: true, encoding: 'utf8' })
				.map((name) => join(dir, name))
				.filter((path) => endings.some((ending) => path.endsWith(ending)))
		: [];

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
const productFile = (target: string) =>
	[`${target}.ts`, `${target}/index.ts`, target].find(
		(candidate) => candidate.endsWith('.ts') && existsSync(join(ROOT, candidate)),
	);

const folderOf = (path: string) => path.split('/').slice(0, 2).join('/');

const TRANSPORT = 'nodes/shared/transport/';

const product = [
	...filesBelow(join(ROOT, 'nodes'), ['.ts']),
	...filesBelow(join(ROOT, 'credentials'), ['.ts']),
].map((file) => {
	const text = readFileSync(file, 'utf8');
	return { path: rel(file), imports: importsOf(file), lines: text.split('\n').length, text };
});
const byPath = new Map(product.map((file) => [file.path, file]));
const edges = (path: string) =>
	(byPath.get(path)?.imports ?? [])
		.map(productFile)
		.filter((target): target is string => target !== undefined);

const under = (path: string, folders: string[]) =>
	folders.some((f) => path === f || path.startsWith(`${f}/`));
const actionsOf = (path: string) => `${folderOf(path)}/actions/`;
const [ACTION, TRIGGER] = ['nodes/DocumentExtraction', 'nodes/DocumentExtractionTrigger'];

type Rule = [string, (from: string) => boolean, (to: string, from: string) => boolean];
/** Rules on imports: which files, and which imports of theirs break the rule. */
const IMPORT_RULES: Rule[] = [
	...(
		[
			[ACTION, [TRIGGER, 'credentials']],
			[TRIGGER, [ACTION, 'credentials']],
			['nodes/shared', [ACTION, TRIGGER, 'credentials']],
		] as const
	).map(
		([folder, forbidden]): Rule => [
			`${folder} imports nothing from ${forbidden.join(', ')}`,
			(from) => folderOf(from) === folder,
			(to) => under(to, [...forbidden]),
		],
	),
	[
		'operations never import one another',
		(from) => from.endsWith('.operation.ts'),
		(to) => to.endsWith('.operation'),
	],
	[
		'inside a node, only the node file and the actions import from actions/',
		(from) =>
			under(folderOf(from), [ACTION, TRIGGER]) &&
			!from.endsWith('.node.ts') &&
			!from.startsWith(actionsOf(from)),
		(to, from) => to.startsWith(actionsOf(from)),
	],
];

describe('layout', () => {
	it.each(IMPORT_RULES)('%s', (_rule, applies, breaks) => {
		const offending = product
			.filter((file) => applies(file.path))
			.flatMap((file) =>
				file.imports.filter((to) => breaks(to, file.path)).map((to) => `${file.path} -> ${to}`),
			);
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

	const testFiles = filesBelow(join(ROOT, 'test'), ['.ts', '.js']).map((path) => ({
		path: rel(path),
		lines: readFileSync(path, 'utf8').split('\n').length,
	}));
	it.each([
		['product', MAX_LINES, product],
		['test', MAX_TEST_LINES, testFiles],
	] as const)('has no %s file over %d lines', (_kind, max, files) => {
		const long = files.filter((file) => file.lines > max).map((f) => `${f.path}: ${f.lines}`);
		expect(long).toEqual([]);
	});

	it('has shared code that both nodes use, or that docs/development.md names as an exception', () => {
		const reachable = (path: string, seen = new Set<string>()) => {
			if (seen.has(path)) return seen;
			seen.add(path);
			for (const next of edges(path)) reachable(next, seen);
			return seen;
		};
		const action = reachable(`${ACTION}/DocumentExtraction.node.ts`);
		const trigger = reachable(`${TRIGGER}/DocumentExtractionTrigger.node.ts`);
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
