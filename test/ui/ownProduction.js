'use strict';

/**
 * The production workflow on one's own n8n, after the README's email path on the same fresh n8n
 * (test/ui/ownMailboxScenario.js): docs/production.md's "On your own n8n 2.x" clicked step by
 * step on examples/production.json as shipped (picked from examples/, never copied or edited),
 * with the Document Extraction credential the email path made and a new Header Auth credential
 * for Receive Documents (a random key, as the docs make it), counting every click, typed field and
 * key; then the documented curl line with that key in $INTAKE_KEY, until every row is done, and a
 * post without the key, answered 403. The file's placeholders call nothing: the emulator's sink
 * gets no call from this workflow.
 */

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const { ROOT, BASE, fail, until, visible, shot, credentialReady } = require('./lib.js');
const {
	restCall,
	docBlock,
	publishByClicking,
	postUntilDone,
	importByClicking,
	pickByClicking,
} = require('./firstHour.js');

const FILE = path.join(ROOT, 'examples', 'production.json');
const DOC = 'docs/production.md';
const SECTION = '### On your own n8n 2.x';
const CREDENTIAL_TYPE = 'documentExtractionApi';
/** With the emulator: the project no other example sends to (docs/production.md, step 3). */
const PROJECT = 'Invoices EU – Zürich (2025)';
const DOCUMENT_TYPE = 'invoice';
const MAX_ACTIONS = 24;
/** Receive Documents' Header Auth: the header the callers send, and the file's credential. */
const INTAKE_HEADER = 'X-Intake-Key';
const INTAKE_CREDENTIAL_TYPE = 'httpHeaderAuth';

/** The section of docs/production.md the test clicks. */
function docSection() {
	const text = fs.readFileSync(path.join(ROOT, DOC), 'utf8');
	const at = text.indexOf(SECTION);
	if (at < 0) fail(`${DOC} has no "${SECTION}"`);
	return text.slice(at, text.indexOf('\n### ', at + SECTION.length));
}

