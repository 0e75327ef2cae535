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

const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium, selectors } = require('playwright-core');

const ROOT = path.resolve(__dirname, '../..');
const BASE = (process.env.UI_EDITOR_URL || 'http://127.0.0.1:5678/').replace(/\/+$/, '');
const EMULATOR = (process.env.UI_EMULATOR_URL || 'http://127.0.0.1:8790').replace(/\/+$/, '');
const EMAIL = process.env.UI_EMAIL;
const PASSWORD = process.env.UI_PASSWORD;
const CHROMIUM = process.env.UI_CHROMIUM || '/usr/bin/chromium';
const SHOTS = process.env.UI_SCREENSHOTS_DIR || path.join(ROOT, 'test/ui/out');
const WAIT = Number(process.env.UI_WAIT_MS || 60000);
const RUN_WAIT = Math.max(WAIT, 180000);
const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

const EXAMPLE = JSON.parse(
	fs.readFileSync(path.join(ROOT, 'examples/submit-and-wait.json'), 'utf8'),
);
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
const PROJECTS = ['Invoices', 'Identity', 'Invoices EU – Zürich (2025)'];
const CREDENTIAL = 'Document Extraction (local emulator)';

// ---------------------------------------------------------------- small assertion toolkit

function fail(message) {
	throw new Error(message);
}

