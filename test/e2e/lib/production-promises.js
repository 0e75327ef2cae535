'use strict';

/**
 * The production workflow's printed promises, one case each, on the workflow as installed by
 * cases/production.test.js (shared state `prod`): Intake refuses strangers, a row whose upload may
 * have arrived is reported, a status request that keeps failing ends overdue and is reported once,
 * a repeat post keeps the first post's context, re-posts do not hide stuck rows, the task_id an
 * upload returns is recorded whatever the row's status, and a post without documents is answered.
 */

const assert = require('node:assert/strict');

const { sleep } = require('../../../harness/fixtures.js');
const { IS_N8N_1, rest, waitFor } = require('../../../harness/n8n.js');
const { addFault, clearFaults, emulatorTasks, emulatorStats } = require('./emulator-client.js');
const {
	readExample,
	tableRows,
	updateRow,
	sinkCalls,
	callsPerTask,
	emulatorSettings,
	intakeDocuments,
	intake,
	postIntake,
} = require('./production.js');
const { CATCH_UP_S, PROCESSING_MS, prod, n8nBase, alerts } = require('./production-cases.js');

const rowsOf = async (fileNames) =>
	(await tableRows(prod.table)).filter((r) => fileNames.includes(r.file_name));
const alertsFor = async (fileNames) =>
	(await alerts()).filter((c) => fileNames.includes(c.body?.file_name));
const taskCount = async () => (await emulatorTasks()).length;
const minutesAgo = (m) => new Date(Date.now() - m * 60000).toISOString();

/** Waits for the rows of `fileNames` to satisfy `check` (their rows as an array). */
async function rowsUntil(what, fileNames, check, timeoutMs = 90000) {
	let rows = [];
	await waitFor(
		() => `${what} (${JSON.stringify(rows.map((r) => [r.file_name, r.status]))})`,
		async () => {
			rows = await rowsOf(fileNames);
			return rows.length === fileNames.length && check(rows);
		},
		timeoutMs,
		500,
	);
	return rows;
}

