/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/** The GitHub Actions workflows: valid YAML, and what npm provenance needs. */
const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

interface Step {
	uses?: string;
	run?: string;
	with?: Record<string, string>;
	env?: Record<string, string>;
}
interface Job {
	permissions?: Record<string, string>;
	steps: Step[];
}
interface Workflow {
	on: Record<string, unknown>;
	jobs: Record<string, Job>;
}

function workflow(name: string): Workflow {
	const text = readFileSync(path.join(ROOT, '.github/workflows', name), 'utf8');
	return parse(text, { strict: true, uniqueKeys: true }) as Workflow;
}

const steps = (wf: Workflow) => Object.values(wf.jobs).flatMap((job) => job.steps);
const runs = (wf: Workflow) =>
	steps(wf)
		.map((step) => step.run ?? '')
		.join('\n');

describe('.github/workflows/ci.yml', () => {
	const ci = workflow('ci.yml');

	it('runs on pushes and pull requests', () => {
		expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
	});

	it('runs .ci/run, which lints, builds and runs the whole test suite', () => {
		expect(runs(ci)).toMatch(/bash \.ci\/run/);
		const ciRun = readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
		expect(ciRun).toMatch(/^npm test$/m);
		expect(pkg.scripts.test).toMatch(/npm run build && npm run lint && .*npm run test:jest/);
	});
});

describe('.github/workflows/publish.yml', () => {
	const publish = workflow('publish.yml');
	const [job] = Object.values(publish.jobs);

	it('is triggered by a version tag, and only by one', () => {
		expect(Object.keys(publish.on)).toEqual(['push']);
		const push = publish.on.push as { tags?: string[]; branches?: string[] };
		expect(push.branches).toBeUndefined();
		expect(push.tags).toEqual(expect.arrayContaining(['*.*.*']));
	});

	it('may mint the OIDC token provenance is signed with, and nothing more', () => {
		expect(job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
	});

	it('publishes through npm run release with provenance, to the npm registry', () => {
		const setupNode = job.steps.find((step) => step.uses?.startsWith('actions/setup-node'));
		expect(setupNode?.with?.['registry-url']).toBe('https://registry.npmjs.org');
		// trusted publishing needs npm 11.5.1+, which ships with Node 24
		expect(Number(setupNode?.with?.['node-version'])).toBeGreaterThanOrEqual(24);
		const release = job.steps.find((step) => /npm run release/.test(step.run ?? ''));
		expect(release).toBeDefined();
		expect(release?.env?.NPM_CONFIG_PROVENANCE).toBe('true');
		expect(pkg.scripts.release).toBe('n8n-node release');
	});

	it('explains how to set up trusted publishing', () => {
		const text = readFileSync(path.join(ROOT, '.github/workflows/publish.yml'), 'utf8');
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
