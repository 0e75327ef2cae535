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

/** Register Webhook for the project "invoices" (by name), with `extra` parameters. */
const register = (extra: Record<string, unknown> = {}) =>
	registerWebhook.call(
		createContext({
			params: {
				resource: 'project',
				operation: 'registerWebhook',
				project: { __rl: true, mode: 'id', value: 'invoices' },
				webhookUrl: 'https://crm.example.com/hooks/extraction',
				events: ['task.completed'],
				secret: '',
				...extra,
			},
		}),
	);

describe('Register Webhook', () => {
	it('resolves a project name to its id and generates a strong whsec_ secret, output once', async () => {
		nock(BASE_URL).get('/projects').reply(200, { projects });
		let body: Record<string, unknown> = {};
		nock(BASE_URL)
			.post(`/projects/${INVOICES}/webhooks`, (b) => Boolean((body = b)))
			.reply(201, { webhook_id: 'wh-1', url: 'https://crm.example.com/hooks/extraction' });
		const out = await register();
		expect(body).toMatchObject({
			url: 'https://crm.example.com/hooks/extraction',
			events: ['task.completed'],
			secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/),
		});
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
		const project = { __rl: true, mode: 'list', value: IDENTITY };
		const out = await register({ project, secret: 'whsec_mine' });
		expect(out[0].json).toMatchObject({ secret: 'whsec_mine', secretGenerated: false });
	});

	it('names the known projects when the name is unknown', async () => {
		nock(BASE_URL).get('/projects').reply(200, projects);
		const error = await failureOf(
			register({ project: { __rl: true, mode: 'id', value: 'Receipts' } }),
		);
		expect(error.message).toBe('No project named "Receipts"');
		expect(error.description).toContain(`Invoices (${INVOICES})`);
	});

	it.each([
		[{ webhookUrl: 'ftp://x.example.com' }, '"ftp://x.example.com" is not an http(s) URL'],
		[{ events: [] }, 'No event selected'],
	])('refuses %j before any request', async (extra, message) => {
		const scope = nock(BASE_URL).get(/.*/).reply(200, projects);
		const error = await failureOf(register(extra));
		expect(error.message).toBe(message);
		expect(scope.isDone()).toBe(false);
		nock.cleanAll();
	});
});
