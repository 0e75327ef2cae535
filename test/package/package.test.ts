/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

const sourceFiles = (dir: string) =>
	readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
		.filter((name) => name.endsWith('.ts'))
		.map((name) => path.join(dir, name));

describe('package.json', () => {
	it('is a community node package with n8n-workflow as its only peer and no runtime dependencies', () => {
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.n8n).toMatchObject({ n8nNodesApiVersion: 1, strict: true });
		expect(pkg.files).toEqual(['dist']);
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(pkg.dependencies).toBeUndefined();
	});
});

describe('npm pack', () => {
	const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: ROOT,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'ignore'],
	});
	const files = (JSON.parse(output)[0].files as Array<{ path: string }>).map((f) => f.path);

	it('ships every node and credential listed in package.json, with icons, codex files and output schemas', () => {
		for (const entry of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) expect(files).toContain(entry);
		for (const node of pkg.n8n.nodes as string[]) {
			expect(files).toContain(node.replace(/\.js$/, '.json'));
		}
		// the output schemas next to the compiled node file (schemas.test.ts checks what they say)
		const schemas = readdirSync(path.join(ROOT, 'nodes/DocumentExtraction/__schema__'), {
			recursive: true,
			encoding: 'utf8',
		}).filter((f) => f.endsWith('.json'));
		expect(schemas.length).toBeGreaterThan(0);
		for (const file of schemas)
			expect(files).toContain(
				`dist/nodes/DocumentExtraction/__schema__/${file.split(path.sep).join('/')}`,
			);
		const icons = files.filter((f) => f.endsWith('.svg'));
		expect(icons.some((f) => f.endsWith('.dark.svg'))).toBe(true);
		expect(icons.some((f) => !f.endsWith('.dark.svg'))).toBe(true);
	});

	it('ships nothing but dist/ and the package metadata', () => {
		const outside = files.filter(
			(f) =>
				!f.startsWith('dist/') &&
				!['package.json', 'README.md', 'LICENSE.md', 'CHANGELOG.md'].includes(f),
		);
		expect(outside).toEqual([]);
		expect(
			files.filter((f) => /(^|\/)(test|emulator|bench)\//.test(f) || f.endsWith('.tsbuildinfo')),
		).toEqual([]);
	});
});

describe('verified-node rules in nodes/ and credentials/', () => {
	it.each([...sourceFiles('nodes'), ...sourceFiles('credentials')])(
		'%s uses no forbidden global or module',
		(file) => {
			const code = readFileSync(path.join(ROOT, file), 'utf8')
				.replace(/\/\*[\s\S]*?\*\//g, '')
				.replace(/^\s*\/\/.*$/gm, '');
			expect(code).not.toMatch(
				/\b(setTimeout|setInterval|setImmediate|clearTimeout|globalThis|__dirname|__filename)\b|\bprocess\.[a-z]|\bbinary\.data\b/,
			);
			const imports = [...code.matchAll(/(?:from|require\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
			for (const source of imports) {
				expect(source).toMatch(/^(\.{1,2}\/|n8n-workflow$|crypto$|node:crypto$)/);
			}
		},
	);
});
