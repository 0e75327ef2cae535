'use strict';

/**
 * The browser part of test/ui/ownMailbox.js: the README's "Try it on your own n8n" clicked in
 * Chromium on the fresh n8n it set up. Required after UI_EDITOR_URL, UI_EMAIL and UI_PASSWORD are
 * set (lib.js reads them when loaded).
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
	RUN_WAIT,
	CHROMIUM_ARGS,
	fail,
	until,
	untilValue,
	visible,
	shot,
	results,
	scenario,
	freshPage,
	credentialReady,
	iconRendered,
	inputValue,
} = require('./lib.js');
const { restCall, publishByClicking, importByClicking, pickByClicking } = require('./firstHour.js');
const { productionSteps } = require('./ownProduction.js');

const PROJECT = 'Invoices';
const DOCUMENT_TYPE = 'invoice';
const PDFS = ['INV-2024-0042.pdf', 'INV-2024-0043.pdf'];

/** A part of README.md, from the heading `from` to the next heading `to`. */
function readmePart(from, to) {
	const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
	const start = readme.indexOf(from);
	if (start < 0) fail(`README.md has no heading ${from}`);
	return readme.slice(start, readme.indexOf(to, start + from.length));
}

/** The README's path to the records: "Try it on your own n8n", and the Installation its step 1 sends to. */
function readmeSection() {
	return readmePart('### Try it on your own n8n', '\n## ') + readmePart('## Installation', '\n## ');
}

/** The words a person reads on the way: the README's path, at 200 a minute. */
function readingSeconds() {
	const words = readmeSection()
		.split(/\s+/)
		.filter((w) => /[a-z0-9]/i.test(w)).length;
	return { words, seconds: Math.round((words / 200) * 60) };
}

/** The text of the issues tooltip of a canvas node ('' when it shows none). */
async function nodeIssues(page, name) {
	const node = page.getByTestId('canvas-node').filter({ hasText: name });
	const icon = node.getByTestId('node-issues');
	if (!(await icon.count())) return '';
	let hovered = 0;
	const text = await until(`the issues of "${name}" show`, async () => {
		if (Date.now() - hovered > 3000) {
			await page.mouse.move(5, 300);
			await icon.first().hover();
			hovered = Date.now();
		}
		const tips = await page
			.locator('.n8n-tooltip:visible, [role=tooltip]:visible')
			.filter({ hasText: /^\s*Issues/ })
			.allInnerTexts();
		return tips.map((t) => t.trim()).find(Boolean);
	});
	await page.mouse.move(5, 300);
	await page.waitForTimeout(300);
	return text.replace(/^Issues\s*/, '').trim();
}

/** Opens a new workflow and imports `file` from disk as it is, with the … menu (not counted). */
async function importFile(page, file) {
	await page.goto(`${BASE}/workflow/new`);
	await (await visible(page.getByTestId('workflow-menu'), 'the … menu')).click();
	await (
		await visible(page.getByRole('menuitem', { name: 'Import', exact: true }), '"Import"')
	).click();
	const [chooser] = await Promise.all([
		page.waitForEvent('filechooser'),
		page.getByRole('menuitem', { name: 'From file' }).click(),
	]);
	await chooser.setFiles(file);
}

async function runBrowser(env) {
	selectors.setTestIdAttribute('data-test-id');
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-ui-own-profile-'));
	fs.mkdirSync(SHOTS, { recursive: true });
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: CHROMIUM,
		headless: true,
		args: CHROMIUM_ARGS,
		viewport: { width: 1280, height: 800 },
		timeout: WAIT,
	});
	context.setDefaultTimeout(WAIT);
	try {
		await run(context, env);
	} finally {
		await context.close().catch(() => {});
		fs.rmSync(profile, { recursive: true, force: true });
	}
	const passed = results.filter((r) => r.ok).length;
	return { passed, failed: results.length - passed || (results.length ? 0 : 1) };
}