/** The steps of the production path, to run after the email path in its scenario. */
function productionSteps(context, env, freshPage) {
	const workflow = JSON.parse(fs.readFileSync(FILE, 'utf8'));
	let page;
	let actions = 0;
	let workflowId;
	let credentialId;
	// the Intake Key the user makes (the docs: openssl rand -hex 24) and types into Value
	const intakeKey = crypto.randomBytes(24).toString('hex');
	// a typed field counts one, as a click does
	const act = async (locator, what, how = 'click', value) => {
		const target = await visible(locator, what);
		if (how === 'fill') await target.fill(value);
		else await target[how]();
		actions += 1;
	};
	return [
		[
			`imports examples/production.json as shipped and clicks ${DOC}'s "On your own n8n 2.x": at most ${MAX_ACTIONS} actions`,
			async () => {
				page = await freshPage(context);
				await page.goto(`${BASE}/home/workflows`);
				const credentials = (await restCall(page, 'GET', '/credentials')).filter(
					(c) => c.type === CREDENTIAL_TYPE,
				);
				if (credentials.length !== 1)
					fail(`${credentials.length} Document Extraction credentials (the email path made one)`);
				credentialId = credentials[0].id;

				// 1. Create workflow, … → Import → From file, the shipped file
				const filePick = await importByClicking(page, FILE, act); // read before adding: it counts too
				actions += filePick;
				const nodes = page.getByTestId('canvas-node');
				// its nodes, sticky notes aside (the canvas draws those apart)
				const shown = workflow.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
				await until(
					"the canvas shows the workflow's nodes",
					async () => (await nodes.count()) >= shown.length - 1,
				);
				// the file's credential is not on this n8n: n8n puts the user's into every node that
				// needs one, and says so
				await visible(
					page.locator('.el-notification').filter({ hasText: 'Credentials auto-added' }),
					'the message "Credentials auto-added"',
				);
				await shot(page, 'own-production-imported');

				// 2. Receive Documents: the file's credential is not on this n8n, so its field
				// "Credential for Header Auth" offers "Connect to Header Auth": Name X-Intake-Key, Value
				// the random key, Save; close it
				await act(
					nodes.filter({ has: page.getByText('Receive Documents', { exact: true }) }),
					'the canvas node "Receive Documents"',
					'dblclick',
				);
				const ndv = await visible(page.getByTestId('ndv'), 'the settings of "Receive Documents"');
				const slot = ndv.getByTestId('node-credentials-slot');
				await visible(
					slot.getByText('Credential for Header Auth', { exact: true }),
					'the field "Credential for Header Auth" of "Receive Documents"',
				);
				await shot(page, 'own-production-receive', ndv);
				await act(
					slot.getByText('Connect to Header Auth', { exact: true }),
					'the button "Connect to Header Auth"',
				);
				const modal = page.getByTestId('editCredential-modal');
				await credentialReady(modal, 'the Header Auth credential');
				await act(
					modal.getByTestId('parameter-input-name').locator('input'),
					"the Header Auth credential's Name",
					'fill',
					INTAKE_HEADER,
				);
				await act(
					modal.getByTestId('parameter-input-value').locator('input'),
					"the Header Auth credential's Value",
					'fill',
					intakeKey,
				);
				await shot(page, 'own-production-intake-credential', modal);
				await act(modal.getByTestId('credential-save-button'), 'Save (Header Auth)');
				const closed = await until(
					'the Header Auth credential is saved',
					async () =>
						!(await modal.isVisible()) ||
						((await restCall(page, 'GET', '/credentials')).some(
							(c) => c.type === INTAKE_CREDENTIAL_TYPE,
						) &&
							'saved'),
				);
				if (closed === 'saved') {
					// saved: its window may still close by itself, else its ×
					await page.waitForTimeout(1500);
					if (await modal.isVisible()) {
						await shot(page, 'own-production-intake-saved', modal);
						await act(
							modal.locator('.el-dialog__headerbtn').first(),
							'the × of the Header Auth credential',
						);
						await until('the credential window closes', async () => !(await modal.isVisible()));
					}
				}
				await shot(page, 'own-production-receive-done', ndv);
				await act(ndv.getByTestId('ndv-close-button'), 'the × of "Receive Documents"');
				await until(
					'the settings of "Receive Documents" close',
					async () => !(await ndv.isVisible()),
				);

				// 3. the trigger: Project from the list
				await act(
					nodes.filter({ hasText: 'Document Extraction Trigger' }),
					'the canvas node "Document Extraction Trigger"',
					'dblclick',
				);
				await visible(ndv, 'the settings of the trigger');
				await pickByClicking(page, ndv, 'project', PROJECT, act);
				await act(ndv.getByTestId('ndv-close-button'), 'the × of the trigger settings');
				await until('the trigger settings close', async () => !(await ndv.isVisible()));

				// 4. Submit: Document Type; Allow Private Addresses on (the emulator's documents): the
				// file ships the option, off
				await act(
					nodes.filter({ has: page.getByText('Submit', { exact: true }) }),
					'the canvas node "Submit"',
					'dblclick',
				);
				await visible(ndv, 'the settings of "Submit"');
				await pickByClicking(page, ndv, 'documentType', DOCUMENT_TYPE, act);
				const privateSwitch = ndv
					.getByTestId('parameter-input-allowPrivateAddresses')
					.locator('.el-switch')
					.first();
				await visible(privateSwitch, 'the switch "Allow Private Addresses", as shipped');
				if (
					await ndv
						.getByTestId('parameter-input-allowPrivateAddresses')
						.locator('.is-checked')
						.count()
				)
					fail('"Allow Private Addresses" is on as imported');
				await act(privateSwitch, 'the switch "Allow Private Addresses"');
				await shot(page, 'own-production-submit', ndv);
				await act(ndv.getByTestId('ndv-close-button'), 'the × of the settings of "Submit"');
				await until('the settings of "Submit" close', async () => !(await ndv.isVisible()));

				// 5. Publish, Publish, Got it
				workflowId = new URL(page.url()).pathname.split('/').pop();
				await publishByClicking(page, workflowId, act, 'own-production-published');
				console.log(`        ${actions} actions from the workflow list`);

				const section = docSection();
				for (const words of [
					'**Create workflow**',
					'**Import**',
					'**From file**',
					path.basename(FILE),
					'**Document Extraction Trigger**',
					'**Project**',
					'**Receive Documents**',
					'**Credential for Header Auth**',
					'**Connect to Header Auth**',
					'**Header Auth**',
					'**Name**',
					INTAKE_HEADER,
					'**Value**',
					'openssl rand -hex 24',
					'**Save**',
					'**Submit**',
					'**Document Type Name or ID**',
					'**Allow Private Addresses**',
					'**Publish**',
					'**Got it**',
				])
					if (!section.includes(words)) fail(`${DOC}'s steps do not name ${words}`);
				const stated = /\*\*(\d+) actions\*\*/.exec(section);
				if (!stated || Number(stated[1]) !== actions)
					fail(`${DOC} states ${stated ? stated[1] : 'no'} actions; this run took ${actions}`);
				if (actions > MAX_ACTIONS)
					fail(`the production path took ${actions} actions (at most ${MAX_ACTIONS})`);

				// what was saved: the picks, and the credential on every node of the package
				const saved = await restCall(page, 'GET', `/workflows/${workflowId}`);
				const byName = (name) => saved.nodes.find((n) => n.name === name);
				const project = byName('Document Extraction Trigger').parameters.project;
				if (project.cachedResultName !== PROJECT)
					fail(`the trigger's saved Project is ${JSON.stringify(project)}, not "${PROJECT}"`);
				const submit = byName('Submit').parameters;
				if (submit.documentType !== DOCUMENT_TYPE)
					fail(`Submit's saved Document Type is ${submit.documentType}`);
				if (submit.options?.allowPrivateAddresses !== true)
					fail(`Submit's saved options are ${JSON.stringify(submit.options)}`);
				// Receive Documents: the new Header Auth credential (not the file's), with the header
				const receive = byName('Receive Documents');
				const intake = receive.credentials?.[INTAKE_CREDENTIAL_TYPE];
				if (receive.parameters.authentication !== 'headerAuth' || !intake?.id)
					fail(`Receive Documents was saved without Header Auth: ${JSON.stringify(receive)}`);
				const fileIntake = workflow.nodes.find((n) => n.name === 'Receive Documents').credentials[
					INTAKE_CREDENTIAL_TYPE
				];
				const headerAuths = (await restCall(page, 'GET', '/credentials')).filter(
					(c) => c.type === INTAKE_CREDENTIAL_TYPE,
				);
				if (intake.id === fileIntake.id || !headerAuths.some((c) => c.id === intake.id))
					fail(
						`Receive Documents' Header Auth credential ${JSON.stringify(intake)} is not the one made (${JSON.stringify(headerAuths)})`,
					);
				const without = saved.nodes
					.filter((n) => n.type.startsWith('n8n-nodes-document-extraction.'))
					.filter((n) => n.credentials?.[CREDENTIAL_TYPE]?.id !== credentialId);
				if (without.length) fail(`not on the credential: ${without.map((n) => n.name).join(', ')}`);
			},
		],
		[
			`the curl line of ${DOC}: every row done; the placeholders call nothing`,
			async () => {
				const sinkBefore = (await env.sinkCalls()).length;
				const command = docBlock(DOC, /curl[\s\S]*intake/i);
				if (!command.includes(`${INTAKE_HEADER}: $INTAKE_KEY`))
					fail(`${DOC}'s curl line sends no "${INTAKE_HEADER}: $INTAKE_KEY": ${command}`);
				// without the key: Receive Documents answers 403 and takes nothing
				const url = /https?:\/\/[^\s'"]+\/webhook\/[^\s'"]+/.exec(command)?.[0];
				if (!url) fail(`no webhook address in ${DOC}'s curl line: ${command}`);
				const body = /-d\s+'([^']*)'/.exec(command)?.[1];
				const anonymous = await fetch(url, {
					method: 'POST',
					headers: { 'Content-Type': 'application/json' },
					body,
				});
				if (anonymous.status !== 403)
					fail(`a post without ${INTAKE_HEADER} was answered ${anonymous.status}, not 403`);
				console.log(`        without ${INTAKE_HEADER}: ${anonymous.status}`);
				const posted = Date.now();
				const rows = await postUntilDone(page, command, 0, { INTAKE_KEY: intakeKey });
				console.log(
					`        ${rows.length} rows done ${((Date.now() - posted) / 1000).toFixed(1)} s after the curl line`,
				);
				await page.waitForTimeout(2000);
				const sinkAfter = await env.sinkCalls();
				if (sinkAfter.length !== sinkBefore)
					fail(
						`the workflow called the emulator's sink: ${JSON.stringify(sinkAfter.slice(sinkBefore)).slice(0, 300)}`,
					);
				// the completion ran through the placeholder, which shows what the CRM node would get
				const data = await restCall(
					page,
					'GET',
					`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`,
				);
				const failed = data.results.filter((e) => e.status !== 'success');
				if (failed.length)
					fail(`executions that did not succeed: ${JSON.stringify(failed.map((e) => e.status))}`);
			},
		],
	];
}

module.exports = { productionSteps };
