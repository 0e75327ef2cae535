/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

/**
 * The README and the pages under docs/: every relative link points at a file that exists, and
 * every #anchor at a heading of its page, with anchors computed as GitHub computes them. The
 * pages are read from disk, so a page added later is checked as soon as it exists.
 */

import { FAILURE_KINDS } from '../../nodes/shared/transport/errors';

const ROOT = resolve(__dirname, '../..');
const DOCS = join(ROOT, 'docs');

/** The markdown files checked: README.md and every docs/*.md there is. */
function markdownFiles(): string[] {
	const pages = readdirSync(DOCS)
		.filter((name) => name.endsWith('.md'))
		.map((name) => join(DOCS, name));
	return [join(ROOT, 'README.md'), ...pages];
}

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string {
	return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens. */
export function githubSlug(heading: string): string {
	return heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/<[^>]+>/g, '')
		.replace(/[`*]/g, '')
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
		.replace(/ /g, '-');
}

/** Every anchor of a page: its headings (a repeated one gets -1, -2, …) and explicit ids. */
export function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');
	for (const [, heading] of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
		const slug = githubSlug(heading);
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		anchors.add(count ? `${slug}-${count}` : slug);
	}
	for (const [, id] of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id);
	return anchors;
}

/** The relative links (and images) of a page: [text](target) outside code. */
export function relativeLinks(markdown: string): string[] {
	const targets = [
		...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
	]
		.map((m) => m[1])
		.concat([...prose(markdown).matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]));
	return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with the links of `file`: one line per broken link, empty when all resolve. */
export function brokenLinks(file: string, markdown = readFileSync(file, 'utf8')): string[] {
	const problems: string[] = [];
	const where = relative(ROOT, file);
	for (const link of relativeLinks(markdown)) {
		const [rawPath, anchor] = link.split('#', 2) as [string, string | undefined];
		const path = decodeURIComponent(rawPath);
		const target = path ? resolve(dirname(file), path) : file;
		if (path && !existsSync(target)) {
			problems.push(`${where}: ${link}: no file ${relative(ROOT, target)}`);
			continue;
		}
		if (anchor === undefined) continue;
		if (path && (statSync(target).isDirectory() || !target.endsWith('.md'))) {
			problems.push(`${where}: ${link}: an anchor into something that is not a page`);
			continue;
		}
		const text = target === file ? markdown : readFileSync(target, 'utf8');
		if (!anchorsOf(text).has(decodeURIComponent(anchor))) {
			problems.push(`${where}: ${link}: no heading #${anchor} in ${relative(ROOT, target)}`);
		}
	}
	return problems;
}

describe('GitHub anchors', () => {
	it.each([
		['Installation', 'installation'],
		['Rate limits and retries', 'rate-limits-and-retries'],
		['Document → Submit and Wait', 'document--submit-and-wait'],
		['Use with AI agents and MCP clients', 'use-with-ai-agents-and-mcp-clients'],
		['`npm start`: a local n8n', 'npm-start-a-local-n8n'],
		['Tests (unit, e2e, UI)', 'tests-unit-e2e-ui'],
		['Zürich & co.', 'zürich--co'],
		['[Queue mode](docs/queue-mode.md)', 'queue-mode'],
		['snake_case_name', 'snake_case_name'],
	])('%s → #%s', (heading, slug) => {
		expect(githubSlug(heading)).toBe(slug);
	});

	it('numbers repeated headings and ignores headings inside code blocks', () => {
		const anchors = anchorsOf('# Usage\n## Usage\n```\n# Not a heading\n```\n## Usage\n');
		expect([...anchors]).toEqual(['usage', 'usage-1', 'usage-2']);
	});
});

describe('the link checker', () => {
	const file = join(DOCS, 'example.md');

	it('finds a link to a missing file and an anchor that is no heading', () => {
		const page = '# Top\n[a](missing-page.md) [b](#top) [c](#nowhere) [d](../README.md#no-such)\n';
		expect(brokenLinks(file, page)).toEqual([
			'docs/example.md: missing-page.md: no file docs/missing-page.md',
			'docs/example.md: #nowhere: no heading #nowhere in docs/example.md',
			'docs/example.md: ../README.md#no-such: no heading #no-such in README.md',
		]);
	});

	it('skips absolute URLs and links inside code', () => {
		const page = '[x](https://example.com/y.md) `[z](nope.md)`\n```\n[w](nope.md)\n```\n';
		expect(brokenLinks(file, page)).toEqual([]);
	});
});

describe('docs/reliability.md', () => {
	it('lists every failure kind the nodes put in their errors, and what to do with it', () => {
		const docs = readFileSync(join(DOCS, 'reliability.md'), 'utf8');
		const listed = [...docs.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((match) => match[1]);
		expect(listed).toEqual([...FAILURE_KINDS]);
	});
});

describe('README.md and docs/*.md', () => {
	const files = markdownFiles();

	it('include the pages the README sends readers to', () => {
		const names = files.map((f) => relative(ROOT, f));
		for (const page of [
			'trigger',
			'queue-mode',
			'ai-agents',
			'performance',
			'development',
			'security',
			'production',
			'reliability',
		]) {
			expect(names).toContain(`docs/${page}.md`);
		}
	});

	it.each(files.map((f) => [relative(ROOT, f)]))(
		'%s: every relative link and anchor resolves',
		(name) => {
			expect(brokenLinks(join(ROOT, name))).toEqual([]);
		},
	);

	it('README.md stays short and keeps the two commands and the tested n8n versions', () => {
		const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
		expect(readme.split('\n').length).toBeLessThanOrEqual(330);
		expect(readme).toContain('npm start');
		expect(readme).toContain('npm ci && npm test');
		expect(readme).toMatch(/2\.41\.1/);
		expect(readme).toMatch(/1\.123\.81/);
	});

	it('README.md gives the commands to try it in its first screen (40 lines), after one picture', () => {
		const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n');
		const firstScreen = lines.slice(0, 40).join('\n');
		expect(firstScreen).toMatch(/^git clone \S+ && cd n8n-nodes-document-extraction$/m);
		expect(firstScreen).toMatch(/^npm start$/m);
		expect(firstScreen.match(/!\[[^\]]*\]\(docs\/[^)]+\.png\)/g)).toHaveLength(1);
	});

	it('README.md says the package is not on the npm registry yet, and how to install it until then', () => {
		const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
		const install = readme.slice(
			readme.indexOf('## Installation'),
			readme.indexOf('## Mapping the output'),
		);
		expect(install).toMatch(/not on the npm registry yet/);
		expect(install).toContain('npm pack');
		expect(install).toContain('<!-- install-from-tarball -->');
		expect(install).toMatch(/\*\*After the first release\*\* \(not published yet\)/);
	});
});
