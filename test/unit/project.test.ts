import nock from 'nock';

import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { DocumentExtractionApi } from '../../credentials/DocumentExtractionApi.credentials';
import { execute as list } from '../../nodes/DocumentExtraction/actions/project/list.operation';
import { execute as registerWebhook } from '../../nodes/DocumentExtraction/actions/project/registerWebhook.operation';
import { getDocumentTypes } from '../../nodes/DocumentExtraction/methods/loadOptions';
import { searchProjects } from '../../nodes/DocumentExtraction/methods/listSearch';
import { API_KEY, BASE_URL, createContext, failureOf, parameterValue } from './helpers/context';

const INVOICES = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c';
const IDENTITY = '8a4b6c2d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
const projects = [
	{ project_id: INVOICES, name: 'Invoices', document_types: ['invoice', 'receipt'] },
	{
		project_id: IDENTITY,
		name: 'Identity',
		document_types: [{ name: 'passport' }, { name: 'id_card' }],
	},
];

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
beforeEach(() => nock.cleanAll());

describe('List Projects', () => {
	const run = async () =>
		await list.call(createContext({ params: { resource: 'project', operation: 'list' } }), [
			{ json: {} },
		]);

	it.each([
		['a bare array', projects],
		['{ projects }', { projects }],
		['{ items }', { items: projects }],
		['{ data }', { data: projects }],
		['{ results }', { results: projects, total: 2 }],
	])('outputs one item per project from %s', async (_shape, body) => {
		nock(BASE_URL).get('/projects').reply(200, body);
		const out = await run();
		expect(out.map((o) => o.json.name)).toEqual(['Invoices', 'Identity']);
		expect(out.every((o) => (o.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it('outputs an unreadable answer whole as one item instead of crashing', async () => {
		nock(BASE_URL).get('/projects').reply(200, { account: 'acme', count: 2 });
		const out = await run();
		expect(out).toEqual([{ json: { account: 'acme', count: 2 }, pairedItem: { item: 0 } }]);
	});

	it('wraps a non-object answer', async () => {
		nock(BASE_URL).get('/projects').reply(200, '"ok"', { 'Content-Type': 'application/json' });
		const out = await run();
		expect(out[0].json).toEqual({ response: 'ok' });
	});
});

describe('Register Webhook', () => {
	const params = (extra: Record<string, unknown> = {}) => ({
		resource: 'project',
		operation: 'registerWebhook',
		project: { __rl: true, mode: 'id', value: 'invoices' },
		webhookUrl: 'https://crm.example.com/hooks/extraction',
		events: ['task.completed'],
		secret: '',
		...extra,
	});

	it('resolves a project name to its id and generates a strong whsec_ secret, output once', async () => {
		nock(BASE_URL).get('/projects').reply(200, { projects });
		let body: Record<string, unknown> = {};
		nock(BASE_URL)
			.post(`/projects/${INVOICES}/webhooks`, (b) => {
				body = b;
				return true;
			})
			.reply(201, { webhook_id: 'wh-1', url: 'https://crm.example.com/hooks/extraction' });
		const out = await registerWebhook.call(createContext({ params: params() }), [{ json: {} }]);
		expect(body.url).toBe('https://crm.example.com/hooks/extraction');
		expect(body.events).toEqual(['task.completed']);
		expect(body.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
		expect(out[0].json).toMatchObject({
			webhook_id: 'wh-1',
			project_id: INVOICES,
			secret: body.secret,
			secretGenerated: true,
		});
	});

	it('uses the given secret and an id as it is, without listing projects', async () => {
		nock(BASE_URL)
			.post(`/projects/${IDENTITY}/webhooks`, (b) => b.secret === 'whsec_mine')
			.reply(201, {});
		const out = await registerWebhook.call(
			createContext({
				params: params({
					project: { __rl: true, mode: 'list', value: IDENTITY },
					secret: 'whsec_mine',
				}),
			}),
			[{ json: {} }],
		);
		expect(out[0].json).toMatchObject({ secret: 'whsec_mine', secretGenerated: false });
	});

	it('names the known projects when the name is unknown', async () => {
		nock(BASE_URL).get('/projects').reply(200, projects);
		const error = await failureOf(
			registerWebhook.call(
				createContext({
					params: params({ project: { __rl: true, mode: 'id', value: 'Receipts' } }),
				}),
				[{ json: {} }],
			),
		);
		expect(error.message).toBe('No project named "Receipts"');
		expect(error.description).toContain(`Invoices (${INVOICES})`);
	});

	it('refuses a URL that is not http(s) before any request', async () => {
		const scope = nock(BASE_URL).get(/.*/).reply(200, projects);
		const error = await failureOf(
			registerWebhook.call(
				createContext({ params: params({ webhookUrl: 'ftp://x.example.com' }) }),
				[{ json: {} }],
			),
		);
		expect(error.message).toBe('"ftp://x.example.com" is not an http(s) URL');
		expect(scope.isDone()).toBe(false);
	});

	it('refuses an empty event list', async () => {
		const error = await failureOf(
			registerWebhook.call(createContext({ params: params({ events: [] }) }), [{ json: {} }]),
		);
		expect(error.message).toBe('No event selected');
	});
});

describe('Project list search and document types', () => {
	const loadContext = (project?: unknown) =>
		({
			...createContext({ params: {} }),
			getCurrentNodeParameter: (_name: string, extra?: { extractValue?: boolean }) =>
				parameterValue(project, extra),
		}) as unknown as ILoadOptionsFunctions;

	it('lists projects with their document types and filters by name', async () => {
		nock(BASE_URL).get('/projects').twice().reply(200, { projects });
		const all = await searchProjects.call(loadContext());
		expect(all.results).toEqual([
			{ name: 'Invoices', value: INVOICES, description: 'Document types: invoice, receipt' },
			{ name: 'Identity', value: IDENTITY, description: 'Document types: passport, id_card' },
		]);
		const filtered = await searchProjects.call(loadContext(), 'iden');
		expect(filtered.results.map((r) => r.value)).toEqual([IDENTITY]);
	});

	it('offers the document types of the chosen project', async () => {
		nock(BASE_URL).get('/projects').reply(200, projects);
		const types = await getDocumentTypes.call(
			loadContext({ __rl: true, mode: 'id', value: 'identity' }),
		);
		expect(types.map((t) => t.value)).toEqual(['id_card', 'passport']);
	});
});

describe('Credential', () => {
	const credential = new DocumentExtractionApi();

	it('adds the Bearer header for a vnd_ key', async () => {
		const options = await credential.authenticate({ apiKey: API_KEY }, { url: '/projects' });
		expect(options.headers).toEqual({ Authorization: `Bearer ${API_KEY}` });
	});

	it('refuses any other key, saying what keys look like and where they come from', async () => {
		await expect(credential.authenticate({ apiKey: 'abc123' }, { url: '/x' })).rejects.toThrow(
			/keys look like vnd_… .*web dashboard/,
		);
	});

	it('is tested with GET /projects on the base URL without its trailing slash', () => {
		expect(credential.test.request).toMatchObject({ url: '/projects', method: 'GET' });
		expect(credential.test.request.baseURL).toContain('$credentials.baseUrl');
		expect(credential.properties.find((p) => p.name === 'apiKey')?.typeOptions?.password).toBe(
			true,
		);
	});
});
