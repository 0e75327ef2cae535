import nock from 'nock';

import { getDocumentTypes } from '../../../../../nodes/DocumentExtraction/methods/loadOptions';
import { BASE_URL, loadOptionsContext, useOfflineNock } from '../../../helpers/context';
import { projects } from '../../../helpers/fixtures';

useOfflineNock();

describe('Document types of the chosen project', () => {
	it('offers the document types of the chosen project', async () => {
		nock(BASE_URL).get('/projects').reply(200, projects);
		const types = await getDocumentTypes.call(
			loadOptionsContext({ __rl: true, mode: 'id', value: 'identity' }),
		);
		expect(types.map((t) => t.value)).toEqual(['id_card', 'passport']);
	});
});
