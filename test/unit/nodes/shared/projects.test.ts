import nock from 'nock';

import {
	extractProjectList,
	fetchProjects,
	findProject,
	matchProject,
	projectText,
	resolveProjectId,
} from '../../../../nodes/shared/projects';
import { searchProjects } from '../../../../nodes/shared/listSearch';
import { BASE_URL, createContext, loadOptionsContext, useOfflineNock } from '../../helpers/context';
import { IDENTITY, INVOICES, projects } from '../../helpers/fixtures';

useOfflineNock();

describe('project parsing', () => {
	it('finds the list in a nested wrapper and reads each record whatever it calls its fields', async () => {
		expect(extractProjectList({ data: { items: projects } })).toBe(projects);
		expect(extractProjectList({ count: 2 })).toBeUndefined();
		const receipts = { id: 'p-1', title: 'Receipts', types: [{ document_type: 'receipt' }] };
		nock(BASE_URL).get('/projects').reply(200, [receipts, 'p-2', 7]);
		await expect(fetchProjects.call(createContext({ params: {} }))).resolves.toEqual([
			{ id: 'p-1', name: 'Receipts', documentTypes: ['receipt'] },
			{ id: 'p-2', name: 'p-2', documentTypes: [] },
		]);
	});

	it('reads the Project field as trimmed text', () => {
		expect(projectText('  Invoices ')).toBe('Invoices');
		expect(projectText(undefined)).toBe('');
	});
});

describe('the rule that matches a Project', () => {
	const project = (id: string, name: string) => ({ id, name, documentTypes: [], raw: {} });
	const invoices = project('p-1', 'Invoices');

	it('matches by ID or name: exactly, then ignoring case, then as a part', () => {
		expect(matchProject(invoices, ' Invoices ')).toBe('exact');
		expect(matchProject(invoices, 'p-1')).toBe('exact');
		expect(matchProject(invoices, 'INVOICES')).toBe('ignoringCase');
		expect(matchProject(invoices, 'P-1')).toBe('ignoringCase');
		expect(matchProject(invoices, 'voice')).toBe('part');
		expect(matchProject(invoices, '')).toBe('part');
		expect(matchProject(invoices, 'Receipts')).toBeUndefined();
	});

	it('names the project that answers exactly before one that differs in case, never a part', () => {
		const lower = project('p-2', 'invoices');
		expect(findProject([lower, invoices], 'Invoices')).toBe(invoices);
		expect(findProject([lower, invoices], 'INVOICES')).toBe(lower);
		expect(findProject([invoices], 'Invoice')).toBeUndefined();
	});
});

describe('resolveProjectId', () => {
	const ctx = () => createContext({ params: {} });

	it('takes a UUID as it is, without a request, and looks a name up ignoring case', async () => {
		await expect(resolveProjectId.call(ctx(), ` ${IDENTITY} `)).resolves.toBe(IDENTITY);
		nock(BASE_URL).get('/projects').reply(200, projects);
		await expect(resolveProjectId.call(ctx(), 'INVOICES')).resolves.toBe(INVOICES);
	});
});

describe('Project list search', () => {
	it('lists projects with their document types and filters by name', async () => {
		nock(BASE_URL).get('/projects').twice().reply(200, { projects });
		const all = await searchProjects.call(loadOptionsContext());
		expect(all.results).toEqual([
			{ name: 'Invoices', value: INVOICES, description: 'Document types: invoice, receipt' },
			{ name: 'Identity', value: IDENTITY, description: 'Document types: passport, id_card' },
		]);
		const filtered = await searchProjects.call(loadOptionsContext(), 'iden');
		expect(filtered.results.map((r) => r.value)).toEqual([IDENTITY]);
	});
});
