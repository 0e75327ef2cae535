'use strict';

/**
 * docs/production.md's "On your own n8n 2.x" clicked and counted on the n8n of ownMailbox.js, with
 * the credential its email path made; then the documented curl line until every row is done.
 */

const crypto = require('crypto');

const ui = require('./lib.js');

const FILE = 'examples/production.json';
const DOC = 'docs/production.md';
/** With the emulator: the project no other example sends to (docs/production.md, step 3). */
const PROJECT = 'Invoices EU – Zürich (2025)';
const DOCUMENT_TYPE = 'invoice';
const MAX_ACTIONS = 24;
/** The header the callers send the Intake Key in, and the key's credential type. */
const INTAKE_HEADER = 'X-Intake-Key';
const INTAKE_TYPE = 'documentExtractionIntakeApi';

/** The steps of the production path; `sink` is the emulator's record of the calls it got. */
function productionSteps(context, sink) {
	const workflow = ui.readJson(FILE);
	const credentialsOf = async (page, type) =>
		(await ui.restCall(page, 'GET', '/credentials')).filter((cr) => cr.type === type);
	const sinkCalls = async () => (await (await fetch(sink)).json()).calls;
	const c = ui.counter();
	let page;
	let workflowId;
	// the Intake Key the user makes (the docs: openssl rand -hex 24) and types into Key
	const intakeKey = crypto.randomBytes(24).toString('hex');
	return [
		[
			`imports ${FILE} as shipped and clicks ${DOC}'s "On your own n8n 2.x": at most ${MAX_ACTIONS} actions`,
			async () => {
				page = await ui.freshPage(context);
				await ui.openHome(page);
				const credentials = await credentialsOf(page, 'documentExtractionApi');
				if (credentials.length !== 1)
					ui.fail(
						`${credentials.length} Document Extraction credentials (the email path made one)`,
					);

				// 1. Create workflow, … → Import → From file, the shipped file
				await ui.importByClicking(page, `${ui.ROOT}/${FILE}`, c);
				await ui.canvasShows(page, workflow);
				// the file's credential is not on this n8n: n8n puts the user's into every node that needs one
				await ui.visible(
					page.locator('.el-notification').filter({ hasText: 'Credentials auto-added' }),
					'the message "Credentials auto-added"',
				);

				// 2. Receive Documents: the file's credential is not here; a new one with the random key
				let ndv = await ui.openByClicking(page, 'Receive Documents', c);
				const button = 'Connect to Document Extraction Intake';
				const modal = await ui.connectCredential(ndv, button, { secret: intakeKey }, c);
				const closed = await ui.until(
					'the Intake Key credential is saved',
					async () =>
						!(await modal.isVisible()) ||
						((await credentialsOf(page, INTAKE_TYPE)).length > 0 && 'saved'),
				);
				// saved: its window may still close by itself, else its ×
				if (closed === 'saved') await page.waitForTimeout(1500);
				if (closed === 'saved' && (await modal.isVisible())) {
					await c.act(modal.locator('.el-dialog__headerbtn').first(), 'the × of the credential');
					await ui.until('the credential window closes', async () => !(await modal.isVisible()));
				}
				await ui.closeNdv(page, c);

				// 3. the trigger: Project from the list
				ndv = await ui.openByClicking(page, 'Document Extraction Trigger', c);
				await ui.pickByClicking(page, ndv, 'project', PROJECT, c);
				await ui.closeNdv(page, c);

				// 4. Submit: Document Type; Allow Private Addresses (shipped off) on for the emulator
				ndv = await ui.openByClicking(page, 'Submit', c);
				await ui.pickByClicking(page, ndv, 'documentType', DOCUMENT_TYPE, c);
				const allowPrivate = ndv.getByTestId('parameter-input-allowPrivateAddresses');
				await ui.visible(allowPrivate, 'the switch "Allow Private Addresses", as shipped');
				if (await allowPrivate.locator('.is-checked').count())
					ui.fail('"Allow Private Addresses" is on as imported');
				await c.act(allowPrivate.locator('.el-switch').first(), '"Allow Private Addresses"');
				await ui.closeNdv(page, c);

				// 5. Publish, Publish, Got it
				workflowId = ui.workflowIdOf(page);
				await ui.publishByClicking(page, c);
				console.log(`        ${c.actions} actions from the workflow list`);

				const section = ui.docPart(DOC, '### On your own n8n 2.x', '\n### ');
				const words = [
					...['**Create workflow**', '**Import**', '**From file**', 'production.json', '**Save**'],
					...['**Receive Documents**', '**Connect to Document Extraction Intake**', '**Key**'],
					...[INTAKE_HEADER, '**Submit**'],
					...['openssl rand -hex 24', '**Document Extraction Trigger**', '**Project**'],
					...['**Document Type Name or ID**', '**Allow Private Addresses**', '**Publish**'],
					'**Got it**',
				];
				ui.stepsStated(DOC, section, words, c.actions, MAX_ACTIONS);

				// what was saved: the picks, and the credential on every node of the package
				const saved = await ui.restCall(page, 'GET', `/workflows/${workflowId}`);
				const byName = (name) => saved.nodes.find((n) => n.name === name);
				const project = byName('Document Extraction Trigger').parameters.project;
				if (project.cachedResultName !== PROJECT)
					ui.fail(`the trigger's saved Project is ${JSON.stringify(project)}, not "${PROJECT}"`);
				const submit = byName('Submit').parameters;
				if (submit.documentType !== DOCUMENT_TYPE)
					ui.fail(`Submit's saved Document Type is ${submit.documentType}`);
				if (submit.options?.allowPrivateAddresses !== true)
					ui.fail(`Submit's saved options are ${JSON.stringify(submit.options)}`);
				// Receive Documents: the new Intake Key credential (not the file's)
				const intake = byName('Receive Documents').credentials?.[INTAKE_TYPE];
				const fileIntake = workflow.nodes.find((n) => n.name === 'Receive Documents').credentials[
					INTAKE_TYPE
				];
				const intakeKeys = await credentialsOf(page, INTAKE_TYPE);
				if (
					!intake?.id ||
					intake.id === fileIntake.id ||
					!intakeKeys.some((cr) => cr.id === intake.id)
				)
					ui.fail(
						`Receive Documents' Intake Key credential ${JSON.stringify(intake)} is not the one made (${JSON.stringify(intakeKeys)})`,
					);
				const without = saved.nodes
					.filter(
						(n) =>
							n.type.startsWith('n8n-nodes-document-extraction.') &&
							n !== byName('Receive Documents'),
					)
					.filter((n) => n.credentials?.documentExtractionApi?.id !== credentials[0].id);
				if (without.length)
					ui.fail(`not on the credential: ${without.map((n) => n.name).join(', ')}`);
			},
		],
		[
			'Tidy up, saved and published again: only positions change, nodes leave their sections (the curl line then runs it)',
			async () => {
				const saved = async () => await ui.restCall(page, 'GET', `/workflows/${workflowId}`);
				// what runs: the nodes but their positions (the section notes aside), the connections
				const isNote = (n) => n.type === 'n8n-nodes-base.stickyNote';
				const what = ({ nodes, connections }) =>
					JSON.stringify([
						nodes
							.filter((n) => !isNote(n))
							.map(({ position, ...rest }) => rest)
							.sort((a, b) => (a.id < b.id ? -1 : 1)),
						connections,
					]);
				const was = await saved();
				await ui.act(page.getByTestId('tidy-up-button'), 'Tidy up');
				await page.keyboard.press('Control+s');
				const positions = ({ nodes }) => JSON.stringify(nodes.map((n) => n.position));
				const is = await ui.untilValue(
					'the tidied canvas is saved',
					saved,
					(w) => positions(w) !== positions(was),
				);
				// published again (a second publication shows no "Workflow published" dialog)
				await ui.act(page.getByTestId('workflow-open-publish-modal-button'), 'the Publish button');
				await ui.act(page.getByTestId('workflow-publish-button'), 'Publish in the dialog');
				await ui.untilValue(
					'the tidied version is the published one',
					saved,
					(w) => w.activeVersionId === w.versionId,
				);
				if (what(is) !== what(was)) ui.fail('Tidy up changed more than positions');
				const [before, after] = [was.nodes, is.nodes];
				const notes = after.filter(isNote);
				const inside = ([x, y], { position: [left, top], parameters: { width, height } }) =>
					x >= left && y >= top && x <= left + width && y <= top + height;
				const sectionOf = (id, nodes) => {
					const { position } = nodes.find((n) => n.id === id);
					return nodes.filter(isNote).find((note) => inside(position, note))?.name;
				};
				const out = before
					.filter((n) => !isNote(n))
					.filter((n) => sectionOf(n.id, before) !== sectionOf(n.id, after));
				const movedNotes = notes.filter((n) => {
					const { position, parameters } = before.find((b) => b.id === n.id);
					return (
						JSON.stringify([position, parameters]) !== JSON.stringify([n.position, n.parameters])
					);
				});
				console.log(
					`        Tidy up: ${out.length} of ${after.length - notes.length} nodes out of their section; ${movedNotes.length} of ${notes.length} section notes moved or resized`,
				);
				await ui.shot(page, 'production-tidied');
			},
		],
		[
			`the curl line of ${DOC}: every row done; the placeholders call nothing`,
			async () => {
				const sinkBefore = (await sinkCalls()).length;
				const command = ui.docBlock(DOC, /curl[\s\S]*intake/i, page);
				if (!command.includes(`${INTAKE_HEADER}: $INTAKE_KEY`))
					ui.fail(`${DOC}'s curl line sends no "${INTAKE_HEADER}: $INTAKE_KEY": ${command}`);
				// without the key: Receive Documents answers 403 and takes nothing
				const url = /https?:\/\/[^\s'"]+\/webhook\/[^\s'"]+/.exec(command)?.[0];
				if (!url) ui.fail(`no webhook address in ${DOC}'s curl line: ${command}`);
				const anonymous = await fetch(url, {
					method: 'POST',
					headers: { 'Content-Type': 'application/json' },
					body: /-d\s+'([^']*)'/.exec(command)?.[1],
				});
				if (anonymous.status !== 403)
					ui.fail(`a post without ${INTAKE_HEADER} was answered ${anonymous.status}, not 403`);
				const posted = Date.now();
				const rows = await ui.postUntilDone(page, command, 0, { INTAKE_KEY: intakeKey });
				const seconds = ((Date.now() - posted) / 1000).toFixed(1);
				console.log(`        ${rows.length} rows done ${seconds} s after the curl line`);
				await page.waitForTimeout(2000);
				const sinkAfter = await sinkCalls();
				if (sinkAfter.length !== sinkBefore)
					ui.fail(
						`the workflow called the emulator's sink: ${JSON.stringify(sinkAfter.slice(sinkBefore)).slice(0, 300)}`,
					);
				// the completion ran through the placeholder, which shows what the CRM node would get
				const failed = (await ui.executionsOf(page, workflowId)).filter(
					(e) => e.status !== 'success',
				);
				if (failed.length)
					ui.fail(
						`executions that did not succeed: ${JSON.stringify(failed.map((e) => e.status))}`,
					);
			},
		],
	];
}

module.exports = { productionSteps };
