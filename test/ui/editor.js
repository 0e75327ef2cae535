#!/usr/bin/env node
'use strict';

/**
 * The package in n8n's editor as a user meets it on a fresh `npm start` (run by run.sh, which sets
 * UI_EDITOR_URL, UI_EMAIL, UI_PASSWORD and UI_EMULATOR_URL): the first hour (firstHour.js), the
 * nodes panel, Submit and Wait with the emulator's lists, a failed document, and the trigger.
 */

const fs = require('fs');
const path = require('path');

const ui = require('./lib.js');
const { firstHour } = require('./firstHour.js');

const BASE = process.env.UI_EDITOR_URL || 'http://127.0.0.1:5678/';
const SUBMIT = ui.EXAMPLE.nodes.find((n) => n.type.endsWith('.documentExtraction'));
/** The options an open select (dropdown) lists. */
const OPTIONS = '[data-test-id=parameter-input-item]:visible';
/** The options of Submit and Wait with Input Source URL, as the editor labels them. */
const OPTION_LABELS = [
	'Allow Private Addresses',
	'Download Timeout (Seconds)',
	'Include Downloaded File',
	'Max Concurrent Requests',
	'Max Download Size (MB)',
	'Max Wait (Seconds)',
	'Max Pages',
	'Output Failed Tasks as Items',
	'Poll Interval (Seconds)',
];

/** Opens the nodes panel on an empty workflow, searches as a user types, and returns the result. */
async function searchNodes(page, text) {
	await page.goto('workflow/new');
	await ui.act(page.getByTestId('node-creator-plus-button'), 'the "+" (open nodes panel) button');
	const search = page.getByTestId('node-creator-search-bar');
	await ui.act(search, 'the nodes panel search box', 'fill', text);
	const name = itemName(page, 'Document Extraction');
	const item = page.getByTestId('item-iterator-item').filter({ has: name });
	await ui.visible(item, `"Document Extraction" among the results for "${text}"`);
	return item;
}

const itemName = (scope, text) => ui.exact(scope.getByTestId('node-creator-item-name'), text);

async function openDetails(page, item) {
	await item.first().click();
	await ui.visible(ui.exact(page, 'Node details'), 'the node details panel');
}

/** Opens the result's details (when `item`), picks `action`, checks title, icon and credential. */
async function openAction(page, item, action, title) {
	if (item) await openDetails(page, item);
	await ui.act(itemName(page, action), `the "${action}" entry`);
	const ndv = await ui.visible(page.getByTestId('ndv'), `the settings of "${action}"`);
	await ui.untilValue(
		`the title reads "${title}"`,
		async () => (await ndv.getByTestId('node-title-container').innerText()).trim(),
		(t) => t === title,
	);
	await ui.iconRendered(ndv, 'the node settings header');
	const credential = ndv.getByTestId('node-credentials-select');
	await ui.untilInput('the credential is preselected', credential, ui.CREDENTIAL);
	return ndv;
}

const projectNames = async (page) =>
	(await page.getByTestId('rlc-item').allInnerTexts()).map((s) => s.trim());

/** The names the Document Type dropdown lists (without descriptions); opens it when closed. */
async function documentTypes(page) {
	const names = (await page.locator(OPTIONS).allInnerTexts()).map((s) => s.trim().split('\n')[0]);
	const field = page.getByTestId('ndv').getByTestId('parameter-input-documentType');
	if (!names.length && !(await page.locator('.el-select-dropdown:visible').count()))
		await field.locator('input').first().click();
	return names;
}

/** Picks `name` in the open Project list; Document Type then lists the hint and `types`. */
async function pickProject(page, ndv, name, types) {
	await ui.act(ui.exact(page.getByTestId('rlc-item'), name), `"${name}" in the list`);
	await ui.untilValue(
		`Project shows "${name}"`,
		() => ndv.getByTestId('rlc-input').inputValue(),
		(v) => v === name,
	);
	await ui.untilValue(
		`the list is the hint, then ${types.join(' and ')}`,
		() => documentTypes(page),
		ui.sameList(['Choose a Document Type', ...types]),
	);
}

