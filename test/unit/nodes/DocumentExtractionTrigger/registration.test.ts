import nock from 'nock';

import type { IDataObject } from 'n8n-workflow';

jest.mock('n8n-workflow', () => jest.requireActual('../../helpers/sleep').workflowWithFakeSleep());

import { sleeps } from '../../helpers/sleep';

import {
	API_KEY,
	BASE_URL,
	completedPayload,
	Host,
	NODE_NAME,
	nodeType,
	OTHER_PROJECT_ID,
	PRODUCTION_URL,
	PROJECT_ID,
	signedDelivery,
	TEST_URL,
	strictNock,
} from '../../helpers/triggerHost';

const SECRET_PATTERN = /^whsec_[0-9a-f]{64}$/;
const methods = nodeType.webhookMethods.default;

type Registered = { url: string; events: string[]; secret: string };

/** Expects one POST /projects/{id}/webhooks and records what was sent. */
function expectRegistration(projectId: string, reply: IDataObject = { id: 'wh_1' }) {
	const sent: Registered[] = [];
	nock(BASE_URL, { reqheaders: { authorization: `Bearer ${API_KEY}` } })
		.post(`/projects/${projectId}/webhooks`, (body: Registered) => sent.push(body) > 0)
		.reply(201, (_uri, body) => ({ ...reply, ...(body as IDataObject) }));
	return sent;
}

const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const fromList = (value: string) => ({ __rl: true, mode: 'list', value });

strictNock(() => (sleeps.length = 0));

describe('create → checkExists → delete on one static-data object', () => {
	it('registers task.completed with a fresh secret, finds it, then forgets it', async () => {
		const host = new Host({ project: fromList(PROJECT_ID) });
		const workflow = host.load();
		const ctx = host.hook(workflow);
		const staticData = workflow.getStaticData('node', workflow.getNode(NODE_NAME)!);

		const sent = expectRegistration(PROJECT_ID, { id: 'wh_42', secret: 'echoed' });
		expect(await methods.checkExists.call(ctx)).toBe(false);
		expect(await methods.create.call(ctx)).toBe(true);

		expect(sent).toHaveLength(1);
		expect(sent[0].url).toBe(PRODUCTION_URL);
		expect(sent[0].events).toEqual(['task.completed']);
		expect(sent[0].secret).toMatch(SECRET_PATTERN);

		const registration = staticData.registration as IDataObject;
		expect(registration).toMatchObject({
			url: PRODUCTION_URL,
			projectId: PROJECT_ID,
			secret: sent[0].secret,
		});
		// Nothing of the service's answer is kept: it may echo the secret back.
		expect(Object.keys(registration).sort()).toEqual(
			['projectId', 'projectValue', 'registeredAt', 'secret', 'url'].sort(),
		);
		expect((workflow.staticData as IDataObject).__dataChanged).toBe(true);

		expect(await methods.checkExists.call(ctx)).toBe(true);

		expect(await methods.delete.call(ctx)).toBe(true);
		expect(staticData.registration).toBeUndefined();
		expect(await methods.checkExists.call(ctx)).toBe(false);
		// nothing registered: delete succeeds all the same
		expect(await methods.delete.call(ctx)).toBe(true);
	});
});

describe('Register Again on Next Publish (a webhook deleted in the dashboard)', () => {
	it('registers anew once, then reuses the new registration; off again, it is kept', async () => {
		const first = expectRegistration(PROJECT_ID);
		const host = new Host({ project: fromList(PROJECT_ID) });
		await host.publish();
		await host.unpublish();
		// (the webhook is deleted in the dashboard here)

		const second = expectRegistration(PROJECT_ID, { id: 'wh_2' });
		host.parameters = { project: fromList(PROJECT_ID), options: { registerAgain: true } };
		await host.publish();
		expect(second).toHaveLength(1);
		expect(second[0].secret).not.toBe(first[0].secret);
		expect(host.secret).toBe(second[0].secret);
		expect(host.nodeData().registration).toMatchObject({ registeredAgain: true });

		// publishing again with the option still on reuses the new registration
		await host.unpublish();
		await host.publish();
		expect(host.secret).toBe(second[0].secret);

		// with the option off, it is kept and no longer marked
		host.parameters = { project: fromList(PROJECT_ID) };
		await host.unpublish();
		await host.publish();
		expect(host.secret).toBe(second[0].secret);
		expect(host.nodeData().registration).not.toHaveProperty('registeredAgain');

		// deliveries signed with the new secret start runs; the old secret's are refused
		const { result } = await host.deliver(signedDelivery(completedPayload(), second[0].secret));
		expect(result.workflowData?.[0]).toHaveLength(1);
		const old = await host.deliver(
			signedDelivery(completedPayload({ task_id: 'other' }), first[0].secret),
		);
		expect(old.res.statusCode).toBe(401);
	});
});

