import nock from 'nock';

import { execute as registerWebhookExecute } from '../../../../../../nodes/DocumentExtraction/actions/project/registerWebhook.operation';
import {
	asOperation,
	BASE_URL,
	createContext,
	failureOf,
	useOfflineNock,
} from '../../../../helpers/context';
import { IDENTITY, INVOICES, projects } from '../../../../helpers/fixtures';

const registerWebhook = asOperation(registerWebhookExecute);

useOfflineNock();

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
