'use strict';

/**
 * The production workflow's printed promises (docs/production.md), one case each, on the workflow
 * cases/production.test.js installed (shared state `prod`).
 */

const assert = require('node:assert/strict');

const { sleep } = require('../../../harness/fixtures.js');
const { IS_N8N_1, rest, waitFor } = require('../../../harness/n8n.js');
const { addFault, clearFaults, emulatorStats } = require('./emulator-client.js');
const {
	readExample,
	tableRows,
	updateRow,
	sinkCalls,
	callsPerTask,
	eachOnce,
	emulatorSettings,
	intakeDocuments,
	intake,
	postIntake,
} = require('./production.js');
const {
	PROCESSING_MS,
	prod,
	n8nBase,
	catchUp,
	alerts,
	callsOf,
	deliveriesOf,
	tasksSince,
} = require('./production-cases.js');

const rowsOf = async (names) =>
	(await tableRows(prod.table)).filter((r) => names.includes(r.file_name));
const alertsFor = async (names) =>
	(await alerts()).filter((c) => names.includes(c.body?.file_name));
const minutesAgo = (m) => new Date(Date.now() - m * 60000).toISOString();

/** Waits for every row of `names` to have `status`; returns the rows. */
async function rowsAre(names, status) {
	let rows = [];
	await waitFor(
		() => `the rows to be ${status} (${JSON.stringify(rows.map((r) => [r.file_name, r.status]))})`,
		async () => {
			rows = await rowsOf(names);
			return rows.length === names.length && rows.every((r) => r.status === status);
		},
		90000,
		500,
	);
	return rows;
}

/** Runs `body` with `fault` on; clears the faults however it ends. */
async function withFault(fault, body) {
	await addFault(fault);
	try {
		return await body();
	} finally {
		await clearFaults();
	}
}

/** One document tagged `tag`: {names, post}. */
function postOne(tag) {
	const docs = intakeDocuments(1, tag);
	return { names: [docs[0].file_name], post: () => intake(n8nBase(), docs) };
}

/** A copy of the shipped file without its trigger, imported with no Intake Key, published. */
async function publishUncredentialedCopy(intakePath) {
	const shipped = readExample();
	const receive = shipped.nodes.find((n) => n.name === 'Receive Documents');
	receive.parameters.path = intakePath;
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
	const { id, versionId } = created;
	try {
		if (IS_N8N_1) await rest('PATCH', `/workflows/${id}`, { active: true, versionId });
		else await rest('POST', `/workflows/${id}/activate`, { versionId });
		return { id, published: 'published' };
	} catch (error) {
		return { id, published: `refused: ${error.message.slice(0, 160)}` };
	}
}

