import nock from 'nock';

import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

jest.mock('n8n-workflow', () => jest.requireActual('../../helpers/sleep').workflowWithFakeSleep());

import { sleeps } from '../../helpers/sleep';

import {
	API_KEY,
	BASE_URL,
	completedPayload,
	computeSignature,
	type Delivery,
	Host,
	NODE_NAME,
	nodeType,
	OTHER_PROJECT_ID,
	PRODUCTION_URL,
	PROJECT_ID,
	signedDelivery,
	strictNock,
} from '../../helpers/triggerHost';

const SECRET = 'whsec_' + '5e'.repeat(32);

// A 429 in one test must not slow the next one down: every test starts with no pace.
const FAILED_TASK = 'c0ffee00-1111-4222-8333-944445555666';

/** A published workflow whose registration (with SECRET) is in the stored static data. */
function registeredHost(parameters: IDataObject = {}): Host {
	const host = new Host({
		project: { __rl: true, mode: 'list', value: PROJECT_ID },
		...parameters,
	});
	host.stored = {
		[`node:${NODE_NAME}`]: {
			registration: {
				url: PRODUCTION_URL,
				projectId: PROJECT_ID,
				projectValue: PROJECT_ID,
				secret: SECRET,
				registeredAt: '2025-01-01T00:00:00.000Z',
			},
		},
	};
	return host;
}

strictNock(() => (sleeps.length = 0));

function itemsOf(result: { workflowData?: Array<Array<{ json: IDataObject }>> }) {
	return result.workflowData?.[0].map((item) => item.json);
}

describe('a signed delivery', () => {
	it('yields exactly one item with the delivered fields, answered by n8n (onReceived)', async () => {
		const host = registeredHost();
		const payload = completedPayload();
		const { result, res } = await host.receive(signedDelivery(payload, SECRET));

		expect(result.workflowData).toHaveLength(1);
		expect(itemsOf(result)).toEqual([payload]);
		// The node leaves the 200 to n8n's onReceived response.
		expect(result.noWebhookResponse).toBeUndefined();
		expect(res.statusCode).toBeUndefined();
		expect(JSON.stringify(result)).not.toContain(SECRET);
	});

	it('is checked over the raw bytes, and output with the documented fields first', async () => {
		const host = registeredHost();
		const payload = completedPayload();
		// Same data, other bytes: key order and spacing differ from JSON.stringify(payload).
		const raw = `{ "pages": 2, "timestamp": "${payload.timestamp}", "status": "complete", "event": "task.completed",
			"task_id": "${payload.task_id}", "result": {"total": 119.5, "invoice_number": "INV-001"},
			"project_id": "${PROJECT_ID}", "document_type": "invoice" }`;
		const delivery = signedDelivery(payload, SECRET, { raw });
		expect(delivery.rawBody!.equals(Buffer.from(JSON.stringify(payload)))).toBe(false);

		const [item] = itemsOf((await host.deliver(delivery)).result)!;
		expect(item).toEqual({ ...payload, pages: 2 });
		// the documented fields first, in their order; a field the service adds later after them
		expect(Object.keys(item)).toEqual([...Object.keys(payload), 'pages']);
	});

	it('reads the raw body itself when n8n has not read it (a content type n8n does not parse)', async () => {
		const payload = completedPayload({ task_id: 'unparsed-body' });
		const signed = signedDelivery(payload, SECRET, { contentType: 'application/octet-stream' });
		const delivery = {
			...signed,
			rawBody: undefined as Buffer | undefined,
			readRawBody() {
				(this as { rawBody?: Buffer }).rawBody = signed.rawBody;
			},
		};
		const { result } = await registeredHost().receive(delivery);
		expect(itemsOf(result)).toEqual([payload]);
	});
});

