'use strict';

/**
 * A delivery replayed after more than 10,000 other signed deliveries to the same n8n process is
 * still refused (the memory of deliveries keeps the whole hour, docs/trigger.md#duplicates).
 * Two triggers with pasted secrets (Use Existing Registration): the flood goes to one whose
 * successful runs n8n does not keep, the replay to the other. n8n runs with its lazy isolate
 * setting, which only makes deliveries cheaper (docs/performance.md, P4). Not on n8n 1.x: it
 * creates about 4–5 runs a second on this 2-CPU machine (its SQLite writer queues up and its heap
 * grows past 2 GB within minutes), so 10,050 runs would take 40 minutes; the memory under test is
 * the trigger's own code, the same in both versions (unit tests and bench P9).
 */

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { sign } = require('../../../emulator/lib/outbound.js');
const { ACTION, CRED } = require('../../../harness/fixtures.js');
const {
	n8nCliOk,
	skipOnN8n1,
	startN8n,
	stopN8n,
	waitPublished,
} = require('../../../harness/n8n.js');
const { node, workflow } = require('../../../harness/workflows.js');
const { waitWebhookLive } = require('../lib/emulator-client.js');
const { deliveryBody, inPool, post, settledExecutionTotal } = require('../lib/deliveries.js');
const { countBy } = require('../lib/production.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const OTHERS = Number(process.env.E2E_REPLAY_OTHERS || 10050);
const CONCURRENCY = Number(process.env.E2E_REPLAY_CONCURRENCY || 16);
const TARGET = { id: 'E2eReplayTarget1', secret: `whsec_${'1a'.repeat(24)}` };
const FLOOD = { id: 'E2eReplayFlood01', secret: `whsec_${'2b'.repeat(24)}` };

/** Trigger (pasted secret) → No Op; the webhook's production URL once n8n runs. */
function triggerWorkflow({ id, secret }, settings = {}) {
	const webhookId = crypto.randomUUID();
	const trigger = node(
		'Document Extraction Trigger',
		`${ACTION}Trigger`,
		1.1,
		{ useExistingRegistration: true, webhookSecret: secret, options: {} },
		{ credentials: CRED, webhookId },
	);
	const wf = workflow(id, `e2e: replay (${id})`, [
		trigger,
		node('Done', 'n8n-nodes-base.noOp', 1, {}),
	]);
	Object.assign(wf.settings, settings);
	return { wf, url: () => `http://127.0.0.1:${state.n8nPort}/webhook/${webhookId}/webhook` };
}

/** One signed POST; the status and the answer's body. */
async function deliver(url, body, secret) {
	const res = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'x-service-signature': sign(secret, body) },
		body,
		signal: AbortSignal.timeout(10000),
	});
	return { status: res.status, body: await res.text() };
}

// 3 to 4 minutes on n8n 2.x: run with E2E_REPLAY=1 (npm test keeps to CI's 30 minutes without it;
// the unit tests of the trigger and bench P9 prove the same memory past 10,000 and at 200,000)
const WHEN_ASKED =
	process.env.E2E_REPLAY === '1'
		? skipOnN8n1('10,050 runs take about 40 minutes in n8n 1.x here')
		: { skip: 'set E2E_REPLAY=1 to run it (3 to 4 minutes)' };

test(
	'Trigger replay: a copy sent after 10,050 other signed deliveries starts no second run',
	WHEN_ASKED,
	async (t) => {
		const target = triggerWorkflow(TARGET);
		const flood = triggerWorkflow(FLOOD, { saveDataSuccessExecution: 'none' });
		await stopN8n();
		const dir = path.join(state.tmp, 'replay-workflows');
		fs.mkdirSync(dir, { recursive: true });
		for (const { wf } of [target, flood]) {
			fs.writeFileSync(path.join(dir, `${wf.id}.json`), JSON.stringify(wf));
		}
		await n8nCliOk(['import:workflow', '--separate', `--input=${dir}`]);
		for (const { wf } of [target, flood]) await n8nCliOk(['publish:workflow', `--id=${wf.id}`]);
		await startN8n({ N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' });
		for (const { wf, url } of [target, flood]) {
			await waitPublished(wf.id);
			await waitWebhookLive(url());
		}

		const body = deliveryBody();
		const first = await deliver(target.url(), body, TARGET.secret);
		assert.equal(first.status, 200, first.body);
		const started = Date.now();
		// each other delivery until n8n acknowledged it (a loaded n8n may time out one)
		const statuses = await inPool(Array.from({ length: OTHERS }), CONCURRENCY, async () => {
			const other = deliveryBody();
			let status = 0;
			for (let attempt = 0; attempt < 3 && status !== 200; attempt++) {
				status = await post(flood.url(), other, FLOOD.secret);
			}
			return status;
		});
		const seconds = ((Date.now() - started) / 1000).toFixed(0);
		const tally = JSON.stringify(countBy(statuses, String));
		assert.ok(
			statuses.every((s) => s === 200),
			`other deliveries answered ${tally}`,
		);

		const replay = await deliver(target.url(), body, TARGET.secret);
		assert.equal(
			await settledExecutionTotal(TARGET.id, 1),
			1,
			`the replay started a run: ${replay.body}`,
		);
		assert.deepEqual(
			[replay.status, replay.body],
			[200, JSON.stringify({ received: true, ignored: 'duplicate delivery' })],
		);
		t.diagnostic(
			`${OTHERS} other deliveries in ${seconds} s (${tally}); the replay: ${replay.body}`,
		);
	},
);
