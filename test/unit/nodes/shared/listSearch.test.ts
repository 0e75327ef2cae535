import nock from 'nock';

import { searchProjects } from '../../../../nodes/shared/listSearch';
import { BASE_URL, loadOptionsContext, useOfflineNock } from '../../helpers/context';
import { IDENTITY, INVOICES, projects } from '../../helpers/fixtures';

useOfflineNock();

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