describe('a delivery that fails the signature check', () => {
	const payload = completedPayload();
	const unregistered = () => new Host({ project: { __rl: true, mode: 'list', value: PROJECT_ID } });
	const emptySecret = () => registeredHost({ useExistingRegistration: true, webhookSecret: '' });
	const other = 'whsec_other';
	// the variants of a bad signature are verifySignature's (signature.test.ts)
	it.each<[string, () => Host, Delivery]>([
		[
			'a tampered body',
			registeredHost,
			signedDelivery(payload, SECRET, {
				raw: JSON.stringify({ ...payload, status: 'failed' }),
				signature: computeSignature(JSON.stringify(payload), SECRET),
			}),
		],
		['no raw body', registeredHost, { ...signedDelivery(payload, SECRET), rawBody: undefined }],
		['nothing registered', unregistered, signedDelivery(payload, SECRET)],
		['nothing registered, signed with an empty key', unregistered, signedDelivery(payload, '')],
		['an empty pasted secret', emptySecret, signedDelivery(payload, '')],
		// refused before the body is looked at: not 400, an ignored event or a replay
		['a body that is not JSON', registeredHost, signedDelivery(null, other, { raw: 'not json' })],
		['another event', registeredHost, signedDelivery({ event: 'project.updated' }, other)],
		[
			'an old timestamp',
			registeredHost,
			signedDelivery(completedPayload({ timestamp: '2020-01-01T00:00:00Z' }), other),
		],
	])('is refused with 401 and starts no run: %s', async (_name, host, delivery) => {
		const { result, res } = await host().deliver(delivery);
		expect(res.statusCode).toBe(401);
		expect(res.body).toEqual({ error: 'invalid signature' });
		expect(result.noWebhookResponse).toBe(true);
		expect(result.workflowData).toBeUndefined();
	});

	it.each([
		['the same project, between the delete and create of a re-publish', PROJECT_ID, 200],
		['another project', 'Another project', 401],
	])(
		'with the secret of a retired registration for %s, answers %i',
		async (_name, project, status) => {
			const host = registeredHost();
			await host.unpublish();
			expect(host.nodeData().registration).toBeUndefined();
			host.parameters = { project: { __rl: true, mode: 'id', value: project } };
			const { result, res } = await host.deliver(signedDelivery(payload, SECRET));
			expect(res.statusCode).toBe(status);
			expect(itemsOf(result)?.length).toBe(status === 200 ? 1 : undefined);
		},
	);

	it.each([
		[
			'another project',
			{ project_id: OTHER_PROJECT_ID },
			"project_id is not the project this trigger's webhook is registered for",
		],
		[
			'no project',
			{ project_id: undefined },
			"project_id is not the project this trigger's webhook is registered for",
		],
		[
			'an empty task_id',
			{ task_id: '' },
			'task_id missing: a task.completed delivery must name its task',
		],
		[
			'no task_id',
			{ task_id: undefined },
			'task_id missing: a task.completed delivery must name its task',
		],
		[
			'a task_id that is a number',
			{ task_id: 7 },
			'task_id missing: a task.completed delivery must name its task',
		],
		[
			'a task_id of spaces',
			{ task_id: '   ' },
			'task_id missing: a task.completed delivery must name its task',
		],
	])(
		'correctly signed but naming %s, is refused with 400 and starts no run',
		async (_name, fields, error) => {
			const payload = completedPayload({ task_id: 'for-another-project', ...fields });
			const { result, res } = await registeredHost().deliver(signedDelivery(payload, SECRET));
			expect([res.statusCode, res.body, result.workflowData]).toEqual([400, { error }, undefined]);
		},
	);

	it('compares the project_id regardless of case', async () => {
		const payload = completedPayload({
			task_id: 'upper-case',
			project_id: PROJECT_ID.toUpperCase(),
		});
		const { result } = await registeredHost().deliver(signedDelivery(payload, SECRET));
		expect(itemsOf(result)).toHaveLength(1);
	});

	it('is acknowledged with 200 and ignored when it is another event', async () => {
		const host = registeredHost();
		const { result, res } = await host.deliver(
			signedDelivery(completedPayload({ event: 'project.updated' }), SECRET),
		);
		expect(res.statusCode).toBe(200);
		expect(result.noWebhookResponse).toBe(true);
		expect(result.workflowData).toBeUndefined();
	});
});