const promises = {
	strangers: {
		name: 'Intake refuses strangers: a post without the Intake Key, or with a wrong one, is answered 403 and creates no row and no task; a copy imported without the credential accepts no post',
		async run(t) {
			const body = { documents: intakeDocuments(1, 'STRANGER') };
			const rowsBefore = (await tableRows(prod.table)).length;
			const newTasks = await tasksSince();
			const none = await postIntake(n8nBase(), body, { key: null });
			const wrong = await postIntake(n8nBase(), body, { key: 'guessed-value' });
			assert.equal(none.status, 403, `without the key: ${none.status} ${none.text}`);
			assert.equal(wrong.status, 403, `with a wrong key: ${wrong.status} ${wrong.text}`);
			const intakePath = 'document-extraction-intake-uncredentialed';
			const copy = await publishUncredentialedCopy(intakePath);
			await sleep(1500);
			const open = await postIntake(n8nBase(), body, { intakePath });
			assert.ok(open.status >= 400, `the copy answered ${open.status} ${open.text}`);
			await sleep(1000);
			assert.equal((await tableRows(prod.table)).length, rowsBefore, 'a refused post made a row');
			assert.deepEqual(await newTasks(), [], 'a refused post made a task');
			t.diagnostic(
				`no key: ${none.status}; wrong key: ${wrong.status}; the copy without the credential: ${copy.published}, its post ${open.status}`,
			);
			if (!IS_N8N_1) await rest('POST', `/workflows/${copy.id}/deactivate`, {}).catch(() => {});
		},
	},

	uploadMayHaveArrived: {
		name: 'an upload a gateway answered 502 (no task at the service): its row becomes possibly_sent and is reported once',
		async run(t) {
			const { names, post } = postOne('GATEWAY');
			const fault = { endpoint: 'process_file', status: 502, count: 10 };
			const [answer] = await withFault(fault, post);
			assert.deepEqual([answer.state, answer.status], ['accepted', 'possibly_sent']);
			await rowsAre(names, 'possibly_sent');
			await waitFor('the row to be reported', async () => (await alertsFor(names)).length > 0);
			await catchUp();
			const told = await alertsFor(names);
			assert.equal(told.length, 1, `messages: ${JSON.stringify(told.map((c) => c.body))}`);
			assert.equal(told[0].body.status, 'possibly_sent');
			assert.ok(told[0].body.what_to_do, 'the message has no what_to_do');
			// the remedy the message gives: with no unmatched row and no task in the dashboard (the
			// upload never reached the service), clear the status, and the catch-up sends it
			const unmatched = (await tableRows(prod.table)).filter((r) => r.status === 'unmatched');
			assert.deepEqual(unmatched, [], 'an unmatched row appeared');
			await updateRow(prod.table, (await rowsOf(names))[0].id, { status: null });
			const [done] = await rowsAre(names, 'done');
			t.diagnostic(
				`reported once; cleared as the message says: ${done.status}, task ${done.task_id}`,
			);
		},
	},

	statusFails: {
		name: 'a running task’s row stays pending; a status request that keeps failing (402): after overdue_minutes the row is overdue, reported once with its kind, and asked no more',
		async run(t) {
			const { names, post } = postOne('ASKFAIL');
			await emulatorSettings({ processing_ms: 120000 });
			const [{ task_id: taskId }] = await post().finally(() =>
				emulatorSettings({ processing_ms: PROCESSING_MS }),
			);
			// a catch-up asks while the task still runs: its row stays pending
			const polls = async () => (await emulatorStats()).status_polls_by_task?.[taskId] ?? 0;
			await waitFor('the catch-up to ask for the running task', async () => (await polls()) > 0);
			await sleep(2000);
			assert.equal((await rowsOf(names))[0].status, 'pending', 'the running task’s row');
			await withFault({ endpoint: 'task_status', status: 402, count: 100000 }, async () => {
				// the row has been pending for longer than overdue_minutes (30 in the file)
				await updateRow(prod.table, (await rowsOf(names))[0].id, {
					status_changed_at: minutesAgo(31),
				});
				const [row] = await rowsAre(names, 'overdue');
				assert.match(String(row.note), /^refused: /, row.note);
				await waitFor('the row to be reported', async () => (await alertsFor(names)).length > 0);
				const asked = await polls();
				await catchUp();
				const told = await alertsFor(names);
				const askedAfter = await polls();
				t.diagnostic(
					`status requests after overdue: ${askedAfter - asked}; messages ${told.length}; note: ${row.note}`,
				);
				assert.equal(told.length, 1, `messages: ${JSON.stringify(told.map((c) => c.body))}`);
				assert.equal(told[0].body.status, 'overdue');
				assert.match(String(told[0].body.note), /^refused: /);
				assert.equal(askedAfter, asked, 'an overdue row was asked again');
			});
		},
	},

	contextStands: {
		name: 'a repeat post with less context is answered already_known and changes nothing: the downstream step gets the first post’s customer and file name',
		async run(t) {
			const docs = intakeDocuments(4, 'CONTEXT');
			const lessContext = docs.map(({ key, url }) => ({ key, url }));
			await emulatorSettings({ processing_ms: 6000 });
			let first;
			let again;
			try {
				first = await intake(n8nBase(), docs);
				again = await intake(n8nBase(), lessContext);
			} finally {
				await emulatorSettings({ processing_ms: PROCESSING_MS });
			}
			assert.deepEqual(
				[...first, ...again].map((e) => e.state),
				[...docs.map(() => 'accepted'), ...docs.map(() => 'already_known')],
				JSON.stringify(again),
			);
			const ids = first.map((e) => e.task_id);
			let calls = [];
			await waitFor(
				'the documents to reach the downstream step',
				async () => (calls = await callsOf(ids)).length >= docs.length,
				90000,
				500,
			);
			for (const { body } of calls) {
				const doc = docs[ids.indexOf(body.task_id)];
				assert.deepEqual([body.customer, body.file_name], [doc.customer, doc.file_name]);
			}
			t.diagnostic(
				`${again.length} already_known; ${calls.length} downstream, each with the first post’s context`,
			);
		},
	},

	repostsHideNothing: {
		name: 'the downstream system down while the same documents are posted again every 3 s: the rows still end stuck, each is reported once, and set back to pending as the message says, each is delivered once',
		async run(t) {
			await emulatorSettings({ processing_ms: PROCESSING_MS, sink_down: ['crm'] });
			const docs = intakeDocuments(3, 'REPOST');
			const names = docs.map((d) => d.file_name);
			const stuck = (rows) =>
				rows.length === docs.length && rows.every((r) => r.status === 'stuck');
			let posts = 0;
			let ids = [];
			try {
				ids = (await intake(n8nBase(), docs)).map((e) => e.task_id);
				const deadline = Date.now() + 75000;
				while (Date.now() < deadline && !stuck(await rowsOf(names))) {
					await intake(n8nBase(), docs);
					posts += 1;
					await sleep(3000);
				}
				const rows = await rowsOf(names);
				assert.ok(stuck(rows), `the rows were not reported stuck: ${rows.map((r) => r.status)}`);
			} finally {
				await emulatorSettings({ sink_down: [] });
			}
			// the outbox reports in the catch-up run that marked them stuck, or the next one
			const reported = async () => (await alertsFor(names)).length >= docs.length;
			await waitFor('each stuck row to be reported', reported).catch(() => {});
			const told = await alertsFor(names);
			assert.equal(told.length, docs.length, 'each stuck row is reported once');
			for (const { body } of told) {
				assert.equal(body.status, 'stuck');
				assert.match(body.what_to_do, /set the row’s status to pending/);
			}
			assert.equal((await callsOf(ids)).length, 0, 'the downstream system was down');
			// the remedy the message gives: no record downstream, so each row is set back to pending
			for (const row of await rowsOf(names))
				await updateRow(prod.table, row.id, { status: 'pending' });
			await rowsAre(names, 'done');
			await sleep(2000);
			const perTask = callsPerTask(await callsOf(ids));
			t.diagnostic(
				`${posts} posts again: ${told.length} messages; set back to pending: ${JSON.stringify(perTask)}`,
			);
			assert.deepEqual(perTask, eachOnce(ids), 'the remedied stuck rows downstream');
		},
	},

	slowUpload: {
		name: 'an upload slower than stuck_minutes: the row is reported possibly_sent meanwhile, then the task_id it returned is recorded and the task delivered once',
		async run(t) {
			const { names, post } = postOne('SLOWUP');
			const newTasks = await tasksSince();
			let sawPossiblySent = false;
			const [answer] = await withFault(
				{ endpoint: 'process_file', delay_ms: 27000, count: 1 },
				async () => {
					const posting = post();
					posting.catch(() => {}); // awaited below
					const until = Date.now() + 40000;
					while (!sawPossiblySent && Date.now() < until) {
						sawPossiblySent = (await rowsOf(names))[0]?.status === 'possibly_sent';
						await sleep(500);
					}
					return await posting;
				},
			);
			assert.ok(sawPossiblySent, 'the slow upload was never flagged: the case proves nothing');
			const [row] = await rowsAre(names, 'done');
			const tasks = await newTasks();
			const calls = (await sinkCalls()).filter((c) => c.body?.file_name === names[0]);
			t.diagnostic(
				`answer ${answer.state} / ${answer.status}; row ${row.status}; tasks ${tasks.length}; downstream ${calls.length}`,
			);
			assert.equal(tasks.length, 1);
			assert.equal(row.task_id, tasks[0].task_id, 'the row holds another task');
			assert.equal(calls.length, 1);
		},
	},

	lateDeliveries: {
		name: 'a late delivery for an overdue or a not_found row (a 404 by mistake) is delivered once and resolves the row (done)',
		async run(t) {
			const docs = intakeDocuments(2, 'LATE');
			const names = docs.map((d) => d.file_name);
			await emulatorSettings({ processing_ms: 60000 });
			const answers = await intake(n8nBase(), docs).finally(() =>
				emulatorSettings({ processing_ms: PROCESSING_MS }),
			);
			const ids = answers.map((a) => a.task_id);
			const marked = {};
			// one status request is answered 404: that row is not_found, the other still pending
			await withFault({ endpoint: 'task_status', status: 404, count: 1 }, () =>
				waitFor('a row to be not_found', async () => {
					const rows = await rowsOf(names);
					return rows.some((r) => r.status === 'not_found') && (marked.rows = rows);
				}),
			);
			marked.not_found = new Date().toISOString();
			const other = marked.rows.find((r) => r.status !== 'not_found');
			assert.equal(other.status, 'pending', 'the other row');
			// its status cannot be asked (402) and it has been pending longer than overdue_minutes
			await withFault({ endpoint: 'task_status', status: 402, count: 100000 }, async () => {
				await updateRow(prod.table, other.id, { status_changed_at: minutesAgo(31) });
				await rowsAre([other.file_name], 'overdue');
			});
			marked.overdue = new Date().toISOString();
			let deliveries = [];
			const delivered = async () =>
				(deliveries = (await deliveriesOf(ids)).filter((d) => d.state !== 'pending')).length === 2;
			await waitFor('the tasks’ deliveries', delivered, 90000, 500);
			for (const d of deliveries)
				assert.ok(
					d.created_at > marked.overdue,
					`delivered at ${d.created_at}: too early, the case proves nothing`,
				);
			await rowsAre(names, 'done');
			await catchUp();
			const calls = await callsOf(ids);
			t.diagnostic(
				`not_found at ${marked.not_found}, overdue at ${marked.overdue}; delivered ${deliveries.map((d) => d.created_at).join(', ')}; rows done; downstream ${calls.length}`,
			);
			const perTask = callsPerTask(calls);
			assert.deepEqual(
				ids.map((id) => perTask[id] ?? 0),
				[1, 1],
				'downstream calls per task',
			);
		},
	},

	wholeContext: {
		name: 'the whole context stands: every field of a document other than key and url, of any JSON type, is kept as the first post wrote it (the row’s context), shown in the answer, and reaches the downstream step',
		async run(t) {
			const [doc] = intakeDocuments(1, 'WHOLE');
			doc.order_id = 'PO-77';
			doc.customer = { id: 5, name: 'ACME' };
			doc.lines = [{ sku: 'A-1', qty: 2 }];
			doc.amount = 12.5;
			doc.urgent = true;
			const { key, url, ...context } = doc;
			const [answer] = await intake(n8nBase(), [doc]);
			assert.equal(answer.state, 'accepted', JSON.stringify(answer));
			// a repeat post with other values changes nothing
			const [again] = await intake(n8nBase(), [{ key, url, order_id: 'PO-OTHER' }]);
			assert.equal(again.state, 'already_known', JSON.stringify(again));
			// each answer shows the context that stands: the first post's
			assert.deepEqual(answer.context, context, 'the first answer’s context');
			assert.deepEqual(again.context, context, 'the repeat post’s answer: the first context');
			const [row] = await rowsAre([doc.file_name], 'done');
			assert.deepEqual(JSON.parse(row.context), context, 'the row’s context');
			const calls = await callsOf([answer.task_id]);
			assert.equal(calls.length, 1, 'downstream calls');
			const { body } = calls[0];
			for (const [field, value] of Object.entries(context))
				assert.deepEqual(body[field], value, `the downstream step’s ${field}`);
			t.diagnostic(`row context ${row.context}; downstream order_id ${body.order_id}`);
		},
	},

	eachOwnEntry: {
		name: 'each document gets its own entry: a field of the wrong type, a missing or non-http url, a repeated key, too much context are each rejected with their reason, the others are sent; no 500, no row without its url; a post over 16 MB is refused by n8n before the workflow',
		async run(t) {
			const [good1, good2, ...rest] = intakeDocuments(8, 'OWN');
			const bad = [
				{ ...rest[0], file_name: { name: 'x.pdf' } },
				{ ...rest[1], key: { id: 5 } },
				{ key: rest[2].key, file_name: rest[2].file_name },
				{ ...rest[3], url: 'ftp://127.0.0.1/x.pdf' },
				{ ...good1, file_name: 'a-repeat.pdf' },
				{ ...rest[4], note: 'x'.repeat(12000) },
				'just-a-string.pdf',
			];
			const reasons = [
				/file_name is not text/,
				/key is neither text nor a number/,
				/url is missing/,
				/url is not an http or https address/,
				/the key repeats an earlier document/,
				/more than 10000/,
				/a document is a JSON object/,
			];
			const rowsBefore = (await tableRows(prod.table)).length;
			const { status, text } = await postIntake(n8nBase(), {
				documents: [good1, ...bad.slice(0, 3), good2, ...bad.slice(3)],
			});
			assert.equal(status, 200, `${status} ${text.slice(0, 300)}`);
			const answer = JSON.parse(text);
			const [first, b0, b1, b2, second, ...others] = answer;
			assert.deepEqual(
				[first.state, second.state],
				['accepted', 'accepted'],
				JSON.stringify(answer),
			);
			for (const [i, entry] of [b0, b1, b2, ...others].entries()) {
				assert.equal(entry.state, 'rejected', JSON.stringify(entry));
				assert.match(String(entry.reason), reasons[i], JSON.stringify(entry));
			}
			const ids = [first.task_id, second.task_id];
			await rowsAre([good1.file_name, good2.file_name], 'done');
			const calls = await callsOf(ids);
			assert.deepEqual(callsPerTask(calls), eachOnce(ids), 'the valid documents downstream');
			// a post over n8n's N8N_PAYLOAD_SIZE_MAX (16 MB): n8n refuses it before the workflow runs (500,
			// a limit the docs name): no row, no task
			const newTasks = await tasksSince();
			const huge = await postIntake(n8nBase(), {
				documents: [{ ...intakeDocuments(1, 'HUGE')[0], note: 'x'.repeat(17 * 1024 * 1024) }],
			});
			assert.ok(huge.status >= 400, `a post over 16 MB: ${huge.status} ${huge.text.slice(0, 200)}`);
			assert.deepEqual(await newTasks(), [], 'a post over 16 MB made a task');
			const rows = await tableRows(prod.table);
			assert.equal(rows.length, rowsBefore + 2, 'a row for each valid document only');
			const noUrl = rows.filter(
				(r) => !r.url && r.status !== 'unknown_task' && r.status !== 'unmatched',
			);
			assert.deepEqual(noUrl, [], 'a row without its url');
			t.diagnostic(
				`a post over 16 MB: ${huge.status}; ${answer.length} entries: 2 accepted; rejected: ${[b0, b1, b2, ...others].map((e) => e.reason.slice(0, 40)).join(' | ')}`,
			);
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
				assert.ok(Array.isArray(JSON.parse(text)), `not an array: ${text}`);
				const [answer] = JSON.parse(text);
				assert.equal(answer.kind, 'no_documents', text);
				assert.match(answer.error, /documents/);
			}
			const noUrl = [{ key: 'NOURL-1', file_name: 'x.pdf' }, { key: 'NOURL-2' }];
			const { status, text } = await postIntake(n8nBase(), { documents: noUrl });
			t.diagnostic(`${figures.join('; ')}; two documents without url → ${status} ${text}`);
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

module.exports = { promises };