const cases = {
	strangers: {
		name: 'Intake refuses strangers: a post without the Intake Key, or with a wrong one, is answered 403 and creates no row and no task; a copy imported without the credential accepts no post',
		async run(t) {
			const [doc] = intakeDocuments(1, 'STRANGER');
			const rowsBefore = (await tableRows(prod.table)).length;
			const tasksBefore = await taskCount();
			const none = await postIntake(n8nBase(), { documents: [doc] }, { key: null });
			const wrong = await postIntake(n8nBase(), { documents: [doc] }, { key: 'guessed-value' });
			assert.equal(none.status, 403, `without the key: ${none.status} ${none.text}`);
			assert.equal(wrong.status, 403, `with a wrong key: ${wrong.status} ${wrong.text}`);

			// the file as shipped, without the Intake Key credential on this n8n (its own path)
			const shipped = readExample();
			const receive = shipped.nodes.find((n) => n.name === 'Receive Documents');
			receive.parameters.path = 'document-extraction-intake-uncredentialed';
			receive.webhookId = `${receive.webhookId.slice(0, -1)}d`;
			const trigger = shipped.nodes.find((n) => n.type.endsWith('documentExtractionTrigger'));
			shipped.nodes = shipped.nodes.filter((n) => n !== trigger);
			delete shipped.connections[trigger.name];
			const created = await rest('POST', '/workflows', {
				name: 'Production, imported without its Intake Key',
				active: false,
				nodes: shipped.nodes,
				connections: shipped.connections,
				settings: shipped.settings,
			});
			let published = 'refused';
			try {
				if (IS_N8N_1)
					await rest('PATCH', `/workflows/${created.id}`, {
						active: true,
						versionId: created.versionId,
					});
				else
					await rest('POST', `/workflows/${created.id}/activate`, {
						versionId: created.versionId,
					});
				published = 'published';
			} catch (error) {
				published = `refused: ${error.message.slice(0, 160)}`;
			}
			await sleep(1500);
			const uncredentialed = await postIntake(
				n8nBase(),
				{ documents: [doc] },
				{ intakePath: 'document-extraction-intake-uncredentialed' },
			);
			assert.ok(
				uncredentialed.status >= 400,
				`the copy without the credential answered ${uncredentialed.status} ${uncredentialed.text}`,
			);
			await sleep(1000);
			assert.equal((await tableRows(prod.table)).length, rowsBefore, 'a refused post made a row');
			assert.equal(await taskCount(), tasksBefore, 'a refused post made a task');
			t.diagnostic(
				`no key: ${none.status}; wrong key: ${wrong.status}; imported without the credential: ${published}, its post ${uncredentialed.status}; rows and tasks unchanged`,
			);
			if (!IS_N8N_1) await rest('POST', `/workflows/${created.id}/deactivate`, {}).catch(() => {});
		},
	},

	uploadMayHaveArrived: {
		name: 'an upload a gateway answered 502 (no task at the service): its row becomes possibly_sent and is reported once',
		async run(t) {
			const docs = intakeDocuments(1, 'GATEWAY');
			const names = docs.map((d) => d.file_name);
			await addFault({ endpoint: 'process_file', status: 502, count: 10 });
			let answer;
			try {
				[answer] = await intake(n8nBase(), docs);
			} finally {
				await clearFaults();
			}
			assert.equal(answer.state, 'accepted', JSON.stringify(answer));
			assert.equal(answer.status, 'possibly_sent', JSON.stringify(answer));
			await rowsUntil('the row to be possibly_sent', names, (r) => r[0].status === 'possibly_sent');
			await waitFor('the row to be reported', async () => (await alertsFor(names)).length > 0);
			await sleep((CATCH_UP_S + 2) * 1000);
			const told = await alertsFor(names);
			t.diagnostic(`answer ${answer.state} / ${answer.status}; messages ${told.length}`);
			assert.equal(told.length, 1, `messages: ${JSON.stringify(told.map((c) => c.body))}`);
			assert.equal(told[0].body.status, 'possibly_sent');
			assert.ok(told[0].body.what_to_do, 'the message has no what_to_do');
			// the remedy the message gives: no unmatched row and no task in the dashboard (the
			// gateway never reached the service): clear the status, and the catch-up sends it
			assert.deepEqual(
				(await tableRows(prod.table)).filter((r) => r.status === 'unmatched'),
				[],
				'an unmatched row appeared',
			);
			const [row] = await rowsOf(names);
			await updateRow(prod.table, row.id, { status: null });
			const [done] = await rowsUntil(
				'the cleared row to be sent and done',
				names,
				(r) => r[0].status === 'done',
			);
			t.diagnostic(
				`cleared as the message says: sent again, ${done.status} with task ${done.task_id}`,
			);
		},
	},

	statusFails: {
		name: 'a status request that keeps failing (402): after overdue_minutes the row is overdue, reported once with its kind, and asked no more',
		async run(t) {
			await emulatorSettings({ processing_ms: 120000 });
			const docs = intakeDocuments(1, 'ASKFAIL');
			const names = docs.map((d) => d.file_name);
			let taskId;
			try {
				[{ task_id: taskId }] = await intake(n8nBase(), docs);
			} finally {
				await emulatorSettings({ processing_ms: PROCESSING_MS });
			}
			await addFault({ endpoint: 'task_status', status: 402, count: 100000 });
			try {
				// the row has been pending for longer than overdue_minutes (30 in the file)
				const [row] = await rowsOf(names);
				await updateRow(prod.table, row.id, { status_changed_at: minutesAgo(31) });
				const [overdue] = await rowsUntil(
					'the row to be overdue',
					names,
					(r) => r[0].status === 'overdue',
				);
				assert.match(String(overdue.note), /^refused: /, overdue.note);
				await waitFor('the row to be reported', async () => (await alertsFor(names)).length > 0);
				const polls = async () => (await emulatorStats()).status_polls_by_task?.[taskId] ?? 0;
				const asked = await polls();
				await sleep((CATCH_UP_S + 2) * 1000);
				const told = await alertsFor(names);
				const askedAfter = await polls();
				t.diagnostic(
					`status requests while failing: ${asked}, after overdue: ${askedAfter - asked}; messages ${told.length}; note: ${overdue.note}`,
				);
				assert.equal(told.length, 1, `messages: ${JSON.stringify(told.map((c) => c.body))}`);
				assert.equal(told[0].body.status, 'overdue');
				assert.match(String(told[0].body.note), /^refused: /);
				assert.equal(askedAfter, asked, 'an overdue row was asked again');
			} finally {
				await clearFaults();
			}
		},
	},

	contextStands: {
		name: 'a repeat post with less context is answered already_known and changes nothing: the downstream step gets the first post’s customer and file name',
		async run(t) {
			await emulatorSettings({ processing_ms: 6000 });
			const docs = intakeDocuments(4, 'CONTEXT').map((d) => ({ key: d.file_name, ...d }));
			let first;
			let again;
			try {
				first = await intake(n8nBase(), docs);
				again = await intake(
					n8nBase(),
					docs.map(({ key, url }) => ({ key, url })),
				);
			} finally {
				await emulatorSettings({ processing_ms: PROCESSING_MS });
			}
			assert.deepEqual(
				first.map((e) => e.state),
				docs.map(() => 'accepted'),
			);
			assert.deepEqual(
				again.map((e) => e.state),
				docs.map(() => 'already_known'),
				JSON.stringify(again),
			);
			const ids = first.map((e) => e.task_id);
			let calls = [];
			await waitFor(
				'the documents to reach the downstream step',
				async () => {
					calls = (await sinkCalls()).filter((c) => ids.includes(c.body?.task_id));
					return calls.length >= docs.length;
				},
				90000,
				500,
			);
			for (const call of calls) {
				const doc = docs[ids.indexOf(call.body.task_id)];
				assert.equal(call.body.customer, doc.customer, JSON.stringify(call.body));
				assert.equal(call.body.file_name, doc.file_name, JSON.stringify(call.body));
			}
			t.diagnostic(
				`${docs.length} documents posted again with key and url only: ${again.length} already_known; ${calls.length} downstream calls, each with the first post’s context`,
			);
		},
	},

	repostsHideNothing: {
		name: 'the downstream system down while the same documents are posted again every 3 s: the rows still end stuck, each is reported once, and set back to pending as the message says, each is delivered once',
		async run(t) {
			await emulatorSettings({ processing_ms: PROCESSING_MS, sink_down: ['crm'] });
			const docs = intakeDocuments(3, 'REPOST').map((d) => ({ key: d.file_name, ...d }));
			const names = docs.map((d) => d.file_name);
			let posts = 0;
			let ids = [];
			try {
				ids = (await intake(n8nBase(), docs)).map((e) => e.task_id);
				const stuck = (rows) => rows.every((r) => r.status === 'stuck');
				const deadline = Date.now() + 75000;
				let rows = [];
				while (Date.now() < deadline) {
					await intake(n8nBase(), docs);
					posts += 1;
					rows = await rowsOf(names);
					if (rows.length === docs.length && stuck(rows)) break;
					await sleep(3000);
				}
				assert.ok(stuck(rows), `the rows were not reported stuck: ${rows.map((r) => r.status)}`);
			} finally {
				await emulatorSettings({ sink_down: [] });
			}
			const told = await alertsFor(names);
			assert.equal(told.length, docs.length, 'each stuck row is reported once');
			for (const call of told) {
				assert.equal(call.body.status, 'stuck');
				assert.match(call.body.what_to_do, /set the row’s status to pending/);
			}
			const downstream = async () =>
				(await sinkCalls()).filter((c) => ids.includes(c.body?.task_id));
			assert.equal((await downstream()).length, 0, 'the downstream system was down');
			// the remedy the message gives: no record downstream, so each row is set back to pending
			for (const row of await rowsOf(names))
				await updateRow(prod.table, row.id, { status: 'pending' });
			await rowsUntil('the rows set back to pending to be done', names, (r) =>
				r.every((row) => row.status === 'done'),
			);
			await sleep(2000);
			const perTask = callsPerTask(await downstream());
			t.diagnostic(
				`${posts} posts again, 3 s apart: ${docs.length} rows stuck, ${told.length} messages, 0 downstream calls; set back to pending: ${Object.keys(perTask).length} delivered, ${Object.values(perTask).filter((n) => n > 1).length} twice`,
			);
			assert.ok(
				ids.every((id) => perTask[id] === 1),
				`remedied stuck rows downstream: ${JSON.stringify(perTask)}`,
			);
		},
	},

	slowUpload: {
		name: 'an upload slower than stuck_minutes: the row is reported possibly_sent meanwhile, then the task_id it returned is recorded and the task delivered once',
		async run(t) {
			const docs = intakeDocuments(1, 'SLOWUP');
			const names = docs.map((d) => d.file_name);
			const tasksBefore = new Set((await emulatorTasks()).map((x) => x.task_id));
			await addFault({ endpoint: 'process_file', delay_ms: 27000, count: 1 });
			let sawPossiblySent = false;
			let answer;
			try {
				const posting = intake(n8nBase(), docs);
				const watching = (async () => {
					const until = Date.now() + 40000;
					while (!sawPossiblySent && Date.now() < until) {
						const [row] = await rowsOf(names);
						sawPossiblySent = row?.status === 'possibly_sent';
						await sleep(500);
					}
				})();
				[answer] = await posting;
				await watching;
			} finally {
				await clearFaults();
			}
			assert.ok(
				sawPossiblySent,
				'the catch-up did not flag the slow upload (the case proves nothing)',
			);
			const [row] = await rowsUntil('the row to be done', names, (r) => r[0].status === 'done');
			const newTasks = (await emulatorTasks()).filter((x) => !tasksBefore.has(x.task_id));
			const calls = (await sinkCalls()).filter((c) => c.body?.file_name === names[0]);
			t.diagnostic(
				`answer ${answer.state} / ${answer.status}; row ${row.status} with task ${row.task_id}; tasks ${newTasks.length}; downstream ${calls.length}`,
			);
			assert.equal(newTasks.length, 1);
			assert.equal(
				row.task_id,
				newTasks[0].task_id,
				'the row does not hold the task the upload returned',
			);
			assert.equal(calls.length, 1);
		},
	},

	nothingUsable: {
		name: 'a post without a usable document is answered: 400 with kind no_documents, or one rejected entry per document',
		async run(t) {
			const figures = [];
			for (const body of [[], {}, { documents: [] }, { documents: 'a.pdf' }]) {
				const { status, text } = await postIntake(n8nBase(), body);
				figures.push(`${JSON.stringify(body)} → ${status}`);
				assert.equal(status, 400, `${JSON.stringify(body)}: ${status} ${text}`);
				const [answer] = [].concat(JSON.parse(text));
				assert.equal(answer.kind, 'no_documents', text);
				assert.match(answer.error, /documents/);
			}
			const noUrl = [{ key: 'NOURL-1', file_name: 'x.pdf' }, { key: 'NOURL-2' }];
			const { status, text } = await postIntake(n8nBase(), { documents: noUrl });
			figures.push(`two documents without url → ${status} ${text}`);
			t.diagnostic(figures.join('; '));
			assert.equal(status, 200, text);
			assert.deepEqual(
				JSON.parse(text).map((e) => [e.key, e.state]),
				[
					['NOURL-1', 'rejected'],
					['NOURL-2', 'rejected'],
				],
			);
		},
	},
};

module.exports = { promises: cases };