describe('duplicates', () => {
	const immediateSleep = jest.mocked(sleep).getMockImplementation()!;
	/** Waits on copies last until their wait is aborted: the earlier copy's answer decides. */
	function holdCopyWaits() {
		jest
			.mocked(sleep)
			.mockImplementation(
				async (_ms: number, signal?: AbortSignal) =>
					await new Promise<void>((_resolve, reject) =>
						signal?.addEventListener('abort', () => reject(new Error('aborted'))),
					),
			);
	}
	afterEach(() => {
		jest.mocked(sleep).mockImplementation(immediateSleep);
	});

	it('emits a task outcome once, across loads of the workflow, writing nothing to static data', async () => {
		const host = registeredHost();
		const [stored, saves] = [JSON.stringify(host.stored), host.saves];
		const delivery = signedDelivery(completedPayload(), SECRET);
		expect(itemsOf((await host.deliver(delivery)).result)).toHaveLength(1);

		const again = await host.deliver(delivery);
		expect(again.res.statusCode).toBe(200);
		expect(again.result.workflowData).toBeUndefined();
		// n8n saves nothing per delivery
		expect(host.saves).toBe(saves);
		expect(JSON.stringify(host.stored)).toBe(stored);

		// Another outcome of the task, another task, or another workflow is not a repeat.
		const failed = completedPayload({ status: 'failed', result: null, error: 'Scan unreadable' });
		const others: Array<[Host, IDataObject]> = [
			[host, failed],
			[host, completedPayload({ task_id: 'another-task' })],
			[registeredHost(), completedPayload()],
		];
		for (const [target, payload] of others) {
			expect(itemsOf((await target.deliver(signedDelivery(payload, SECRET))).result)).toHaveLength(
				1,
			);
		}
	});

	it('starts one run for copies arriving together, each acknowledged once the first is answered', async () => {
		holdCopyWaits();
		const host = registeredHost();
		const delivery = signedDelivery(completedPayload({ task_id: 'together' }), SECRET);
		const first = await host.receive(delivery);
		expect(itemsOf(first.result)).toHaveLength(1);
		// n8n has not answered the first copy yet: the others wait for it
		let answered = 0;
		const copies = [host.receive(delivery), host.receive(delivery)].map((p) =>
			p.then((copy) => {
				answered++;
				return copy;
			}),
		);
		await Promise.resolve();
		await Promise.resolve();
		expect(answered).toBe(0);
		first.res.status(200).json({ message: 'Workflow was started' });
		for (const copy of await Promise.all(copies)) {
			expect(copy.res.statusCode).toBe(200);
			expect(copy.res.body).toEqual({ received: true, ignored: 'duplicate delivery' });
			expect(copy.result.workflowData).toBeUndefined();
		}
	});

	it('lets a retry start the run when n8n could not start it for the first copy', async () => {
		holdCopyWaits();
		const host = registeredHost();
		const delivery = signedDelivery(completedPayload({ task_id: 'first-failed' }), SECRET);
		const first = await host.receive(delivery);
		const waiting = host.receive(delivery);
		// n8n answers the first copy with an error: no run was created
		first.res.status(500).json({ message: 'Error in workflow' });
		const copy = await waiting;
		expect(itemsOf(copy.result)).toHaveLength(1);
		copy.res.status(200).json({ message: 'Workflow was started' });
		const later = await host.deliver(delivery);
		expect(later.result.workflowData).toBeUndefined();
	});

	it.each([
		['before the answer', false],
		['before the node looked', true],
	])('counts a delivery whose sender hung up %s as started', async (_name, before) => {
		holdCopyWaits();
		const host = registeredHost();
		const delivery = signedDelivery(completedPayload({ task_id: `gone-${before}` }), SECRET);
		const { context, res } = host.webhook(host.load(), delivery);
		if (before) res.drop();
		expect(itemsOf(await nodeType.webhook.call(context))).toHaveLength(1);
		if (!before) res.drop();
		// the retry is a duplicate at once, not left waiting on a 'close' that is past
		const retry = await host.deliver(delivery);
		expect(retry.res.body).toEqual({ received: true, ignored: 'duplicate delivery' });
	});

	it('asks a copy to come again (503) when the first is still unanswered after 5 s', async () => {
		jest.mocked(sleep).mockImplementation(async (ms: number) => void sleeps.push(ms));
		const host = registeredHost();
		const delivery = signedDelivery(completedPayload({ task_id: 'slow-first' }), SECRET);
		await host.receive(delivery);
		const copy = await host.deliver(delivery);
		expect(copy.res.statusCode).toBe(503);
		expect(copy.result.workflowData).toBeUndefined();
		expect(sleeps.some((ms) => ms >= 4_900 && ms <= 5_000)).toBe(true);
	});
});

describe('status filter', () => {
	const complete = completedPayload();
	const failed = completedPayload({
		task_id: FAILED_TASK,
		status: 'failed',
		result: null,
	});
	const noLookup = { fetchErrorDetails: false };

	it.each([
		['both', [true, true]],
		['complete', [true, false]],
		['failed', [false, true]],
	] as const)('"%s" lets through the expected outcomes', async (statusFilter, expected) => {
		const host = registeredHost({ options: { statusFilter, ...noLookup } });
		const outcomes = [];
		for (const payload of [complete, failed]) {
			const { result, res } = await host.deliver(signedDelivery(payload, SECRET));
			outcomes.push(result.workflowData !== undefined);
			if (result.workflowData === undefined) expect(res.statusCode).toBe(200);
		}
		expect(outcomes).toEqual(expected);
	});

	it.each(['processing', 'queued', '', null, 'Complete', 'complete '])(
		'lets no status but complete or failed through, whatever the option: %p',
		async (status) => {
			const host = registeredHost({ options: { ...noLookup } });
			const payload = completedPayload({ task_id: `status-${String(status)}`, status });
			const { result, res } = await host.deliver(signedDelivery(payload, SECRET));
			expect([res.statusCode, result.workflowData]).toEqual([200, undefined]);
		},
	);

	it('counts a task_id once whatever its case and the spaces around it', async () => {
		const host = registeredHost({ options: { ...noLookup } });
		const runs = [];
		for (const task_id of ['case-task', 'CASE-TASK', ' case-task ']) {
			const payload = completedPayload({ task_id });
			runs.push(
				(await host.deliver(signedDelivery(payload, SECRET))).result.workflowData !== undefined,
			);
		}
		expect(runs).toEqual([true, false, false]);
	});
});

