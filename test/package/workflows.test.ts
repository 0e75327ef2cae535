/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/** The GitHub Actions workflows: valid YAML, and what npm provenance needs. */
const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json'));

type Step = { uses?: string; run?: string } & Partial<
	Record<'with' | 'env', Record<string, string>>
>;
interface Workflow {
	on: Record<string, { tags?: string[]; branches?: string[] }>;
	jobs: Record<string, { permissions?: Record<string, string>; steps: Step[] }>;
}

const workflow = (name: string) =>
	parse(read(`.github/workflows/${name}`), { strict: true, uniqueKeys: true }) as Workflow;

it('.github/workflows/ci.yml runs .ci/run on pushes and pull requests: build, lint and the whole test suite', () => {
	const ci = workflow('ci.yml');
	expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
	const runs = Object.values(ci.jobs).flatMap((job) => job.steps.map((step) => step.run ?? ''));
	expect(runs.join('\n')).toMatch(/bash \.ci\/run/);
	expect(read('.ci/run')).toMatch(/^npm test$/m);
	expect(pkg.scripts.test).toMatch(/npm run build && npm run lint && .*npm run test:jest/);
});

describe('.github/workflows/publish.yml', () => {
	const publish = workflow('publish.yml');
	const [job] = Object.values(publish.jobs);

	it('is triggered by a version tag only, and may mint the OIDC token provenance is signed with, nothing more', () => {
		expect(Object.keys(publish.on)).toEqual(['push']);
		expect(publish.on.push.branches).toBeUndefined();
		expect(publish.on.push.tags).toEqual(expect.arrayContaining(['*.*.*']));
		expect(job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
	});

	it('publishes through npm run release with provenance, to the npm registry, and says how to set up trusted publishing', () => {
		const setupNode = job.steps.find((step) => step.uses?.startsWith('actions/setup-node'));
		expect(setupNode?.with?.['registry-url']).toBe('https://registry.npmjs.org');
		// trusted publishing needs npm 11.5.1+, which ships with Node 24
		expect(Number(setupNode?.with?.['node-version'])).toBeGreaterThanOrEqual(24);
		const release = job.steps.find((step) => /npm run release/.test(step.run ?? ''));
		expect(release?.env?.NPM_CONFIG_PROVENANCE).toBe('true');
		expect(pkg.scripts.release).toBe('n8n-node release');
		const text = read('.github/workflows/publish.yml');
		expect(text).toMatch(/Trusted Publisher/);
		expect(text).toMatch(/publish\.yml/);
	});

	it('package.json names the GitHub repository the provenance statement must match', () => {
		expect(pkg.repository?.type).toBe('git');
		expect(pkg.repository?.url).toMatch(
			/^git\+https:\/\/github\.com\/[^/]+\/n8n-nodes-document-extraction\.git$/,
		);
		expect(pkg.homepage).toContain(pkg.repository.url.replace(/^git\+|\.git$/g, ''));
	});
});
