import nock from 'nock';

import {
	extractProjectList,
	projectText,
	resolveProjectId,
	summarizeProjects,
} from '../../../../nodes/shared/projects';
import { BASE_URL, createContext, useOfflineNock } from '../../helpers/context';
import { IDENTITY, INVOICES, projects } from '../../helpers/fixtures';

useOfflineNock();

describe('project parsing', () => {
	it('finds the list in a nested wrapper and reads each record whatever it calls its fields', () => {
		expect(extractProjectList({ data: { items: projects } })).toBe(projects);
		expect(extractProjectList({ count: 2 })).toBeUndefined();
		expect(
			summarizeProjects([
				{ id: 'p-1', title: 'Receipts', types: [{ document_type: 'receipt' }] },
				'p-2',
				7,
			]),
		).toEqual([
			{
				id: 'p-1',
				name: 'Receipts',
				documentTypes: ['receipt'],
				raw: { id: 'p-1', title: 'Receipts', types: [{ document_type: 'receipt' }] },
			},
			{ id: 'p-2', name: 'p-2', documentTypes: [], raw: {} },
		]);
	});

	it('reads the Project field as trimmed text', () => {
		expect(projectText('  Invoices ')).toBe('Invoices');
		expect(projectText(undefined)).toBe('');
	});
});

describe('resolveProjectId', () => {
	const ctx = () => createContext({ params: {} });

	it('takes a UUID as it is, without a request', async () => {
		await expect(resolveProjectId.call(ctx(), ` ${IDENTITY} `)).resolves.toBe(IDENTITY);
	});

	it('looks a name up case-insensitively', async () => {
		nock(BASE_URL).get('/projects').reply(200, projects);
		await expect(resolveProjectId.call(ctx(), 'INVOICES')).resolves.toBe(INVOICES);
	});
});