describe('error details of failed tasks', () => {
	const failed = completedPayload({ task_id: FAILED_TASK, status: 'failed', result: null });

	it('adds the error from GET /task_status, after answering the service', async () => {
		const host = registeredHost();
		const workflow = host.load();
		const call = host.webhook(workflow, signedDelivery(failed, SECRET));
		let answeredFirst: number | undefined;
		nock(BASE_URL, { reqheaders: { authorization: `Bearer ${API_KEY}` } })
			.get(`/task_status/${FAILED_TASK}`)
			.reply(() => {
				answeredFirst = call.res.statusCode;
				return [200, { task_id: FAILED_TASK, status: 'failed', error: 'Page 2 is unreadable' }];
			});

		const result = await nodeType.webhook.call(call.context);

		expect(answeredFirst).toBe(200);
		expect(result.noWebhookResponse).toBe(true);
		expect(itemsOf(result)).toEqual([{ ...failed, error: 'Page 2 is unreadable' }]);
	});

	it("masks the trigger's own secret, with or without whsec_, in the error the service gives", async () => {
		const tail = SECRET.replace(/^whsec_/, '');
		nock(BASE_URL)
			.get(`/task_status/${FAILED_TASK}`)
			.reply(200, { status: 'failed', error: `bad ${tail.toUpperCase()} and ${SECRET}` });
		const { result } = await registeredHost().deliver(signedDelivery(failed, SECRET));
		expect(itemsOf(result)?.[0]?.error).toBe('bad … and …');
	});

	const lookup = () => nock(BASE_URL).get(`/task_status/${FAILED_TASK}`);
	it.each<[string, () => unknown, IDataObject, IDataObject]>([
		[
			'the lookup fails',
			() => lookup().reply(404, { detail: 'Task not found' }),
			failed,
			{
				errorDetailsUnavailable:
					'Could not fetch the error message: Not found (404): Task not found',
				errorLookupDetail: 'Task not found',
			},
		],
		[
			'the service rate-limits the lookup (a long Retry-After is never waited out)',
			() => lookup().reply(429, { detail: 'slow down' }, { 'Retry-After': '60' }),
			failed,
			{
				errorDetailsUnavailable: expect.stringMatching(/^Could not fetch .*kept rate-limiting/),
				errorLookupDetail: 'slow down',
			},
		],
		[
			'the service keeps failing, after two lookup attempts',
			() => lookup().times(2).reply(500, { detail: 'boom' }),
			failed,
			{
				errorDetailsUnavailable: expect.stringMatching(/server error \(500\) after 2 attempts/),
				errorLookupDetail: 'boom',
			},
		],
		[
			'the task has no error',
			() => lookup().reply(200, { status: 'failed' }),
			failed,
			{ errorDetailsUnavailable: 'The service gave no error message for this task' },
		],
	])('still emits the delivery, with a note, when %s', async (_name, arrange, payload, added) => {
		arrange();
		const { result, res } = await registeredHost().deliver(signedDelivery(payload, SECRET));
		expect(res.statusCode).toBe(200);
		expect(itemsOf(result)).toEqual([{ ...payload, ...added }]);
		expect(sleeps.every((ms) => ms <= 1000)).toBe(true);
	});

	it.each([
		['Fetch Error Details is off', failed, { fetchErrorDetails: false }],
		['the task is complete', completedPayload(), {}],
		['the delivery carries the error', { ...failed, error: 'Delivered message' }, {}],
	])('makes no request when %s', async (_name, payload, options) => {
		const { result } = await registeredHost({ options }).deliver(signedDelivery(payload, SECRET));
		expect(itemsOf(result)).toEqual([payload]);
	});
});

describe('Use Existing Registration', () => {
	const PASTED = 'whsec_' + '7c'.repeat(32);

	it('verifies with the pasted secret only, and never outputs it', async () => {
		const host = registeredHost({ useExistingRegistration: true, webhookSecret: PASTED });
		const ok = await host.deliver(signedDelivery(completedPayload(), PASTED));
		expect(itemsOf(ok.result)).toHaveLength(1);
		expect(JSON.stringify(ok.result)).not.toContain(PASTED);

		// The secret of the node's own (stored) registration is not accepted in this mode.
		const stored = await host.deliver(signedDelivery(completedPayload({ task_id: 'x' }), SECRET));
		expect(stored.res.statusCode).toBe(401);
	});
});