/** Polls `probe` until it returns a truthy value; fails with `what` and the last value seen. */
async function until(what, probe, timeout = WAIT) {
	const deadline = Date.now() + timeout;
	let last;
	for (;;) {
		try {
			last = await probe();
			if (last) return last;
		} catch (error) {
			last = `(${error.message.split('\n')[0]})`;
		}
		if (Date.now() > deadline) {
			fail(`${what}: not true after ${timeout / 1000} s (last seen: ${JSON.stringify(last)})`);
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** Reads a value until `accept` takes it; the failure names the last value read. */
async function untilValue(what, read, accept, timeout = WAIT) {
	let seen;
	await until(
		what,
		async () => {
			seen = await read();
			return accept(seen);
		},
		timeout,
	).catch((error) => {
		throw new Error(
			`${error.message.replace(/ \(last seen: .*\)$/s, '')} (on screen: ${JSON.stringify(seen)})`,
		);
	});
	return seen;
}

const sameList = (expected) => (names) => names.join('\n') === expected.join('\n');
const includesAll = (expected) => (names) => expected.every((name) => names.includes(name));

async function visible(locator, what, timeout = WAIT) {
	try {
		await locator.first().waitFor({ state: 'visible', timeout });
	} catch {
		fail(`${what} is not on screen after ${timeout / 1000} s`);
	}
	return locator.first();
}

/**
 * The package's node icon inside `scope` has loaded: an <img> served from the package's icon
 * path (n8n shows something else when the file is missing) whose image decoded (naturalWidth > 0).
 */
async function iconRendered(scope, what) {
	const icon = scope.locator('img[src*="/icons/n8n-nodes-document-extraction/"]:visible').first();
	await untilValue(
		`${what}: the node icon loads`,
		() =>
			icon.evaluate((img) => ({
				src: img.getAttribute('src'),
				complete: img.complete,
				naturalWidth: img.naturalWidth,
			})),
		(img) => img.complete && img.naturalWidth > 0,
	);
}

const inputValue = (locator) => locator.locator('input').first().inputValue();

/** Saves a screenshot: of the whole window, or cropped to the union of `regions` (locators). */
async function shot(page, name, ...regions) {
	fs.mkdirSync(SHOTS, { recursive: true });
	const file = path.join(SHOTS, `${name}.png`);
	let clip;
	for (const region of regions) {
		const box = await region.first().boundingBox();
		if (!box) continue;
		const right = Math.max(box.x + box.width, clip ? clip.x + clip.width : 0);
		const bottom = Math.max(box.y + box.height, clip ? clip.y + clip.height : 0);
		const x = Math.min(box.x, clip ? clip.x : Infinity);
		const y = Math.min(box.y, clip ? clip.y : Infinity);
		clip = { x, y, width: right - x, height: bottom - y };
	}
	await page.screenshot({ path: file, ...(clip && { clip }) });
	return file;
}

// ---------------------------------------------------------------- steps

const results = [];
const ONLY = process.env.UI_ONLY ? new RegExp(process.env.UI_ONLY, 'i') : undefined;
async function scenario(title, steps) {
	if (ONLY && title !== 'sign-in' && !ONLY.test(title)) return true;
	let blocked = '';
	for (const [name, run] of steps) {
		const label = `${title}: ${name}`;
		if (blocked) {
			results.push({ label, ok: false, error: `not run: ${blocked}` });
			console.log(`  FAIL  ${label} (not run: ${blocked})`);
			continue;
		}
		const started = Date.now();
		try {
			await run();
			const seconds = ((Date.now() - started) / 1000).toFixed(1);
			results.push({ label, ok: true });
			console.log(`  ok    ${label} (${seconds} s)`);
		} catch (error) {
			blocked = `"${name}" failed`;
			const message = error.message.replace(/\x1b\[[0-9;]*m/g, '').trim();
			results.push({ label, ok: false, error: message });
			console.log(`  FAIL  ${label}\n        ${message.split('\n').join('\n        ')}`);
			const page = current.page;
			if (page && !page.isClosed()) {
				const safe = label.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
				await shot(page, `FAILED-${safe}`)
					.then((file) => console.log(`        screenshot: ${path.relative(ROOT, file)}`))
					.catch(() => {});
			}
		}
	}
	return !blocked;
}

const current = { page: null };
async function freshPage(context) {
	const previous = current.page;
	current.page = await context.newPage();
	if (previous && !previous.isClosed()) await previous.close();
	return current.page;
}

/** Opens the nodes panel on an empty workflow and searches as a user types. */
async function searchNodes(page, text) {
	await page.goto(`${BASE}/workflow/new`);
	await (
		await visible(page.getByTestId('node-creator-plus-button'), 'the "+" (open nodes panel) button')
	).click();
	const search = await visible(
		page.getByTestId('node-creator-search-bar'),
		'the nodes panel search box',
	);
	await search.fill(text);
	const item = page.getByTestId('item-iterator-item').filter({
		has: page
			.getByTestId('node-creator-item-name')
			.getByText('Document Extraction', { exact: true }),
	});
	await visible(item, `"Document Extraction" among the results for "${text}"`);
	return item;
}

async function openNodeDetails(page, item) {
	await item.first().click();
	await visible(page.getByText('Node details', { exact: true }), 'the node details panel');
}

async function pickAction(page, action) {
	await (
		await visible(
			page.getByTestId('node-creator-item-name').getByText(action, { exact: true }),
			`the "${action}" entry`,
		)
	).click();
	return visible(page.getByTestId('ndv'), `the node's settings (NDV) after picking "${action}"`);
}

/** Picks the action; its settings show `title` and the node icon in their header (`header`). */
async function openAction(page, action, title, header) {
	const ndv = await pickAction(page, action);
	await untilValue(
		`the title reads "${title}"`,
		() => ndvTitle(page),
		(t) => t === title,
	);
	await iconRendered(ndv, header);
	return ndv;
}

async function credentialPreselected(ndv) {
	await untilValue(
		`the credential "${CREDENTIAL}" is preselected`,
		() => inputValue(ndv.getByTestId('node-credentials-select')),
		(v) => v === CREDENTIAL,
	);
}

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
			'picks Invoices and sees its document types (invoice, receipt)',
			async () => {
				const ndv = page.getByTestId('ndv');
				await page.getByTestId('rlc-item').getByText('Invoices', { exact: true }).click();
				await untilValue(
					'Project shows "Invoices"',
					() => ndv.getByTestId('rlc-input').inputValue(),
					(v) => v === 'Invoices',
				);
				await untilValue(
					'the document types are invoice and receipt',
					() => documentTypes(page),
					sameList(['invoice', 'receipt']),
				);
				await shot(
					page,
					'submit-and-wait-fields',
					page.getByTestId('ndv').locator('.node-settings'),
				);
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
					'the document types are now only invoice',
					() => documentTypes(page),
					sameList(['invoice']),
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
					/"error":\s*"Extraction failed[^"]*",\s*"task_id":\s*"[0-9a-f-]{36}"/.test(
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

const submitNode = EXAMPLE.nodes.find((n) => n.type.endsWith('.documentExtraction'));

/**
 * The first hour, as README.md and docs/ tell it, on a fresh `npm start`: open the Submit and
 * Wait example; before running it, read the fields the editor offers to map from it (the next
 * node's input panel, Schema view); run it and read the fields it outputs; then run every other
 * example as imported, with the curl lines the docs give.
 */
async function firstHour(context) {
	let page;
	let offered;
	let canvasNodes;
	await scenario('first hour', [
		[
			`opens "${EXAMPLE.name}"; before a run, reads the fields offered to map from "${submitNode.name}"`,
			async () => {
				page = await freshPage(context);
				await openWorkflowByName(page, EXAMPLE.name);
				canvasNodes = page.getByTestId('canvas-node');
				await until(
					`the canvas shows its ${EXAMPLE.nodes.length} nodes`,
					async () => (await canvasNodes.count()) === EXAMPLE.nodes.length,
				);
				await iconRendered(
					canvasNodes.filter({ hasText: submitNode.name }),
					`the canvas node "${submitNode.name}"`,
				);
				// on a fresh npm start: a run would make the panel show its data instead of the schema
				const id = new URL(page.url()).pathname.split('/').pop();
				if ((await executionsOf(page, id)).length)
					fail(`"${EXAMPLE.name}" has run before: the first hour needs a fresh npm start`);
				const input = await addEditFieldsAfter(page, submitNode.name);
				// before a run, what the panel lists for the node comes from its output schema; without
				// one, n8n shows its usual "No input data / Execute previous nodes"
				await until(
					`the input panel shows a preview of "${submitNode.name}", or no input data`,
					async () =>
						(await input
							.getByTestId('run-data-schema-header')
							.filter({ hasText: submitNode.name })
							.count()) > 0 || /No input data/.test(await input.innerText()),
				);
				await page.waitForTimeout(1500); // a schema preview is fetched once the panel is open
				offered = await schemaFields(input, submitNode.name);
				console.log(`        offered before the run: ${JSON.stringify(offered)}`);
				await shot(page, 'schema-preview', input);
				await closeNdv(page);
			},
		],
		[
			'runs it: every node succeeds',
			async () => {
				await runWholeWorkflow(page, EXAMPLE.nodes.length + 1);
				await shot(page, 'workflow-run');
			},
		],
		[
			'the fields offered before the run are all in the output (the preview lists none it lacks)',
			async () => {
				const node = page.getByTestId('canvas-node').filter({ hasText: 'Edit Fields' });
				await node.first().dblclick();
				const ndv = await visible(page.getByTestId('ndv'), 'the settings of "Edit Fields"');
				const input = await visible(ndv.getByTestId('ndv-input-panel'), 'the input panel');
				const schemaTab = input.getByTestId('radio-button-schema').first();
				if (await schemaTab.isVisible()) await schemaTab.click();
				const output = await untilValue(
					`the input panel lists the fields "${submitNode.name}" output`,
					() => schemaFields(input, submitNode.name),
					(fields) => fields.includes('invoice_number'),
				);
				console.log(`        output by the run: ${JSON.stringify(output)}`);
				const missing = offered.filter((field) => !output.includes(field));
				if (missing.length)
					fail(
						`before the run the editor offered ${missing.map((f) => `"${f}"`).join(', ')} to map, which the output lacks (output: ${output.join(', ')})`,
					);
				await closeNdv(page);
			},
		],
		[
			'the output panel opens on the extracted fields, not on the input file',
			async () => {
				await canvasNodes.filter({ hasText: submitNode.name }).first().dblclick();
				const ndv = await visible(page.getByTestId('ndv'), `the settings of "${submitNode.name}"`);
				const output = ndv.getByTestId('output-panel');
				// as it opens, before any click: the fields, not a file card
				await until('the output panel shows invoice_number as it opens', async () =>
					/invoice_number/.test(await output.innerText()),
				);
				if (await output.getByTestId('radio-button-binary').count())
					fail('the output panel offers a Binary tab: the input file was passed on by default');
				await (
					await visible(output.getByTestId('radio-button-json'), "the output panel's JSON view")
				).click();
				const text = await until(
					'the output panel shows the extracted invoice fields',
					async () => {
						const t = await output.innerText();
						return (
							/"invoice_number":\s*"INV-2024-\d{5}"/.test(t) &&
							/"vendor_name":\s*"\S/.test(t) &&
							/"total_amount":\s*\d/.test(t) &&
							/"fields":/.test(t) &&
							t
						);
					},
				);
				if (!/1 item/.test(text))
					fail(`the output panel does not say "1 item": ${text.slice(0, 200)}`);
				await shot(page, 'output', ndv.locator('.node-settings'), output);
				await closeNdv(page);
			},
		],
	]);
	await scenario('examples as imported', [
		...DOC_EXAMPLES.map(({ title, name, block, answer }) => [
			`"${name}" runs as imported, with the curl line of ${title}`,
			async () => {
				page = await freshPage(context);
				await page.goto(`${BASE}/home/workflows`);
				await visible(page.getByTestId('project-home-menu-item'), 'the main menu (Overview)');
				const id = await workflowIdByName(page, name);
				await publish(page, id);
				const before = await executionsOf(page, id);
				const command = docBlock(title, block);
				const ran = shell(command);
				if (!ran.ok) fail(`the curl line of ${title} failed: ${ran.output.slice(0, 500)}`);
				if (!answer.test(ran.output) || /"isError":\s*true/.test(ran.output))
					fail(`the curl line of ${title} answered: ${ran.output.slice(0, 600)}`);
				const done = await until(
					`an execution of "${name}" ends`,
					async () => {
						const all = await executionsOf(page, id);
						return all.length > before.length && all.every((e) => e.finished !== undefined) && all;
					},
					RUN_WAIT,
				);
				const failed = done.filter((e) => e.status !== 'success');
				if (failed.length)
					fail(`"${name}" failed as imported: executions ${JSON.stringify(failed.slice(0, 3))}`);
				await unpublish(page, id);
			},
		]),
	]);
	await scenario('production setup', [
		[
			"Intake's curl line from docs/production.md, then every row is done",
			async () => {
				page = await freshPage(context);
				await page.goto(`${BASE}/home/workflows`);
				await visible(page.getByTestId('project-home-menu-item'), 'the main menu (Overview)');
				const command = docBlock('docs/production.md', /curl[\s\S]*intake/i);
				const production = fs
					.readdirSync(path.join(ROOT, 'examples'))
					.filter((f) => /^production-.*\.json$/.test(f))
					.map((f) => JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', f), 'utf8')));
				// a workflow others call (Execute Workflow Trigger) is published before its callers
				const called = (wf) =>
					wf.nodes.some((n) => n.type === 'n8n-nodes-base.executeWorkflowTrigger') ? 0 : 1;
				production.sort((a, b) => called(a) - called(b));
				const ids = [];
				for (const wf of production) ids.push(await workflowIdByName(page, wf.name));
				// the one-off step the doc asks for first: the branch that creates the Data Table
				for (const [i, wf] of production.entries()) {
					for (const node of wf.nodes.filter((n) => /Run Once/i.test(n.name))) {
						await restCall(page, 'POST', `/workflows/${ids[i]}/run`, {
							triggerToStartFrom: { name: node.name },
						});
					}
				}
				const table = await until('the Data Table exists', () => findTable(page));
				const before = (await tableRows(page, table)).length;
				for (const id of ids) await publish(page, id);
				try {
					const ran = shell(command);
					if (!ran.ok)
						fail(`the curl line of docs/production.md failed: ${ran.output.slice(0, 500)}`);
					if (/Error in workflow/.test(ran.output))
						fail(`Intake answered: ${ran.output.slice(0, 300)}`);
					const rows = await untilValue(
						'the rows of the documents sent are done',
						async () => (await tableRows(page, table)).slice(before),
						(r) => r.length > 0 && r.every((row) => row.status === 'done'),
						RUN_WAIT,
					);
					console.log(`        ${rows.length} rows done: ${rows.map((r) => r.task_id).join(', ')}`);
				} finally {
					for (const id of ids) await unpublish(page, id);
				}
			},
		],
	]);
}

/** The production setup's Data Table, once it exists: {id, projectId, name}. */
async function findTable(page) {
	const filter = encodeURIComponent(JSON.stringify({ name: 'document_extraction_tasks' }));
	const data = await restCall(page, 'GET', `/data-tables-global?filter=${filter}&take=10`);
	return (data.data ?? []).find((t) => t.name === 'document_extraction_tasks');
}

async function tableRows(page, table) {
	const data = await restCall(
		page,
		'GET',
		`/projects/${table.projectId}/data-tables/${table.id}/rows?take=250`,
	);
	return data.data;
}

/** The examples whose webhooks the docs show with a curl line: where, and which ```sh block. */
const DOC_EXAMPLES = [
	{
		title: 'docs/development.md',
		name: 'Document Extraction: Trigger to CRM record',
		block: /process_file/,
		answer: /"task_id":\s*"[0-9a-f-]{36}"/,
	},
	{
		title: 'docs/development.md',
		name: 'Document Extraction: tools for AI agents and MCP clients',
		block: /\/mcp\/document-extraction/,
		// the tool's answer: the extracted fields, not an error
		answer: /invoice_number/,
	},
];

/** The ```sh block of a doc that matches `pattern`, with the ports of this `npm start`. */
function docBlock(doc, pattern) {
	const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
	const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
	const block = blocks.find((b) => pattern.test(b));
	if (!block) fail(`${doc} has no \`\`\`sh block with ${pattern}`);
	return block
		.replaceAll('http://127.0.0.1:5678', BASE)
		.replaceAll('http://127.0.0.1:8790', EMULATOR);
}

/** Runs a documented command line in bash, on this machine only (127.0.0.1). */
function shell(command) {
	if (/https?:\/\/(?!127\.0\.0\.1[:/])/.test(command))
		fail(`the command reaches beyond 127.0.0.1: ${command}`);
	try {
		const output = execFileSync('bash', ['-euo', 'pipefail', '-c', command], {
			encoding: 'utf8',
			timeout: RUN_WAIT,
		});
		return { ok: true, output };
	} catch (error) {
		return { ok: false, output: `${error.stdout ?? ''}${error.stderr ?? ''}${error.message}` };
	}
}

/** The editor's own REST API, as the signed-in user. */
async function restCall(page, method, url, body) {
	const result = await page.evaluate(
		async ({ method, url, body }) => {
			const browserId = localStorage.getItem('n8n-browserId') ?? '';
			const res = await fetch(`/rest${url}`, {
				method,
				headers: { 'content-type': 'application/json', 'browser-id': browserId },
				...(body === undefined ? {} : { body: JSON.stringify(body) }),
			});
			return { status: res.status, text: await res.text() };
		},
		{ method, url, body },
	);
	if (result.status >= 300)
		fail(`${method} /rest${url}: HTTP ${result.status} ${result.text.slice(0, 300)}`);
	return result.text ? JSON.parse(result.text).data : undefined;
}

async function workflowIdByName(page, name) {
	const list = await restCall(
		page,
		'GET',
		`/workflows?filter=${encodeURIComponent(JSON.stringify({ name }))}`,
	);
	const found = list.find((w) => w.name === name);
	if (!found) fail(`no workflow "${name}" was imported`);
	return found.id;
}

async function publish(page, id) {
	const { versionId } = await restCall(page, 'GET', `/workflows/${id}`);
	await restCall(page, 'POST', `/workflows/${id}/activate`, { versionId });
	await until(`workflow ${id} is published`, async () => {
		const status = await restCall(page, 'GET', `/workflows/${id}/publication-status`);
		if (status.status === 'failed')
			fail(`publishing failed: ${JSON.stringify(status).slice(0, 400)}`);
		return status.status === 'published' && !status.pendingVersionId;
	});
}

async function unpublish(page, id) {
	await restCall(page, 'POST', `/workflows/${id}/deactivate`, {}).catch(() => {});
}

async function executionsOf(page, id) {
	const data = await restCall(
		page,
		'GET',
		`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: id }))}`,
	);
	return data.results.map((e) => ({
		id: e.id,
		status: e.status,
		finished:
			e.status === 'running' || e.status === 'new' || e.status === 'waiting' ? undefined : true,
	}));
}

async function openWorkflowByName(page, name) {
	await page.goto(`${BASE}/home/workflows`);
	await (
		await visible(page.getByText(name, { exact: true }), `the workflow "${name}" in the list`)
	).click();
	await until('the workflow opens', () => new URL(page.url()).pathname.startsWith('/workflow/'));
}

/** Adds "Edit Fields (Set)" after the node `name` and returns its input panel (Schema view). */
async function addEditFieldsAfter(page, name) {
	const canvasNode = page.getByTestId('canvas-node').filter({ hasText: name });
	await canvasNode.first().hover();
	await (
		await visible(
			page.getByTestId('canvas-handle-plus').first(),
			`the "+" on the output of "${name}"`,
		)
	).click();
	const search = await visible(
		page.getByTestId('node-creator-search-bar'),
		'the nodes panel search box',
	);
	await search.fill('Edit Fields');
	await (
		await visible(
			page.getByTestId('node-creator-item-name').getByText('Edit Fields (Set)', { exact: true }),
			'"Edit Fields (Set)" among the results',
		)
	).click();
	const ndv = await visible(page.getByTestId('ndv'), 'the settings of "Edit Fields"');
	const input = await visible(ndv.getByTestId('ndv-input-panel'), 'the input panel');
	const schemaTab = input.getByTestId('radio-button-schema').first();
	if (await schemaTab.isVisible()) await schemaTab.click();
	return input;
}

/** The top-level field names the Schema view lists under the node `name`. */
async function schemaFields(input, name) {
	const items = await input
		.locator(`[data-node-name="${name.replace(/"/g, '\\"')}"][data-name]`)
		.evaluateAll((els) =>
			els.map((el) => ({
				name: el.getAttribute('data-name'),
				level: Number(el.getAttribute('data-nest-level') ?? el.getAttribute('data-depth') ?? 0),
			})),
		);
	if (!items.length) return [];
	const top = Math.min(...items.map((i) => i.level));
	return [...new Set(items.filter((i) => i.level === top).map((i) => i.name))].sort();
}

/** Clicks "Execute workflow" and waits until `count` nodes ran, none failing. */
async function runWholeWorkflow(page, count) {
	const nodes = page.getByTestId('canvas-node');
	await (
		await visible(page.getByTestId('execute-workflow-button'), 'the "Execute workflow" button')
	).click();
	await until(
		'every node ran successfully',
		async () => {
			const errors = await nodes
				.filter({ has: page.locator('[data-test-id^=canvas-node-status-error]') })
				.allInnerTexts();
			if (errors.length) fail(`a node failed: ${errors.join(' | ')}`);
			return (
				(await nodes.filter({ has: page.getByTestId('canvas-node-status-success') }).count()) ===
				count
			);
		},
		RUN_WAIT,
	);
	const toast = page
		.locator('.el-notification')
		.filter({ hasText: 'Workflow executed successfully' });
	await visible(toast, 'the message "Workflow executed successfully"');
	await toast.locator('.el-notification__closeBtn').click();
	await toast.waitFor({ state: 'hidden' });
}

/** Leaves the node settings (NDV) for the canvas. */
async function closeNdv(page) {
	const close = page.locator(
		'[data-test-id=ndv-close-button]:visible, [data-test-id=back-to-canvas]:visible',
	);
	if (await close.count()) await close.first().click();
	else await page.keyboard.press('Escape');
	await until('the node settings close', async () => !(await page.getByTestId('ndv').isVisible()));
}

/** The example workflow with a document the emulator fails, as two items (one good) with Continue. */
function failingWorkflow(continueOnFail) {
	const sample = EXAMPLE.nodes.find((n) => n.type === 'n8n-nodes-base.set');
	const good = sample.parameters.assignments.assignments.find((a) => a.name === 'pdfBase64').value;
	const bad = Buffer.from(
		`${Buffer.from(good, 'base64').toString('latin1')}\n% EMULATOR_FAIL unreadable scan\n`,
		'latin1',
	).toString('base64');
	const files = continueOnFail
		? [
				{ fileName: 'unreadable-scan.pdf', pdfBase64: bad },
				{ fileName: 'invoice.pdf', pdfBase64: good },
			]
		: [{ fileName: 'unreadable-scan.pdf', pdfBase64: bad }];
	const byType = (type) => EXAMPLE.nodes.find((n) => n.type === type);
	const submit = {
		...submitNodeOf(EXAMPLE),
		...(continueOnFail ? { onError: 'continueRegularOutput' } : {}),
	};
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
		submit,
	];
	const nodes = chain.map((n, i) => ({ ...n, position: [i * 220, 0] }));
	const connections = Object.fromEntries(
		chain
			.slice(0, -1)
			.map((n, i) => [n.name, { main: [[{ node: chain[i + 1].name, type: 'main', index: 0 }]] }]),
	);
	return {
		name: `UI: a failed document${continueOnFail ? ' (On Error → Continue)' : ''}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	};
}

const submitNodeOf = (wf) => wf.nodes.find((n) => n.type.endsWith('.documentExtraction'));

/** Saves a workflow through the editor's own REST API, as the signed-in user; returns its id. */
async function createWorkflow(page, workflow) {
	await page.goto(`${BASE}/home/workflows`);
	await visible(page.getByTestId('project-home-menu-item'), 'the main menu (Overview)');
	const result = await page.evaluate(async (body) => {
		const browserId = localStorage.getItem('n8n-browserId') ?? '';
		const res = await fetch('/rest/workflows', {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': browserId },
			body: JSON.stringify(body),
		});
		return { status: res.status, text: await res.text() };
	}, workflow);
	if (result.status >= 300)
		fail(`saving the workflow: HTTP ${result.status} ${result.text.slice(0, 300)}`);
	return JSON.parse(result.text).data.id;
}

/** Opens a workflow, runs it, and opens the Document Extraction node's output panel. */
async function runAndOpen(page, id, expectSuccess) {
	const submitName = submitNodeOf(EXAMPLE).name;
	await page.goto(`${BASE}/workflow/${id}`);
	const nodes = page.getByTestId('canvas-node');
	const node = nodes.filter({ hasText: submitName });
	await visible(node, `the canvas node "${submitName}"`);
	await (
		await visible(page.getByTestId('execute-workflow-button'), 'the "Execute workflow" button')
	).click();
	// n8n says how the run ended in a message: "Workflow executed successfully", or
	// "Problem in node '…'" with the error's message.
	const ended = expectSuccess
		? /Workflow executed successfully/
		: new RegExp(`Problem in node .${submitName}.`);
	const toast = page.locator('.el-notification').filter({ hasText: ended });
	await visible(toast, `the message ${ended}`, RUN_WAIT);
	await toast.locator('.el-notification__closeBtn').first().click();
	await toast.waitFor({ state: 'hidden' });
	await node.first().dblclick();
	const ndv = await visible(page.getByTestId('ndv'), `the settings of "${submitName}"`);
	const output = await visible(ndv.getByTestId('output-panel'), 'the output panel');
	return { ndv, output };
}

const projectNames = async (page) =>
	(await page.getByTestId('rlc-item').allInnerTexts()).map((s) => s.trim());

/** The names the Document Type dropdown lists; opens it when it is closed. */
async function documentTypes(page) {
	const names = (
		await page.locator('[data-test-id=parameter-input-item]:visible').allInnerTexts()
	).map((s) => s.trim().split('\n')[0]); // the name, without the option's description
	if (!names.length && !(await page.locator('.el-select-dropdown:visible').count())) {
		await page
			.getByTestId('ndv')
			.getByTestId('parameter-input-documentType')
			.locator('input')
			.first()
			.click();
	}
	return names;
}

/** The node name in the title of the open node settings (NDV). */
const ndvTitle = async (page) =>
	(await page.getByTestId('ndv').getByTestId('node-title-container').innerText()).trim();

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
