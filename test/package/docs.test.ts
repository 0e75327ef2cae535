/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';
import type { IDataObject } from 'n8n-workflow';

import { description as submitAndWait } from '../../nodes/DocumentExtraction/actions/document/submitAndWait.operation';

/** README.md and docs/*.md: relative links and #anchors resolve (as GitHub computes anchors). */

const ROOT = resolve(__dirname, '../..');
const DOCS = join(ROOT, 'docs');
const FENCED = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm;

/** The text outside fenced code blocks and inline code, where links are links. */
const prose = (markdown: string) => markdown.replace(FENCED, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens. */
function githubSlug(heading: string): string {
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
function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	const text = markdown.replace(FENCED, '');
	for (const [, heading] of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
		const slug = githubSlug(heading);
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		anchors.add(count ? `${slug}-${count}` : slug);
	}
	for (const [, id] of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id);
	return anchors;
}

/** The relative links (and images) of a page outside code: [text](target) and [ref]: target. */
function relativeLinks(markdown: string): string[] {
	const text = prose(markdown);
	return [
		...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
		...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm),
	]
		.map((m) => m[1])
		.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with the links of `file`: one line per broken link, empty when all resolve. */
function brokenLinks(file: string): string[] {
	const markdown = readFileSync(file, 'utf8');
	return relativeLinks(markdown).flatMap((link) => {
		const [rawPath, anchor] = link.split('#', 2) as [string, string | undefined];
		const path = decodeURIComponent(rawPath);
		const target = path ? resolve(dirname(file), path) : file;
		const broken = (why: string) => [`${relative(ROOT, file)}: ${link}: ${why}`];
		if (path && !existsSync(target)) return broken(`no file ${relative(ROOT, target)}`);
		if (anchor === undefined) return [];
		if (path && (statSync(target).isDirectory() || !target.endsWith('.md')))
			return broken('an anchor into something that is not a page');
		const text = target === file ? markdown : readFileSync(target, 'utf8');
		return anchorsOf(text).has(decodeURIComponent(anchor))
			? []
			: broken(`no heading #${anchor} in ${relative(ROOT, target)}`);
	});
}

describe('docs/reliability.md', () => {
	it('lists every failure kind the nodes put in their errors, and what to do with it', () => {
		// the kinds as the transport declares them, read from its source: the list is not exported
		const source = readFileSync(join(ROOT, 'nodes/shared/transport/errors.ts'), 'utf8');
		const declared = /FAILURE_KINDS\s*=\s*\[([^\]]*)\]/.exec(source)?.[1] ?? '';
		const kinds = [...declared.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').matchAll(/'([a-z_]+)'/g)];
		expect(kinds.length).toBeGreaterThan(5);
		const docs = readFileSync(join(DOCS, 'reliability.md'), 'utf8');
		const listed = [...docs.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((match) => match[1]);
		expect(listed).toEqual(kinds.map((match) => match[1]));
	});
});

describe('Max Wait', () => {
	const source = readFileSync(join(ROOT, 'nodes/shared/transport/request.ts'), 'utf8');
	const constant = (name: string) =>
		(new RegExp(`const ${name} = ([^;]+);`).exec(source)?.[1] ?? '')
			.split('*')
			.reduce((product, factor) => product * Number(factor.replace(/_/g, '')), 1);
	const baseS = constant('REQUEST_TIMEOUT_MS') / 1000;
	const bytesPerSecond = constant('UPLOAD_BYTES_PER_SECOND');
	const perMb = ((4 / 3) * 1024 * 1024) / bytesPerSecond;

	it("bounds every call of the MCP example within the official SDK's 60 s", () => {
		const example = JSON.parse(readFileSync(join(ROOT, 'examples/mcp-server.json'), 'utf8'));
		const waits = example.nodes
			.filter((node: { parameters: IDataObject }) => node.parameters.operation === 'submitAndWait')
			.map(({ parameters }: { parameters: { options: IDataObject } }) => {
				const { maxWait, maxDownloadSize } = parameters.options as Record<string, number>;
				return maxWait + baseS + Math.ceil(maxDownloadSize * perMb);
			});
		expect(waits.length).toBeGreaterThan(0);
		for (const seconds of waits) expect(seconds).toBeLessThanOrEqual(60);
	});

	it('states one bound, from the upload time limit the transport sets, in the parameter and both pages', () => {
		const bound = `ends within Max Wait plus at most one upload's own time limit: ${baseS} s plus 1 s for every ${bytesPerSecond / 1024} KB of the upload (the file in base64, about ${perMb.toFixed(1)} s per MB of file).`;
		const flat = (text: string) => text.replace(/[_*]/g, '').replace(/\s+/g, ' ');
		const maxWait = submitAndWait
			.find((property) => property.name === 'options')
			?.options?.find((option) => 'name' in option && option.name === 'maxWait') as
			| { description?: string }
			| undefined;
		const places = {
			parameter: maxWait?.description ?? '',
			'ai-agents.md': readFileSync(join(DOCS, 'ai-agents.md'), 'utf8'),
			'reliability.md': readFileSync(join(DOCS, 'reliability.md'), 'utf8'),
		};
		for (const [place, text] of Object.entries(places)) {
			expect([place, flat(text).includes(bound)]).toEqual([place, true]);
			expect([place, flat(text)]).not.toEqual([
				place,
				expect.stringMatching(/request timeout \(30 s\)|plus 30 s under/),
			]);
		}
	});
});

const pages = [
	'README.md',
	...readdirSync(DOCS)
		.filter((n) => n.endsWith('.md'))
		.map((n) => `docs/${n}`),
];
it.each(pages)('%s: every relative link and anchor resolves', (name) => {
	expect(brokenLinks(join(ROOT, name))).toEqual([]);
});
