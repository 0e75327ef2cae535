import nock from 'nock';

import { execute as listExecute } from '../../../../../../nodes/DocumentExtraction/actions/project/list.operation';
import { asOperation, BASE_URL, createContext, useOfflineNock } from '../../../../helpers/context';
import { projects } from '../../../../helpers/fixtures';

const list = asOperation(listExecute);

useOfflineNock();

describe('List Projects', () => {
	const two = projects.map((json) => ({ json, pairedItem: { item: 0 } }));
	it.each([
		['a bare array', projects, two],
		['{ projects }', { projects }, two],
		['{ items }', { items: projects }, two],
		['{ data }', { data: projects }, two],
		['{ results }', { results: projects, total: 2 }, two],
		[
			'an unreadable answer, whole',
			{ account: 'acme', count: 2 },
			[{ json: { account: 'acme', count: 2 }, pairedItem: { item: 0 } }],
		],
		['a non-object answer, wrapped', 'ok', [{ json: { response: 'ok' }, pairedItem: { item: 0 } }]],
	])('outputs the projects of %s', async (_shape, body, output) => {
		nock(BASE_URL)
			.get('/projects')
			.reply(200, JSON.stringify(body), { 'Content-Type': 'application/json' });
		const ctx = createContext({ params: { resource: 'project', operation: 'list' } });
		expect(await list.call(ctx)).toEqual(output);
	});
});