/** The example with a document the emulator fails; with Continue, two items (one good). */
function failingWorkflow(continueOnFail) {
	const byType = (type) => ui.EXAMPLE.nodes.find((n) => n.type === type);
	const sample = byType('n8n-nodes-base.set');
	const good = sample.parameters.assignments.assignments.find((a) => a.name === 'pdfBase64').value;
	const bad = Buffer.from(
		`${Buffer.from(good, 'base64').toString('latin1')}\n% EMULATOR_FAIL unreadable scan\n`,
		'latin1',
	).toString('base64');
	const files = [{ fileName: 'unreadable-scan.pdf', pdfBase64: bad }];
	if (continueOnFail) files.push({ fileName: 'invoice.pdf', pdfBase64: good });
	const chain = [
		byType('n8n-nodes-base.manualTrigger'),
		{
			...sample,
			name: 'Sample PDFs',
			typeVersion: 3.4,
			parameters: { mode: 'raw', jsonOutput: JSON.stringify({ files }), options: {} },
		},
		{
			id: '6f1d3c2a-0b7e-4c55-9a1e-3d2f4b5c6d7e',
			name: 'Split Out',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			parameters: { fieldToSplitOut: 'files', options: {} },
		},
		byType('n8n-nodes-base.convertToFile'),
		{ ...SUBMIT, ...(continueOnFail ? { onError: 'continueRegularOutput' } : {}) },
	];
	return {
		name: `UI: a failed document${continueOnFail ? ' (On Error → Continue)' : ''}`,
		nodes: chain.map((n, i) => ({ ...n, position: [i * 220, 0] })),
		connections: Object.fromEntries(
			chain
				.slice(0, -1)
				.map((n, i) => [n.name, { main: [[{ node: chain[i + 1].name, type: 'main', index: 0 }]] }]),
		),
		settings: { executionOrder: 'v1' },
	};
}

/** Saves the workflow, runs it in the editor, and opens the Document Extraction node's output. */
async function runFailing(page, continueOnFail) {
	await ui.openHome(page);
	const { id } = await ui.restCall(page, 'POST', '/workflows', failingWorkflow(continueOnFail));
	await page.goto(`workflow/${id}`);
	const node = page.getByTestId('canvas-node').filter({ hasText: SUBMIT.name });
	await ui.visible(node, `the canvas node "${SUBMIT.name}"`);
	await ui.act(page.getByTestId('execute-workflow-button'), 'the "Execute workflow" button');
	// n8n's message on how the run ended: success, or "Problem in node '…'"
	const ended = continueOnFail
		? /Workflow executed successfully/
		: new RegExp(`Problem in node .${SUBMIT.name}.`);
	await ui.dismissToast(page, ended, ui.RUN_WAIT);
	await node.first().dblclick();
	const ndv = await ui.visible(page.getByTestId('ndv'), `the settings of "${SUBMIT.name}"`);
	return ui.visible(ndv.getByTestId('output-panel'), 'the output panel');
}

