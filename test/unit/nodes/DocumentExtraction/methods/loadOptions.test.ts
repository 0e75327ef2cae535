import nock from 'nock';

import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { getDocumentTypes } from '../../../../../nodes/DocumentExtraction/methods/loadOptions';
import { BASE_URL, loadOptionsContext, useOfflineNock } from '../../../helpers/context';
import { projects } from '../../../helpers/fixtures';

const CHOOSE_PROJECT_FIRST = {
	name: 'Choose a Project First',
	value: '',
	description: 'The document types are those of the project chosen in the Project field',
};
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

useOfflineNock();

describe('Document types of the chosen project', () => {
	it('offers the document types of the chosen project, after a hint with the empty value', async () => {
		nock(BASE_URL).get('/projects').reply(200, projects);
		const types = await getDocumentTypes.call(loadOptionsContext(byId('identity')));
		// the empty value (no type chosen yet) is in the list: n8n's editor warns about a value its list lacks
		expect(types.map((t) => [t.name, t.value])).toEqual([
			['Choose a Document Type', ''],
			['id_card', 'id_card'],
			['passport', 'passport'],
		]);
	});

	const unreadable = {
		...loadOptionsContext(),
		getCurrentNodeParameter: (name: string) => {
			if (name !== 'project') return undefined;
			throw new Error("ERROR: This parameter's value is invalid. Please enter a valid mode.");
		},
	} as unknown as ILoadOptionsFunctions;
	it.each([
		['an empty From list value', loadOptionsContext({ __rl: true, mode: 'list', value: '' })],
		['an empty By ID or Name value', loadOptionsContext(byId('  '))],
		['no value at all', loadOptionsContext(undefined)],
		['a value that cannot be read yet', unreadable],
	])('offers the hint "Choose a Project First", and asks nothing, for %s', async (_what, ctx) => {
		const scope = nock(BASE_URL).get('/projects').reply(200, projects);
		expect(await getDocumentTypes.call(ctx)).toEqual([CHOOSE_PROJECT_FIRST]);
		expect(scope.isDone()).toBe(false);
		nock.cleanAll();
	});

	it('keeps a document type already set (an imported example) in the list until a project is chosen', async () => {
		const empty = { __rl: true, mode: 'list', value: '' };
		expect(await getDocumentTypes.call(loadOptionsContext(empty, 'invoice'))).toEqual([
			CHOOSE_PROJECT_FIRST,
			{ name: 'invoice', value: 'invoice' },
		]);
		const expression = loadOptionsContext(empty, '={{ $json.type }}');
		expect(await getDocumentTypes.call(expression)).toEqual([CHOOSE_PROJECT_FIRST]);
	});

	it('offers only a hint that names the Project field for a project the service does not know', async () => {
		nock(BASE_URL).get('/projects').reply(200, projects);
		const [hint, ...rest] = await getDocumentTypes.call(loadOptionsContext(byId('Unknown')));
		expect(rest).toEqual([]);
		expect(hint).toMatchObject({ name: 'No Document Types for This Project', value: '' });
		expect(hint.description).toMatch(/check the Project field/);
	});
});
