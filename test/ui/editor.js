#!/usr/bin/env node
'use strict';

/**
 * The package in n8n's editor, in a real browser (Chromium driven by playwright-core), as a user
 * meets it: the first hour as the README and docs/ tell it (open and run the Submit and Wait
 * example, compare the fields the editor offers before the run with those the run outputs, run
 * every example as imported, with the curl lines of the docs), then find the node in the nodes
 * panel, add it as Submit and Wait, pick a project and a document type from the lists the
 * emulator serves, and open the trigger. Each step asserts what is on screen; a broken node icon,
 * a missing field, an empty list, an example that errors as imported or a field the preview
 * offers that the output lacks fails it. Run by test/ui/run.sh against a fresh `npm start`.
 *
 *   UI_EDITOR_URL, UI_EMAIL, UI_PASSWORD   the editor and the login npm start printed
 *   UI_EMULATOR_URL                        the emulator npm start started
 *   UI_CHROMIUM (/usr/bin/chromium)        the browser; never downloaded
 *   UI_PROFILE_DIR                         a fresh, empty user-data-dir (removed afterwards)
 *   UI_SCREENSHOTS_DIR (test/ui/out)       screenshots of the key steps, and of failures
 *   UI_SUMMARY_FILE                        where to write {"passed":N,"failed":N} (else printed)
 *   UI_WAIT_MS (60000)                     how long to wait for something to appear
 *   UI_ONLY                                a regexp: run only the scenarios whose title matches
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium, selectors } = require('playwright-core');

const {
	ROOT,
	BASE,
	EMAIL,
	PASSWORD,
	CHROMIUM,
	SHOTS,
	WAIT,
	CHROMIUM_ARGS,
	OPTION_LABELS,
	PROJECTS,
	fail,
	until,
	untilValue,
	sameList,
	includesAll,
	visible,
	iconRendered,
	inputValue,
	inputPlaceholder,
	shot,
	results,
	scenario,
	freshPage,
	searchNodes,
	openNodeDetails,
	openAction,
	credentialPreselected,
	failingWorkflow,
	createWorkflow,
	runAndOpen,
	projectNames,
	documentTypes,
} = require('./lib.js');
const { firstHour } = require('./firstHour.js');

async function main() {
	if (!EMAIL || !PASSWORD)
		fail('UI_EMAIL and UI_PASSWORD are required (the login npm start prints)');
	if (!fs.existsSync(CHROMIUM)) fail(`no browser at ${CHROMIUM}`);
	selectors.setTestIdAttribute('data-test-id');
	const profile =
		process.env.UI_PROFILE_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'docex-ui-profile-'));
	fs.mkdirSync(profile, { recursive: true });
	fs.mkdirSync(SHOTS, { recursive: true });
	for (const old of fs.readdirSync(SHOTS))
		if (old.endsWith('.png')) fs.rmSync(path.join(SHOTS, old));
	if (fs.readdirSync(profile).length) fail(`the browser profile ${profile} is not empty`);

	console.log(
		`[ui] ${CHROMIUM} against ${BASE}/; screenshots in ${path.relative(ROOT, SHOTS) || SHOTS}`,
	);
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: CHROMIUM,
		headless: true,
		args: CHROMIUM_ARGS,
		viewport: { width: 1280, height: 800 },
		timeout: WAIT,
	});
	context.setDefaultTimeout(WAIT);
	try {
		await run(context);
	} finally {
		await context.close().catch(() => {});
		fs.rmSync(profile, { recursive: true, force: true });
	}
}

async function run(context) {
	const signedIn = await scenario('sign-in', [
		[
			'logs in with the printed owner account',
			async () => {
				const page = await freshPage(context);
				await page.goto(`${BASE}/signin`);
				await (
					await visible(page.getByTestId('emailOrLdapLoginId').locator('input'), 'the email field')
				).fill(EMAIL);
				await page.getByTestId('password').locator('input').fill(PASSWORD);
				await page.getByTestId('form-submit-button').click();
				await until(
					'the editor leaves the sign-in page',
					() => !new URL(page.url()).pathname.startsWith('/signin'),
				);
				await visible(page.getByTestId('project-home-menu-item'), 'the main menu (Overview)');
			},
		],
	]);
	if (!signedIn) return;

	await firstHour(context);

	let page;
	let item;
	await scenario('action node', [
		[
			'finds Document Extraction in the nodes panel by searching "extract"',
			async () => {
				page = await freshPage(context);
				item = await searchNodes(page, 'extract');
				await iconRendered(item, 'the result "Document Extraction"');
				await until('the result describes the node', async () =>
					/Document Extraction Service/.test(await item.first().innerText()),
				);
				await shot(page, 'node-search');
				await openNodeDetails(page, item);
				const panel = page.getByTestId('node-creator');
				await until('the node details list the trigger and the actions', async () => {
					const text = await panel.innerText();
					return /On new Document Extraction event/.test(text) && /Actions \(5\)/.test(text);
				});
				await page
					.getByText(/^Actions \(\d+\)/)
					.first()
					.click();
				for (const action of [
					'Submit a document and wait for the result',
					'Submit a document',
					'Get the status of a task',
					'List projects',
					'Register a webhook',
				]) {
					await visible(
						panel.getByTestId('node-creator-item-name').getByText(action, { exact: true }),
						`the action "${action}"`,
					);
				}
				await shot(page, 'node-panel', page.getByTestId('node-creator'));
			},
		],
		[
			'adds it as Submit and Wait and shows its fields',
			async () => {
				const ndv = await openAction(
					page,
					'Submit a document and wait for the result',
					'Submit a document and wait for the result',
					'the node settings header',
				);
				await untilValue(
					'Operation shows "Submit and Wait"',
					() => inputValue(ndv.getByTestId('parameter-input-operation')),
					(v) => v === 'Submit and Wait',
				);
				await credentialPreselected(ndv);
				for (const [testId, label] of [
					['parameter-input-inputSource', 'Input Source'],
					['parameter-input-binaryPropertyName', 'Input Binary Field'],
					['resource-locator-project', 'Project'],
					['parameter-input-documentType', 'Document Type Name or ID'],
					['parameter-input-output', 'Output'],
				]) {
					await visible(ndv.getByTestId(testId), `the field "${label}"`);
					await visible(
						ndv.getByTestId('node-parameters').getByText(label, { exact: true }),
						`the label "${label}"`,
					);
				}
				await untilValue(
					'"Input Binary Field" defaults to "data"',
					() => inputValue(ndv.getByTestId('parameter-input-binaryPropertyName')),
					(v) => v === 'data',
				);
				const canvasNode = page
					.getByTestId('canvas-node')
					.filter({ hasText: 'Submit a document and wait' });
				await iconRendered(canvasNode, 'the node on the canvas');
			},
		],
		[
			'before a project is chosen, Document Type offers the hint "Choose a Project First", not an error',
			async () => {
				const ndv = page.getByTestId('ndv');
				await untilValue(
					'Document Type offers only the hint',
					() => documentTypes(page),
					sameList(['Choose a Project First']),
				);
				const field = ndv.getByTestId('parameter-input-documentType');
				if (await ndv.getByText(/Error fetching options/).count())
					fail('Document Type shows "Error fetching options"');
				await shot(page, 'document-type-hint', ndv.locator('.node-settings'));
				await page.keyboard.press('Escape');
				await field.locator('input').first().blur();
			},
		],
		[
			"opens the Project list and sees the emulator's projects",
			async () => {
				await page.getByTestId('resource-locator-project').getByTestId('rlc-input').click();
				await untilValue(
					`the Project list shows ${PROJECTS.join(', ')}`,
					() => projectNames(page),
					includesAll(PROJECTS),
				);
				await shot(page, 'project-list', page.getByTestId('ndv').locator('.node-settings'));
			},
		],
		[
			'picks Invoices and sees its document types (invoice, receipt) after the hint "Choose a Document Type"',
			async () => {
				const ndv = page.getByTestId('ndv');
				await page.getByTestId('rlc-item').getByText('Invoices', { exact: true }).click();
				await untilValue(
					'Project shows "Invoices"',
					() => ndv.getByTestId('rlc-input').inputValue(),
					(v) => v === 'Invoices',
				);
				await untilValue(
					'the list is the hint, then invoice and receipt',
					() => documentTypes(page),
					sameList(['Choose a Document Type', 'invoice', 'receipt']),
				);
				await shot(
					page,
					'submit-and-wait-fields',
					page.getByTestId('ndv').locator('.node-settings'),
				);
				await page.keyboard.press('Escape');
			},
		],
		[
			'with a project picked and no document type yet, Document Type shows no warning and asks for a type',
			async () => {
				const ndv = page.getByTestId('ndv');
				const field = ndv.getByTestId('parameter-input-documentType');
				const item = field.locator('xpath=ancestor::*[@data-test-id="parameter-item"][1]');
				// the field shows its issues once its options are loaded
				await until(
					'Document Type has loaded its options',
					async () =>
						!/Loading options/.test(`${await inputValue(field)}${await inputPlaceholder(field)}`),
				);
				await page.waitForTimeout(500);
				await shot(page, 'document-type-after-project', item);
				const issues = item.getByTestId('parameter-issues');
				if (await issues.count()) {
					await issues.first().hover();
					const tip = page.locator('.el-popper:visible', { hasText: 'Issues' }).last();
					await tip.waitFor({ state: 'visible', timeout: 3000 }).catch(() => {});
					const tooltip = await tip.innerText().catch(() => '');
					fail(`Document Type shows a warning icon: ${tooltip.replace(/\s+/g, ' ').trim()}`);
				}
				const shown = `${await inputValue(field)}${await inputPlaceholder(field)}`;
				if (/Choose a Project First/.test(shown))
					fail(`Document Type still says "${shown}" after a project was picked`);
				if (!/document type/i.test(shown))
					fail(`Document Type says "${shown}", not what to do next (choose a document type)`);
				await field.locator('input').first().click();
				await page
					.locator('[data-test-id=parameter-input-item]:visible')
					.getByText('invoice', { exact: true })
					.click();
				await untilValue(
					'Document Type shows "invoice"',
					() => inputValue(ndv.getByTestId('parameter-input-documentType')),
					(v) => v === 'invoice',
				);
			},
		],
		[
			'picks "Invoices EU – Zürich (2025)" and sees its document type',
			async () => {
				const ndv = page.getByTestId('ndv');
				await ndv.getByTestId('rlc-input').click();
				await (
					await visible(
						page.getByTestId('rlc-item').getByText(PROJECTS[2], { exact: true }),
						`"${PROJECTS[2]}" in the list`,
					)
				).click();
				await untilValue(
					`Project shows "${PROJECTS[2]}"`,
					() => ndv.getByTestId('rlc-input').inputValue(),
					(v) => v === PROJECTS[2],
				);
				await untilValue(
					'the list is now the hint and invoice',
					() => documentTypes(page),
					sameList(['Choose a Document Type', 'invoice']),
				);
				await page.keyboard.press('Escape');
			},
		],
		[
			'with Input Source URL and every option added, no label is cut off',
			async () => {
				const ndv = page.getByTestId('ndv');
				await ndv.getByTestId('parameter-input-inputSource').locator('input').first().click();
				await (
					await visible(
						page.locator('[data-test-id=parameter-input-item]:visible').getByText('URL', {
							exact: true,
						}),
						'the Input Source "URL"',
					)
				).click();
				await visible(ndv.getByTestId('parameter-input-documentUrl'), 'the field "Document URL"');
				for (let added = 0; added < 20; added++) {
					const add = ndv.getByTestId('collection-parameter-add');
					if (!(await add.isVisible().catch(() => false))) break; // every option added
					await add.click();
					const next = page.locator('[data-test-id=collection-parameter-option]:visible').first();
					const listed = await next
						.waitFor({ state: 'visible', timeout: 3000 })
						.then(() => true)
						.catch(() => false);
					if (!listed) break;
					await next.click();
					await page.waitForTimeout(200);
				}
				if (await page.locator('.el-select-dropdown:visible').count())
					await page.keyboard.press('Escape');
				await visible(
					ndv.getByTestId('node-parameters').getByText('Allow Private Addresses', { exact: true }),
					'the label "Allow Private Addresses"',
				);
				// a label loses room when hovered (n8n then shows Fixed / Expression and the delete icon)
				const truncated = () =>
					ndv.locator('.node-settings').evaluate((root) =>
						[...root.querySelectorAll('*')]
							.filter((el) => {
								const style = getComputedStyle(el);
								return (
									el.offsetParent !== null &&
									style.textOverflow === 'ellipsis' &&
									el.scrollWidth > el.clientWidth + 1 &&
									el.innerText.trim()
								);
							})
							.map((el) => el.innerText.trim()),
					);
				const cut = new Set(await truncated());
				for (const name of OPTION_LABELS) {
					const label = ndv.getByTestId('node-parameters').getByText(name, { exact: true });
					if (!(await label.count())) fail(`the option "${name}" was not added`);
					await label.first().hover();
					await page.waitForTimeout(150);
					for (const text of await truncated()) cut.add(text);
				}
				await shot(page, 'url-options', ndv.locator('.node-settings'));
				if (cut.size) fail(`labels cut off: ${[...cut].join(' | ')}`);
			},
		],
	]);

	await scenario('errors and hints', [
		[
			'a failed document: the error in the output panel says what failed and what to do',
			async () => {
				page = await freshPage(context);
				const id = await createWorkflow(page, failingWorkflow(false));
				const { output } = await runAndOpen(page, id, false);
				await until("the output panel shows the service's reason", async () =>
					/Extraction failed/.test(await output.innerText()),
				);
				await until('the output panel says what to do', async () =>
					/Output Failed Tasks as Items/.test(await output.innerText()),
				);
				const card = output.getByTestId('node-error-view');
				await shot(page, 'error-output', (await card.count()) ? card : output);
			},
		],
		[
			'with On Error → Continue: a hint above the output names the failed item and its task_id',
			async () => {
				page = await freshPage(context);
				const id = await createWorkflow(page, failingWorkflow(true));
				const { output } = await runAndOpen(page, id, true);
				await until('the hint is shown above the output', async () =>
					/1 item failed and is output as an error item .*it carries its task_id/s.test(
						await output.innerText(),
					),
				);
				await output.getByTestId('radio-button-json').first().click();
				await until('the JSON view shows the error item with its task_id', async () =>
					/"error":\s*"Extraction failed[^"]*",\s*"kind":\s*"task_failed",\s*"task_id":\s*"[0-9a-f-]{36}"/.test(
						await output.innerText(),
					),
				);
				await shot(page, 'hint-output', output);
			},
		],
	]);

	await scenario('trigger', [
		[
			'opens the Document Extraction Trigger and sees its fields',
			async () => {
				page = await freshPage(context);
				const result = await searchNodes(page, 'extract');
				await openNodeDetails(page, result);
				const ndv = await openAction(
					page,
					'On new Document Extraction event',
					'Document Extraction Trigger',
					'the trigger settings header',
				);
				await credentialPreselected(ndv);
				await visible(ndv.getByText('Webhook URLs'), 'the Webhook URLs section');
				await visible(ndv.getByTestId('resource-locator-project'), 'the field "Project"');
				await visible(
					ndv.getByTestId('parameter-input-useExistingRegistration'),
					'the field "Use Existing Registration"',
				);
				// no notice stacked above the fields: n8n cannot tell the node its webhook URL, so the
				// https advice is in the Project field's description, shown where it applies
				for (const gone of [
					/The service delivers events only to an https address/,
					/registers the test URL .* at the project, anew for every listen; publishing/,
					/Deleted this workflow.s webhook in the service.s dashboard/,
				]) {
					if (await ndv.getByText(gone).count()) fail(`the trigger still shows the notice ${gone}`);
				}
				await shot(page, 'trigger-fields', ndv.locator('.node-settings'));
				// the words the README and the Project field's description use for a test listen
				await visible(ndv.getByText('Execute step', { exact: true }), 'the button "Execute step"');
				await visible(
					ndv.getByText('Test this trigger', { exact: true }),
					'the link "Test this trigger"',
				);
				await shot(page, 'trigger-panel', ndv);

				await ndv.getByTestId('resource-locator-project').getByTestId('rlc-input').click();
				await untilValue(
					"the trigger's Project list shows the projects",
					() => projectNames(page),
					includesAll(PROJECTS),
				);
				await page.keyboard.press('Escape');

				await (
					await visible(ndv.getByTestId('collection-parameter-add'), 'the "Add option" button')
				).click();
				for (const option of ['Fetch Error Details', 'Status']) {
					await visible(
						page.getByTestId('collection-parameter-option').getByText(option, { exact: true }),
						`the option "${option}"`,
					);
				}
				await page.keyboard.press('Escape');

				await ndv
					.getByTestId('parameter-input-useExistingRegistration')
					.locator('.el-switch')
					.first()
					.click();
				await visible(
					ndv.getByTestId('parameter-input-webhookSecret'),
					'the field "Webhook Secret" once "Use Existing Registration" is on',
				);
				await until(
					'"Project" is hidden once "Use Existing Registration" is on',
					async () => !(await ndv.getByTestId('resource-locator-project').isVisible()),
				);
			},
		],
	]);
}

main()
	.catch((error) => {
		results.push({ label: 'browser', ok: false, error: error.message });
		console.log(`  FAIL  ${error.message}`);
	})
	.finally(() => {
		const passed = results.filter((r) => r.ok).length;
		const failed = results.length - passed || (results.length ? 0 : 1);
		// run.sh prints the summary last, after it has stopped n8n and the emulator
		if (process.env.UI_SUMMARY_FILE)
			fs.writeFileSync(process.env.UI_SUMMARY_FILE, JSON.stringify({ passed, failed }));
		else console.log(`${passed} passed, ${failed} failed`);
		process.exit(failed ? 1 : 0);
	});