async function run(context) {
	const signedIn = await ui.scenario('sign-in', [
		[
			'logs in with the printed owner account',
			async () =>
				ui.signIn(await ui.freshPage(context), process.env.UI_EMAIL, process.env.UI_PASSWORD),
		],
	]);
	if (!signedIn) return;

	await firstHour(context);

	let page;
	let ndv;
	const settings = () => ndv.locator('.node-settings');
	const docType = () => ndv.getByTestId('parameter-input-documentType');
	await ui.scenario('action node', [
		[
			'finds Document Extraction in the nodes panel by searching "extract"',
			async () => {
				page = await ui.freshPage(context);
				const item = await searchNodes(page, 'extract');
				await ui.iconRendered(item, 'the result "Document Extraction"');
				await ui.until('the result describes the node', async () =>
					/Document Extraction Service/.test(await item.first().innerText()),
				);
				await openDetails(page, item);
				const panel = page.getByTestId('node-creator');
				await ui.until('the node details list the trigger and the actions', async () => {
					const text = await panel.innerText();
					return /On new Document Extraction event/.test(text) && /Actions \(5\)/.test(text);
				});
				await ui.act(page.getByText(/^Actions \(\d+\)/), 'the heading "Actions"');
				for (const action of [
					'Submit a document and wait for the result',
					'Submit a document',
					'Get the status of a task',
					'List projects',
					'Register a webhook',
				])
					await ui.visible(itemName(panel, action), `the action "${action}"`);
				await ui.shot(page, 'node-panel', panel);
			},
		],
		[
			'adds it as Submit and Wait and shows its fields',
			async () => {
				const action = 'Submit a document and wait for the result';
				ndv = await openAction(page, null, action, action);
				const operation = ndv.getByTestId('parameter-input-operation');
				await ui.untilInput('Operation shows "Submit and Wait"', operation, 'Submit and Wait');
				for (const [testId, label] of [
					['parameter-input-inputSource', 'Input Source'],
					['parameter-input-binaryPropertyName', 'Input Binary Field'],
					['resource-locator-project', 'Project'],
					['parameter-input-documentType', 'Document Type Name or ID'],
					['parameter-input-output', 'Output'],
				]) {
					await ui.visible(ndv.getByTestId(testId), `the field "${label}"`);
					await ui.visible(
						ui.exact(ndv.getByTestId('node-parameters'), label),
						`the label "${label}"`,
					);
				}
				const binaryField = ndv.getByTestId('parameter-input-binaryPropertyName');
				await ui.untilInput('"Input Binary Field" defaults to "data"', binaryField, 'data');
				await ui.iconRendered(
					page.getByTestId('canvas-node').filter({ hasText: 'Submit a document and wait' }),
					'the node on the canvas',
				);
			},
		],
		[
			'before a project is chosen, Document Type offers the hint "Choose a Project First", not an error',
			async () => {
				await ui.untilValue(
					'Document Type offers only the hint',
					() => documentTypes(page),
					ui.sameList(['Choose a Project First']),
				);
				if (await ndv.getByText(/Error fetching options/).count())
					ui.fail('Document Type shows "Error fetching options"');
				await ui.shot(page, 'document-type-hint', settings());
				await page.keyboard.press('Escape');
				await docType().locator('input').first().blur();
			},
		],
		[
			"opens the Project list and sees the emulator's projects",
			async () => {
				await ndv.getByTestId('resource-locator-project').getByTestId('rlc-input').click();
				await ui.untilValue(
					`the Project list shows ${ui.PROJECTS.join(', ')}`,
					() => projectNames(page),
					ui.includesAll(ui.PROJECTS),
				);
				await ui.shot(page, 'project-list', settings());
			},
		],
		[
			'picks Invoices and sees its document types (invoice, receipt) after the hint "Choose a Document Type"',
			async () => {
				await pickProject(page, ndv, ui.PROJECTS[0], ['invoice', 'receipt']);
				await ui.shot(page, 'submit-and-wait-fields', settings());
				await page.keyboard.press('Escape');
			},
		],
		[
			'with a project picked and no document type yet, Document Type shows no warning and asks for a type',
			async () => {
				const field = docType();
				const item = field.locator('xpath=ancestor::*[@data-test-id="parameter-item"][1]');
				const shown = async () =>
					`${await ui.inputValue(field)}${await ui.inputPlaceholder(field)}`;
				// the field shows its issues once its options are loaded
				await ui.until(
					'Document Type has loaded its options',
					async () => !/Loading options/.test(await shown()),
				);
				await page.waitForTimeout(500);
				const issues = item.getByTestId('parameter-issues');
				if (await issues.count()) {
					await issues.first().hover();
					const tip = page.locator('.el-popper:visible', { hasText: 'Issues' }).last();
					await tip.waitFor({ state: 'visible', timeout: 3000 }).catch(() => {});
					const tooltip = await tip.innerText().catch(() => '');
					ui.fail(`Document Type shows a warning icon: ${tooltip.replace(/\s+/g, ' ').trim()}`);
				}
				const text = await shown();
				if (/Choose a Project First/.test(text))
					ui.fail(`Document Type still says "${text}" after a project was picked`);
				if (!/document type/i.test(text))
					ui.fail(`Document Type says "${text}", not what to do next (choose a document type)`);
				await field.locator('input').first().click();
				await ui.act(ui.exact(page.locator(OPTIONS), 'invoice'), 'the option "invoice"');
				await ui.untilInput('Document Type shows "invoice"', field, 'invoice');
			},
		],
		[
			`picks "${ui.PROJECTS[2]}" and sees its document type`,
			async () => {
				await ndv.getByTestId('rlc-input').click();
				await pickProject(page, ndv, ui.PROJECTS[2], ['invoice']);
				await page.keyboard.press('Escape');
			},
		],
		[
			'with Input Source URL and every option added, no label is cut off',
			async () => {
				await ndv.getByTestId('parameter-input-inputSource').locator('input').first().click();
				await ui.act(ui.exact(page.locator(OPTIONS), 'URL'), 'the Input Source "URL"');
				await ui.visible(
					ndv.getByTestId('parameter-input-documentUrl'),
					'the field "Document URL"',
				);
				for (let added = 0; added < 20; added++) {
					const add = ndv.getByTestId('collection-parameter-add');
					if (!(await add.isVisible().catch(() => false))) break; // every option added
					await add.click();
					const next = page.locator('[data-test-id=collection-parameter-option]:visible').first();
					if ((await next.waitFor({ timeout: 3000 }).catch(() => 'none')) === 'none') break;
					await next.click();
					await page.waitForTimeout(200);
				}
				if (await page.locator('.el-select-dropdown:visible').count())
					await page.keyboard.press('Escape');
				const labels = ndv.getByTestId('node-parameters');
				await ui.visible(
					ui.exact(labels, 'Allow Private Addresses'),
					'the label "Allow Private Addresses"',
				);
				const truncated = () =>
					settings().evaluate((root) =>
						[...root.querySelectorAll('*')]
							.filter(
								(el) =>
									el.offsetParent !== null &&
									getComputedStyle(el).textOverflow === 'ellipsis' &&
									el.scrollWidth > el.clientWidth + 1 &&
									el.innerText.trim(),
							)
							.map((el) => el.innerText.trim()),
					);
				const cut = new Set(await truncated());
				// a label loses room when hovered (n8n then shows Fixed / Expression and the delete icon)
				for (const name of OPTION_LABELS) {
					const label = ui.exact(labels, name);
					if (!(await label.count())) ui.fail(`the option "${name}" was not added`);
					await label.first().hover();
					await page.waitForTimeout(150);
					for (const text of await truncated()) cut.add(text);
				}
				if (cut.size) ui.fail(`labels cut off: ${[...cut].join(' | ')}`);
			},
		],
	]);

	await ui.scenario('errors and hints', [
		[
			'a failed document: the error in the output panel says what failed and what to do',
			async () => {
				page = await ui.freshPage(context);
				const output = await runFailing(page, false);
				await ui.until("the output panel shows the service's reason and what to do", async () => {
					const text = await output.innerText();
					return /Extraction failed/.test(text) && /Output Failed Tasks as Items/.test(text);
				});
				const card = output.getByTestId('node-error-view');
				await ui.shot(page, 'error-output', (await card.count()) ? card : output);
			},
		],
		[
			'with On Error → Continue: a hint above the output names the failed item and its task_id',
			async () => {
				page = await ui.freshPage(context);
				const output = await runFailing(page, true);
				await ui.until('the hint is shown above the output', async () =>
					/1 item failed and is output as an error item .*it carries its task_id/s.test(
						await output.innerText(),
					),
				);
				await output.getByTestId('radio-button-json').first().click();
				await ui.until('the JSON view shows the error item with its task_id', async () =>
					/"error":\s*"Extraction failed[^"]*",\s*"kind":\s*"task_failed",\s*"task_id":\s*"[0-9a-f-]{36}"/.test(
						await output.innerText(),
					),
				);
				await ui.shot(page, 'hint-output', output);
			},
		],
	]);

	await ui.scenario('trigger', [
		[
			'opens the Document Extraction Trigger and sees its fields',
			async () => {
				page = await ui.freshPage(context);
				ndv = await openAction(
					page,
					await searchNodes(page, 'extract'),
					'On new Document Extraction event',
					'Document Extraction Trigger',
				);
				await ui.visible(ndv.getByText('Webhook URLs'), 'the Webhook URLs section');
				await ui.visible(ndv.getByTestId('resource-locator-project'), 'the field "Project"');
				const existing = ndv.getByTestId('parameter-input-useExistingRegistration');
				await ui.visible(existing, 'the field "Use Existing Registration"');
				// no notice: n8n cannot tell the node its URL; the https advice is in Project's description
				for (const gone of [
					/The service delivers events only to an https address/,
					/registers the test URL .* at the project, anew for every listen; publishing/,
					/Deleted this workflow.s webhook in the service.s dashboard/,
				])
					if (await ndv.getByText(gone).count())
						ui.fail(`the trigger still shows the notice ${gone}`);
				await ui.shot(page, 'trigger-fields', settings());
				// the words the README and the Project field's description use for a test listen
				await ui.visible(ui.exact(ndv, 'Execute step'), 'the button "Execute step"');
				await ui.visible(ui.exact(ndv, 'Test this trigger'), 'the link "Test this trigger"');

				await ndv.getByTestId('resource-locator-project').getByTestId('rlc-input').click();
				await ui.untilValue(
					"the trigger's Project list shows the projects",
					() => projectNames(page),
					ui.includesAll(ui.PROJECTS),
				);
				await page.keyboard.press('Escape');
				await ui.act(ndv.getByTestId('collection-parameter-add'), 'the "Add option" button');
				for (const option of ['Fetch Error Details', 'Status'])
					await ui.visible(
						ui.exact(page.getByTestId('collection-parameter-option'), option),
						`the option "${option}"`,
					);
				await page.keyboard.press('Escape');

				await existing.locator('.el-switch').first().click();
				await ui.visible(
					ndv.getByTestId('parameter-input-webhookSecret'),
					'the field "Webhook Secret" once "Use Existing Registration" is on',
				);
				await ui.until(
					'"Project" is hidden once "Use Existing Registration" is on',
					async () => !(await ndv.getByTestId('resource-locator-project').isVisible()),
				);
			},
		],
	]);
}

ui.runMain(async () => {
	fs.mkdirSync(ui.SHOTS, { recursive: true });
	for (const old of fs.readdirSync(ui.SHOTS).filter((f) => f.endsWith('.png')))
		fs.rmSync(path.join(ui.SHOTS, old));
	await ui.withBrowser(BASE, run);
});
