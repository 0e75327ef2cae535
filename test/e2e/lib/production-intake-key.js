'use strict';

/**
 * The Intake key is never stored: posts with the key (accepted), with a wrong one (403), and one
 * whose run fails (a copy of the installed workflow whose claim names a missing table); then every
 * saved execution of this n8n, read through its REST API, and n8n's logs hold the key nowhere.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const { INTAKE_KEY } = require('../../../harness/fixtures.js');
const { executionData, IS_N8N_1, rest, waitFor } = require('../../../harness/n8n.js');
const state = require('../../../harness/state.js');
const { PROD, intake, intakeDocuments, postIntake } = require('./production.js');
const { n8nBase } = require('./production-cases.js');

const FAILING_PATH = 'document-extraction-intake-failing';

/** Every execution n8n saved, newest first, page by page (2.x: by its cursor; 1.x: by the last id). */
async function allExecutions() {
	const found = [];
	let next = '';
	for (;;) {
		const data = await rest('GET', `/executions?limit=100${next}`);
		const page = data.results ?? data;
		found.push(...page);
		if (data.nextCursor) next = `&cursor=${encodeURIComponent(data.nextCursor)}`;
		else if (data.nextCursor === undefined && page.length === 100)
			next = `&lastId=${page[page.length - 1].id}`;
		else return found;
	}
}

/** The installed workflow, published again at FAILING_PATH with its claim on a missing table and no other trigger. */
async function publishFailingCopy() {
	const installed = await rest('GET', `/workflows/${PROD.id}`);
	const nodes = structuredClone(installed.nodes);
	for (const node of nodes) {
		if (node.name === 'Receive Documents') {
			node.parameters.path = FAILING_PATH;
			node.webhookId = `${node.webhookId.slice(0, -1)}f`;
		} else if (node.name === 'Claim Each Document')
			node.parameters.dataTableId = { __rl: true, mode: 'id', value: 'no-such-table' };
		else if (node.type.endsWith('Trigger') || node.type.endsWith('scheduleTrigger'))
			node.disabled = true;
	}
	const { id, versionId } = await rest('POST', '/workflows', {
		name: 'Production, its claim on a missing table',
		active: false,
		nodes,
		connections: installed.connections,
		settings: installed.settings,
	});
	if (IS_N8N_1) await rest('PATCH', `/workflows/${id}`, { active: true, versionId });
	else await rest('POST', `/workflows/${id}/activate`, { versionId });
	return id;
}

async function intakeKeyNeverStored(t) {
	const since = new Date().toISOString();
	const [accepted] = await intake(n8nBase(), intakeDocuments(1, 'KEYOK'));
	assert.equal(accepted.state, 'accepted', JSON.stringify(accepted));
	const wrong = await postIntake(
		n8nBase(),
		{ documents: intakeDocuments(1, 'KEYNO') },
		{ key: 'x' },
	);
	assert.equal(wrong.status, 403, `${wrong.status} ${wrong.text}`);
	const copy = await publishFailingCopy();
	try {
		const body = { documents: intakeDocuments(1, 'KEYFAIL') };
		const failed = await postIntake(n8nBase(), body, { intakePath: FAILING_PATH });
		// a run that fails before Respond to Webhook: n8n 2.x answers 500, 1.x 200 with no body
		const answered = failed.status >= 500 || (IS_N8N_1 && failed.text === '');
		assert.ok(answered, `the failing copy answered ${failed.status} ${failed.text}`);
	} finally {
		if (IS_N8N_1) await rest('PATCH', `/workflows/${copy}`, { active: false }).catch(() => {});
		else await rest('POST', `/workflows/${copy}/deactivate`, {}).catch(() => {});
	}
	// the copy's failed run and the accepted post's run are saved, each with Receive Documents' items
	const mine = (e) => e.startedAt >= since && [PROD.id, copy].includes(e.workflowId);
	const runs = await waitFor('the two runs to be saved', async () => {
		const found = (await allExecutions()).filter(mine);
		const ended = found.filter((e) => e.status === 'success' || e.status === 'error');
		return ended.some((e) => e.workflowId === copy && e.status === 'error') && ended;
	});
	const executions = await allExecutions();
	let items = 0;
	for (const e of executions) {
		const stored = JSON.stringify(await executionData(e.id));
		assert.ok(
			!stored.includes(INTAKE_KEY.value),
			`execution ${e.id} (${e.status}) holds the Intake key`,
		);
		if (!runs.some((r) => r.id === e.id)) continue;
		const received = (await executionData(e.id)).data.resultData.runData['Receive Documents'];
		items += received?.[0]?.data?.main?.[0]?.length ?? 0;
	}
	assert.ok(items >= 2, `Receive Documents gave ${items} items in the runs of this case`);
	const logs = fs.readdirSync(state.tmp).filter((f) => /^n8n-\d+\.log$/.test(f));
	for (const log of logs) {
		const text = fs.readFileSync(path.join(state.tmp, log), 'utf8');
		assert.ok(!text.includes(INTAKE_KEY.value), `n8n's ${log} holds the Intake key`);
	}
	t.diagnostic(
		`${executions.length} executions read (${runs.map((r) => r.status).join(', ')} in this case), ${logs.length} logs; a wrong key: ${wrong.status}`,
	);
}

module.exports = {
	intakeKeyNeverStored: {
		name: 'the Intake key is never stored: after posts with the key, with a wrong one (403) and one whose run fails, no saved execution and no log of n8n holds it',
		run: intakeKeyNeverStored,
	},
};