async function run(context, env) {
	const imap = JSON.parse(fs.readFileSync(env.IMAP_FILE, 'utf8'));
	const trigger = imap.nodes.find((n) => n.type === 'n8n-nodes-base.emailReadImap').name;
	const extract = imap.nodes.find((n) => n.type.endsWith('.documentExtraction')).name;
	const crm = imap.nodes.find((n) => n.type === 'n8n-nodes-base.httpRequest').name;
	let page;
	let actions = 0;
	let editorSeconds = 0;
	let workflowId;
	let firstAction;
	const act = async (locator, what, how = 'click', value) => {
		const target = await visible(locator, what);
		firstAction ??= Date.now();
		if (how === 'fill') await target.fill(value);
		else await target[how]();
		actions += 1;
	};

	await scenario(env.TITLE, [
		[
			'signs in to the fresh n8n with its owner account (not counted)',
			async () => {
				page = await freshPage(context);
				await page.goto(`${BASE}/signin`);
				await (
					await visible(page.getByTestId('emailOrLdapLoginId').locator('input'), 'the email field')
				).fill(EMAIL);
				await page.getByTestId('password').locator('input').fill(PASSWORD);
				await page.getByTestId('form-submit-button').click();
				await until('the editor opens on the workflows', () =>
					new URL(page.url()).pathname.startsWith('/home/'),
				);
				const credentials = await restCall(page, 'GET', '/credentials');
				if (credentials.length)
					fail(`this n8n is not fresh: it has ${credentials.length} credentials`);
			},
		],
		[
			`reloads after the restart, imports ${path.relative(ROOT, env.IMAP_FILE)} as shipped, sees the package's icon and clicks the README's steps 4 to 6`,
			async () => {
				// Installation 3: n8n has restarted (the test started it); reload the editor's page (F5)
				await page.reload();
				actions += 1;
				// 3. Create workflow (a new n8n: Build a workflow), … → Import → From file, the shipped file
				const filePick = await importByClicking(page, env.IMAP_FILE, act); // read before adding: it counts too
				actions += filePick;
				const nodes = page.getByTestId('canvas-node');
				await visible(nodes.filter({ hasText: crm }), `the canvas node "${crm}"`);
				// the README's check that n8n loaded the package: the node shows the package's icon
				await iconRendered(nodes.filter({ hasText: extract }), `the canvas node "${extract}"`);
				await shot(page, 'own-mailbox-imported');

				// 4. the trigger: Connect to IMAP, User, Password, Host, Save; close it
				await act(nodes.filter({ hasText: trigger }), `the canvas node "${trigger}"`, 'dblclick');
				const ndv = await visible(page.getByTestId('ndv'), `the settings of "${trigger}"`);
				const download = ndv.getByTestId('parameter-input-downloadAttachments');
				await visible(download, 'the field "Download Attachments"');
				if (!(await download.locator('.is-checked').count()))
					fail('"Download Attachments" is off as imported');
				await act(
					ndv.getByText('Connect to IMAP', { exact: true }),
					'the button "Connect to IMAP"',
				);
				const modal = page.getByTestId('editCredential-modal');
				await credentialReady(modal, 'the IMAP credential');
				for (const [field, value] of [
					['user', env.mailbox.MAILBOX_USER],
					['password', env.mailbox.MAILBOX_PASSWORD],
					['host', '127.0.0.1'],
				])
					await act(
						modal.getByTestId(`parameter-input-${field}`).locator('input'),
						`the IMAP credential's ${field}`,
						'fill',
						value,
					);
				await shot(page, 'own-mailbox-imap-credential', modal);
				await act(modal.getByTestId('credential-save-button'), 'Save (IMAP credential)');
				await until(
					'the IMAP credential is saved and tested, and its window closes',
					async () => !(await modal.isVisible()),
				);
				await act(ndv.getByTestId('ndv-close-button'), `the × of "${trigger}"`);
				await until('the trigger settings close', async () => !(await ndv.isVisible()));

				// 5. Extract Every Attachment: Connect to Document Extraction, the printed key and
				// Base URL, Save; Project from its list (the file's Document Type stays); close it
				await act(nodes.filter({ hasText: extract }), `the canvas node "${extract}"`, 'dblclick');
				await visible(ndv, `the settings of "${extract}"`);
				await act(
					ndv.getByText('Connect to Document Extraction', { exact: true }),
					'the button "Connect to Document Extraction"',
				);
				await credentialReady(modal, 'the Document Extraction credential');
				await act(
					modal.getByTestId('parameter-input-apiKey').locator('input'),
					'API Key',
					'fill',
					env.printed.apiKey,
				);
				await act(
					modal.getByTestId('parameter-input-baseUrl').locator('input'),
					'Base URL',
					'fill',
					env.printed.baseUrl,
				);
				await act(modal.getByTestId('credential-save-button'), 'Save (Document Extraction)');
				await until(
					'the Document Extraction credential is saved and tested, and its window closes',
					async () => !(await modal.isVisible()),
				);
				await pickByClicking(page, ndv, 'project', PROJECT, act);
				await until(
					`Document Type shows *${DOCUMENT_TYPE}* from the project's list`,
					async () =>
						(await inputValue(ndv.getByTestId('parameter-input-documentType'))) === DOCUMENT_TYPE,
				);
				await shot(page, 'own-mailbox-extract', ndv);
				await act(ndv.getByTestId('ndv-close-button'), `the × of "${extract}"`);
				await until('the settings close', async () => !(await ndv.isVisible()));

				// 6. Publish, Publish in the dialog (the dialog "Workflow published" may stay open)
				workflowId = new URL(page.url()).pathname.split('/').pop();
				await publishByClicking(
					page,
					workflowId,
					(locator, what) => act(locator, what),
					'own-mailbox-published',
					false,
				);
				editorSeconds = (Date.now() - firstAction) / 1000;
				// every step clicked is one the README names, and its count is this run's
				const section = readmeSection();
				for (const words of [
					'**Create workflow**',
					'**Build a workflow**',
					'**Import**',
					'**From file**',
					path.basename(env.IMAP_FILE),
					`**${trigger}**`,
					'**Connect to IMAP**',
					'**User**',
					'**Password**',
					'**Host**',
					'**Save**',
					`**${extract}**`,
					'**Connect to Document Extraction**',
					'**API Key**',
					'**Base URL**',
					`*${PROJECT}*`,
					`*${DOCUMENT_TYPE}*`,
					'**Publish**',
					'**Download Attachments**',
					'(F5)',
					"package's icon",
					'/_emulator/sink',
				])
					if (!section.includes(words)) fail(`the README's steps do not name ${words}`);
				console.log(
					`        ${actions} actions (the reload, clicks, typed fields, keys) up to publishing, ${editorSeconds.toFixed(1)} s`,
				);
				const saved = await restCall(page, 'GET', `/workflows/${workflowId}`);
				const savedExtract = saved.nodes.find((n) => n.name === extract);
				if (savedExtract.parameters.project?.cachedResultName !== PROJECT)
					fail(`the saved Project is ${JSON.stringify(savedExtract.parameters.project)}`);
			},
		],
		[
			`one email with two PDFs and a notes.txt: one CRM record per PDF on the records page, none for the text file; at most ${env.MAX_ACTIONS} actions and ${env.MAX_MINUTES} minutes from Installation`,
			async () => {
				const sent = Date.now();
				await env.sendEmail();
				const records = await untilValue(
					'the CRM has a record per PDF',
					env.crmRecords,
					(r) => r.length >= PDFS.length,
					RUN_WAIT,
				);
				const waitSeconds = (Date.now() - sent) / 1000;
				// 7. the person opens the records page the README links (one action) and finds a
				// record per PDF there
				const sinkPage = await context.newPage();
				await sinkPage.goto(env.sink);
				actions += 1;
				const shown = await sinkPage.locator('body').innerText();
				await sinkPage.close();
				for (const pdf of PDFS)
					if (!shown.includes(pdf)) fail(`the records page ${env.sink} does not list ${pdf}`);
				const stated = /\*\*(\d+) actions\*\*/.exec(readmeSection());
				if (!stated || Number(stated[1]) !== actions)
					fail(`the README states ${stated ? stated[1] : 'no'} actions; this run took ${actions}`);
				if (actions > env.MAX_ACTIONS)
					fail(`the README's path took ${actions} actions (at most ${env.MAX_ACTIONS})`);
				const executions = await until(
					'the execution of the email has ended',
					async () => {
						const data = await restCall(
							page,
							'GET',
							`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`,
						);
						const all = data.results;
						return (
							all.length &&
							all.every((e) => !['running', 'new', 'waiting'].includes(e.status)) &&
							all
						);
					},
					RUN_WAIT,
				);
				await page.waitForTimeout(2000); // nothing more arrives
				const final = await env.crmRecords();
				const files = final.map((r) => r.body.file).sort();
				if (JSON.stringify(files) !== JSON.stringify(PDFS))
					fail(
						`the CRM records name ${JSON.stringify(files)}, not one per PDF (${PDFS.join(', ')})`,
					);
				for (const { body } of final) {
					if (!/^INV-\d{4}-\d{5}$/.test(body.invoice_number))
						fail(`a record without an invoice number: ${JSON.stringify(body)}`);
					if (typeof body.total !== 'number' || !body.vendor || !body.currency)
						fail(`a record without its fields: ${JSON.stringify(body)}`);
					if (
						!/billing@acme\.example/.test(body.email_from) ||
						body.email_subject !== 'Invoices for March'
					)
						fail(`a record without the email's sender and subject: ${JSON.stringify(body)}`);
				}
				if (executions.length !== 1 || executions[0].status !== 'success')
					fail(
						`executions: ${JSON.stringify(executions.map((e) => e.status))} (one success expected)`,
					);

				// the machine's waits a person has (the test's own mailbox is not one)
				const machine = Object.entries(env.timings)
					.filter(([name]) => name !== 'mailbox')
					.reduce((sum, [, seconds]) => sum + seconds, 0);
				const reading = readingSeconds();
				// the shell commands a person types besides the editor: git clone, the tarball command
				// (Installation step 1), the install block's lines, restarting n8n, npm run emulator
				const shellCommands = 1 + 1 + env.installCommands + 1 + 1;
				const person =
					machine +
					editorSeconds +
					waitSeconds +
					env.SECONDS_PER_ACTION * (actions + shellCommands) +
					reading.seconds;
				const counts = {
					actions,
					machine_setup_s: Math.round(machine),
					setup: Object.fromEntries(
						Object.entries(env.timings).map(([k, v]) => [k, Math.round(v)]),
					),
					shell_commands: shellCommands,
					editor_s: Math.round(editorSeconds),
					email_to_records_s: Math.round(waitSeconds),
					reading_words: reading.words,
					reading_s: reading.seconds,
					person_minutes: Math.round((person / 60) * 10) / 10,
				};
				console.log(
					`        ${records.length} records: ${files.join(', ')}; ${JSON.stringify(counts)}`,
				);
				if (process.env.UI_COUNTS_FILE)
					fs.writeFileSync(process.env.UI_COUNTS_FILE, `${JSON.stringify(counts, null, 2)}\n`);
				const statedMinutes = /about \*\*([\d.]+) minutes\*\*/.exec(readmeSection());
				if (!statedMinutes || Number(statedMinutes[1]) !== counts.person_minutes)
					console.log(
						`        note: the README states ${statedMinutes ? statedMinutes[1] : 'no'} minutes; this run: ${counts.person_minutes}`,
					);
				if (counts.person_minutes > env.MAX_MINUTES)
					fail(
						`the person's time is ${counts.person_minutes} minutes (at most ${env.MAX_MINUTES})`,
					);
			},
		],
		[
			"the email's run in the editor: one item per PDF in the output of the extraction (the README's picture)",
			async () => {
				const data = await restCall(
					page,
					'GET',
					`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`,
				);
				const execution = data.results.find((e) => e.status === 'success');
				if (!execution) fail('no successful execution of the email workflow');
				// the run in the Executions tab: the canvas with its data
				await page.goto(`${BASE}/workflow/${workflowId}/executions/${execution.id}`);
				const node = page.getByTestId('canvas-node').filter({ hasText: extract });
				await (await visible(node, `the canvas node "${extract}" of the run`)).dblclick();
				const ndv = await visible(page.getByTestId('ndv'), `the run's data of "${extract}"`);
				const output = await visible(ndv.getByTestId('output-panel'), 'the output panel');
				await (
					await visible(output.getByTestId('radio-button-table'), "the output panel's Table view")
				).click();
				await until('the output shows one item per PDF', async () => {
					const t = await output.innerText();
					return /2 items/.test(t) && PDFS.every((f) => t.includes(f)) && t;
				});
				await shot(page, 'email-output', output);
			},
		],
		...env.OTHER_FILES.map((file) => [
			`${path.relative(ROOT, file)} as shipped: the editor asks for nothing but the trigger's credential (and the picks of "${extract}")`,
			async () => {
				const workflow = JSON.parse(fs.readFileSync(file, 'utf8'));
				const source = workflow.nodes.find((n) => n.type !== 'n8n-nodes-base.stickyNote');
				page = await freshPage(context);
				await importFile(page, file);
				const nodes = page.getByTestId('canvas-node');
				await visible(nodes.filter({ hasText: crm }), `the canvas node "${crm}"`);
				const triggerIssues = await nodeIssues(page, source.name);
				if (triggerIssues !== `Credentials for ${source.name} are not set.`)
					fail(`"${source.name}" asks: ${triggerIssues || 'nothing'}`);
				const extractIssues = await nodeIssues(page, extract);
				const other = extractIssues
					.split('\n')
					.map((l) => l.trim())
					.filter(Boolean)
					.filter(
						(l) =>
							!/^Parameter "(Project|Document Type Name or ID)" is required\.$/.test(l) &&
							!/^Credentials for .* are not set\.$/.test(l),
					);
				if (other.length) fail(`"${extract}" asks for more than its picks: ${other.join(' | ')}`);
				const crmIssues = await nodeIssues(page, crm);
				if (crmIssues) fail(`"${crm}" asks: ${crmIssues}`);
				// Download Attachments is on in the trigger's options
				await nodes.filter({ hasText: source.name }).dblclick();
				const ndv = await visible(page.getByTestId('ndv'), `the settings of "${source.name}"`);
				const download = ndv.getByTestId('parameter-input-downloadAttachments');
				await visible(download, 'the option "Download Attachments"');
				if (!(await download.locator('.is-checked').count()))
					fail(`"Download Attachments" is off in ${path.basename(file)}`);
				await shot(page, `own-mailbox-${path.basename(file, '.json')}`, ndv);
			},
		]),
		// then the production workflow, on the same n8n with the credential made above
		...productionSteps(context, env, freshPage),
	]);
}

module.exports = { runBrowser };
