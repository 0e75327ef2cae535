import nock from 'nock';

import { execute as listExecute } from '../../../../../../nodes/DocumentExtraction/actions/project/list.operation';
import { asOperation, BASE_URL, createContext, useOfflineNock } from '../../../../helpers/context';
import { projects } from '../../../../helpers/fixtures';

const list = asOperation(listExecute);

useOfflineNock();

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