describe('publishing again', () => {
	it.each<[string, IDataObject, (host: Host) => Promise<void>]>([
		['n8n restarts', {}, async (host) => await host.publish()],
		[
			'n8n restarts, Register Again on',
			{ registerAgain: true },
			async (host) => await host.publish(),
		],
		[
			'n8n removes and adds the webhook (re-publish)',
			{},
			async (host) => {
				await host.unpublish();
				await host.publish();
			},
		],
	])('does not register again when %s', async (_name, options, again) => {
		const sent = expectRegistration(PROJECT_ID);
		const host = new Host({ project: fromList(PROJECT_ID), options });
		await host.publish();
		await again(host);
		expect(sent).toHaveLength(1);
		expect(host.secret).toBe(sent[0].secret);
		const { result } = await host.deliver(signedDelivery(completedPayload(), host.secret));
		expect(result.workflowData?.[0]).toHaveLength(1);
	});

	it('registers the new URL when the webhook URL changes, and can go back', async () => {
		const first = expectRegistration(PROJECT_ID);
		const host = new Host({ project: fromList(PROJECT_ID) });
		await host.publish(PRODUCTION_URL);

		const moved = 'https://automation.example.org/webhook/0b7e6c1d/webhook';
		const before = JSON.stringify(host.stored);
		const workflow = host.load();
		expect(await methods.checkExists.call(host.hook(workflow, moved))).toBe(false);
		// checkExists changes nothing.
		expect((workflow.staticData as IDataObject).__dataChanged).toBe(false);
		expect(JSON.stringify(workflow.staticData)).toBe(before);

		const second = expectRegistration(PROJECT_ID);
		await host.unpublish(PRODUCTION_URL);
		await host.publish(moved);
		expect(second).toHaveLength(1);
		expect(second[0].url).toBe(moved);
		expect(second[0].secret).not.toBe(first[0].secret);
		expect(host.secret).toBe(second[0].secret);

		// Back on the first URL, its registration (still live at the service) is used again.
		await host.unpublish(moved);
		await host.publish(PRODUCTION_URL);
		expect(host.secret).toBe(first[0].secret);
	});

	it('registers at the new project when the project changes, and refuses the old secret', async () => {
		const first = expectRegistration(PROJECT_ID);
		const host = new Host({ project: fromList(PROJECT_ID) });
		await host.publish();

		host.parameters = { project: byId(OTHER_PROJECT_ID) };
		const workflow = host.load();
		expect(await methods.checkExists.call(host.hook(workflow))).toBe(false);

		const second = expectRegistration(OTHER_PROJECT_ID);
		await host.unpublish();
		await host.publish();
		expect(second).toHaveLength(1);
		expect(host.nodeData().registration).toMatchObject({
			projectId: OTHER_PROJECT_ID,
			secret: second[0].secret,
		});
		expect(second[0].secret).not.toBe(first[0].secret);
		// (while a workflow is unpublished n8n answers 404 itself: the node never sees those)
		const { res } = await host.deliver(signedDelivery(completedPayload(), first[0].secret));
		expect(res.statusCode).toBe(401);
	});

	it('looks a project name up once, and again only when the field changes', async () => {
		nock(BASE_URL)
			.get('/projects')
			.reply(200, [{ project_id: PROJECT_ID, name: 'Invoices' }]);
		const sent = expectRegistration(PROJECT_ID);
		const host = new Host({ project: byId('Invoices') });
		await host.publish();
		expect(sent).toHaveLength(1);
		expect(host.nodeData().registration).toMatchObject({ projectId: PROJECT_ID });

		// Same field value: no request at all (nock would report an unmatched GET).
		await host.publish();

		// The field now holds the ID the name resolved to: still no request.
		host.parameters = { project: fromList(PROJECT_ID) };
		expect(await methods.checkExists.call(host.hook(host.load()))).toBe(true);

		// Another spelling of the name: looked up, same project, so nothing new is registered.
		host.parameters = { project: byId('invoices') };
		nock(BASE_URL)
			.get('/projects')
			.reply(200, [{ project_id: PROJECT_ID, name: 'Invoices' }]);
		expect(await methods.checkExists.call(host.hook(host.load()))).toBe(true);
	});
});

describe('Use Existing Registration', () => {
	it('never calls the service and never stores a registration', async () => {
		const host = new Host({
			project: byId('Invoices'),
			useExistingRegistration: true,
			webhookSecret: 'whsec_pasted',
		});
		const ctx = host.hook(host.load());
		expect(await methods.create.call(ctx)).toBe(true);
		expect(await methods.delete.call(ctx)).toBe(true);
		// publish: checkExists says true, so n8n never calls create
		await host.publish();
		await host.unpublish();
		expect(host.nodeData().registration).toBeUndefined();
		// afterEach: no request reached nock, matched or not.
	});
});

describe('test webhooks (Listen for test event)', () => {
	/** n8n's TestWebhooks: empty static data, kept with the listen for its webhook calls and delete. */
	async function listen(host: Host) {
		const workflow = host.load({});
		const ctx = host.hook(workflow, TEST_URL);
		if (!(await methods.checkExists.call(ctx))) await methods.create.call(ctx);
		return workflow.staticData as IDataObject;
	}

	it('registers the test URL per listen; the delivery is verified with that listen’s secret', async () => {
		const host = new Host({ project: fromList(PROJECT_ID) });
		const sent = expectRegistration(PROJECT_ID);
		const testStaticData = await listen(host);
		expect(sent).toHaveLength(1);
		expect(sent[0].url).toBe(TEST_URL);

		const running = host.load({});
		running.setTestStaticData(testStaticData);
		const { context } = host.webhook(running, signedDelivery(completedPayload(), sent[0].secret));
		const result = await nodeType.webhook.call(context);
		expect(result.workflowData?.[0]).toHaveLength(1);

		const closing = host.load({});
		closing.staticData = testStaticData;
		expect(await methods.delete.call(host.hook(closing, TEST_URL))).toBe(true);

		// The production static data never saw the test registration.
		expect(host.stored).toEqual({});

		// n8n starts every listen with empty static data, so the next listen registers again.
		const again = expectRegistration(PROJECT_ID);
		await listen(host);
		expect(again).toHaveLength(1);
		expect(again[0].secret).not.toBe(sent[0].secret);
	});
});
