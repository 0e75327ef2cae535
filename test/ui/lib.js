'use strict';

/**
 * The browser test's toolkit: waits that name what they waited for, scenarios of steps, and the
 * editor and REST actions the scenarios share, on the n8n that is the page's origin (baseURL).
 */

const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium, selectors } = require('playwright-core');

const ui = module.exports;

const ROOT = path.resolve(__dirname, '../..');
const CHROMIUM = process.env.UI_CHROMIUM || '/usr/bin/chromium';
const SHOTS = process.env.UI_SCREENSHOTS_DIR || path.join(ROOT, 'test/ui/out');
const WAIT = Number(process.env.UI_WAIT_MS || 60000);
const RUN_WAIT = Math.max(WAIT, 180000);
const PROJECTS = ['Invoices', 'Identity', 'Invoices EU – Zürich (2025)'];
const CREDENTIAL = 'Document Extraction (local emulator)';
ui.readJson = function (file) {
	return JSON.parse(fs.readFileSync(path.resolve(ROOT, file), 'utf8'));
};
const EXAMPLE = ui.readJson('examples/submit-and-wait.json');
Object.assign(ui, { ROOT, SHOTS, RUN_WAIT, EXAMPLE, PROJECTS, CREDENTIAL });

ui.fail = function (message) {
	throw new Error(message);
};

/** Polls `probe` until it returns a truthy value; fails with `what` and the last value seen. */
ui.until = async function (what, probe, timeout = WAIT) {
	const deadline = Date.now() + timeout;
	let last;
	for (;;) {
		try {
			last = await probe();
			if (last) return last;
		} catch (error) {
			last = `(${error.message.split('\n')[0]})`;
		}
		if (Date.now() > deadline)
			ui.fail(`${what}: not true after ${timeout / 1000} s (last seen: ${JSON.stringify(last)})`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
};

/** Reads a value until `accept` takes it; the failure names the last value read. */
ui.untilValue = async function (what, read, accept, timeout = WAIT) {
	let seen;
	await ui
		.until(what, async () => accept((seen = await read())), timeout)
		.catch((error) => {
			ui.fail(
				`${error.message.replace(/ \(last seen: .*\)$/s, '')} (on screen: ${JSON.stringify(seen)})`,
			);
		});
	return seen;
};

ui.sameList = (expected) => (names) => names.join('\n') === expected.join('\n');
ui.includesAll = (expected) => (names) => expected.every((name) => names.includes(name));
ui.hidden = (what, locator) => ui.until(what, async () => !(await locator.isVisible()));

ui.visible = async function (locator, what, timeout = WAIT) {
	try {
		await locator.first().waitFor({ state: 'visible', timeout });
	} catch {
		ui.fail(`${what} is not on screen after ${timeout / 1000} s`);
	}
	return locator.first();
};

/** The package's icon in `scope` has loaded: an <img> from its icon path that decoded (n8n shows another when the file is missing). */
ui.iconRendered = async function (scope, what) {
	const icon = scope.locator('img[src*="/icons/n8n-nodes-document-extraction/"]:visible').first();
	await ui.untilValue(
		`${what}: the node icon loads`,
		() =>
			icon.evaluate((img) => ({
				src: img.getAttribute('src'),
				complete: img.complete,
				naturalWidth: img.naturalWidth,
			})),
		(img) => img.complete && img.naturalWidth > 0,
	);
};

ui.exact = (scope, text) => scope.getByText(text, { exact: true });
ui.inputValue = (locator) => locator.locator('input').first().inputValue();
ui.untilInput = (what, locator, expected) =>
	ui.untilValue(
		what,
		() => ui.inputValue(locator),
		(v) => v === expected,
	);
/** What an empty select says ("" when it has no placeholder). */
ui.inputPlaceholder = async (locator) =>
	(await locator.locator('input').first().getAttribute('placeholder')) ?? '';

/** Saves a screenshot: of the whole window, or cropped to the union of `regions` (locators). */
ui.shot = async function (page, name, ...regions) {
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
};

const results = [];
const current = { page: null };
const ONLY = process.env.UI_ONLY ? new RegExp(process.env.UI_ONLY, 'i') : undefined;

/** Runs the steps in order; after a failure the rest are reported as not run. */
ui.scenario = async function (title, steps) {
	if (ONLY && title !== 'sign-in' && !ONLY.test(title)) return true;
	let blocked = '';
	for (const [name, run] of steps) {
		const label = `${title}: ${name}`;
		if (blocked) {
			results.push({ label, ok: false });
			console.log(`  FAIL  ${label} (not run: ${blocked})`);
			continue;
		}
		const started = Date.now();
		try {
			await run();
			results.push({ label, ok: true });
			console.log(`  ok    ${label} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
		} catch (error) {
			blocked = `"${name}" failed`;
			const message = error.message.replace(/\x1b\[[0-9;]*m/g, '').trim();
			results.push({ label, ok: false });
			console.log(`  FAIL  ${label}\n        ${message.split('\n').join('\n        ')}`);
			const page = current.page;
			if (page && !page.isClosed()) {
				await ui
					.shot(page, `FAILED-${label.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`)
					.then((file) => console.log(`        screenshot: ${path.relative(ROOT, file)}`))
					.catch(() => {});
			}
		}
	}
	return !blocked;
};

ui.freshPage = async function (context) {
	const previous = current.page;
	current.page = await context.newPage();
	if (previous && !previous.isClosed()) await previous.close();
	return current.page;
};

/** Runs `main`, then writes {"passed","failed"} to UI_SUMMARY_FILE (run.sh prints it last) and exits. */
ui.runMain = function (main) {
	main()
		.catch((error) => {
			results.push({ label: 'browser', ok: false });
			console.log(`  FAIL  ${error.message}`);
		})
		.finally(() => {
			const passed = results.filter((r) => r.ok).length;
			const failed = results.length - passed || (results.length ? 0 : 1);
			if (process.env.UI_SUMMARY_FILE)
				fs.writeFileSync(process.env.UI_SUMMARY_FILE, JSON.stringify({ passed, failed }));
			else console.log(`${passed} passed, ${failed} failed`);
			process.exit(failed ? 1 : 0);
		});
};

/** Debian's Chromium on an empty profile, the editor at `base`; the profile is removed after `run`. */
ui.withBrowser = async function (base, run) {
	if (!fs.existsSync(CHROMIUM)) ui.fail(`no browser at ${CHROMIUM}`);
	selectors.setTestIdAttribute('data-test-id');
	const profile =
		process.env.UI_PROFILE_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'docex-ui-profile-'));
	fs.mkdirSync(profile, { recursive: true });
	if (fs.readdirSync(profile).length) ui.fail(`the browser profile ${profile} is not empty`);
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: CHROMIUM,
		headless: true,
		args: [
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
		viewport: { width: 1280, height: 800 },
		baseURL: base.replace(/\/*$/, '/'),
		timeout: WAIT,
	});
	context.setDefaultTimeout(WAIT);
	try {
		await run(context);
	} finally {
		await context.close().catch(() => {});
		fs.rmSync(profile, { recursive: true, force: true });
	}
};

ui.signIn = async function (page, email, password) {
	await page.goto('signin');
	const emailField = page.getByTestId('emailOrLdapLoginId').locator('input');
	await ui.act(emailField, 'the email field', 'fill', email);
	await page.getByTestId('password').locator('input').fill(password);
	await page.getByTestId('form-submit-button').click();
	await ui.visible(page.getByTestId('project-home-menu-item'), 'the main menu (Overview)');
};

/** The workflow list, once the editor has loaded (its REST calls need the page's origin). */
ui.openHome = async function (page) {
	await page.goto('home/workflows');
	await ui.visible(page.getByTestId('project-home-menu-item'), 'the main menu (Overview)');
};

ui.pathOf = (page) => new URL(page.url()).pathname;
ui.workflowIdOf = (page) => ui.pathOf(page).split('/').pop();
ui.canvasNode = (page, name) =>
	page.getByTestId('canvas-node').filter({ has: ui.exact(page, name) });
const q = (value) => encodeURIComponent(JSON.stringify(value));

/** The editor's own REST API, as the signed-in user. */
ui.restCall = async function (page, method, url, body) {
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
		ui.fail(`${method} /rest${url}: HTTP ${result.status} ${result.text.slice(0, 300)}`);
	return result.text ? JSON.parse(result.text).data : undefined;
};

ui.executionsOf = async function (page, id) {
	const data = await ui.restCall(page, 'GET', `/executions?filter=${q({ workflowId: id })}`);
	return data.results;
};

/** Waits until the workflow has more than `before` executions and none runs or waits; returns them. */
ui.executionsEnded = async function (page, id, before = 0) {
	return ui.until(
		`the executions of workflow ${id} end`,
		async () => {
			const all = await ui.executionsOf(page, id);
			const running = all.some((e) => ['running', 'new', 'waiting'].includes(e.status));
			return all.length > before && !running && all;
		},
		RUN_WAIT,
	);
};

/** Waits for n8n's message `text` and closes it. */
ui.dismissToast = async function (page, text, timeout) {
	const toast = page.locator('.el-notification').filter({ hasText: text });
	await ui.visible(toast, `the message ${text}`, timeout);
	await toast.locator('.el-notification__closeBtn').first().click();
	await toast.waitFor({ state: 'hidden' });
};

async function waitPublished(page, id) {
	await ui.until(`workflow ${id} is published`, async () => {
		const status = await ui.restCall(page, 'GET', `/workflows/${id}/publication-status`);
		if (status.status === 'failed')
			ui.fail(`publishing failed: ${JSON.stringify(status).slice(0, 400)}`);
		return status.status === 'published' && !status.pendingVersionId;
	});
}

ui.publish = async function (page, id) {
	const { versionId } = await ui.restCall(page, 'GET', `/workflows/${id}`);
	await ui.restCall(page, 'POST', `/workflows/${id}/activate`, { versionId });
	await waitPublished(page, id);
};

ui.unpublish = async function (page, id) {
	await ui.restCall(page, 'POST', `/workflows/${id}/deactivate`, {}).catch(() => {});
};

ui.workflowIdByName = async function (page, name) {
	const found = (await ui.restCall(page, 'GET', `/workflows?filter=${q({ name })}`)).find(
		(w) => w.name === name,
	);
	return found ? found.id : ui.fail(`no workflow "${name}" was imported`);
};

ui.openWorkflowByName = async function (page, name, c = { act: ui.act }) {
	await ui.openHome(page);
	await c.act(ui.exact(page, name), `the workflow "${name}" in the list`);
	await ui.until('the workflow opens', () => ui.pathOf(page).startsWith('/workflow/'));
};

/** Waits for the target, then clicks it (or `how`: dblclick, or fill with `value`). */
ui.act = async function (locator, what, how = 'click', value) {
	const target = await ui.visible(locator, what);
	await (how === 'fill' ? target.fill(value) : target[how]());
};

/** A person's actions, counted (a typed field counts one, as a click does); `first`: when they began. */
ui.counter = function () {
	const c = { actions: 0, first: undefined };
	c.act = async (locator, what, how, value) => {
		await ui.visible(locator, what);
		c.first ??= Date.now();
		await ui.act(locator, what, how, value);
		c.actions += 1;
	};
	return c;
};

/** Create workflow (a new n8n: Build a workflow), … → Import → From file, and the file (one more). */
ui.importByClicking = async function (page, file, c) {
	const create = page
		.getByRole('button', { name: 'Create workflow' })
		.or(ui.exact(page, 'Build a workflow'));
	await c.act(create.first(), 'the button "Create workflow" or "Build a workflow"');
	await ui.until('the new workflow opens', () => ui.pathOf(page).startsWith('/workflow/'));
	await c.act(page.getByTestId('workflow-menu'), 'the … menu next to the workflow name');
	await c.act(page.getByRole('menuitem', { name: 'Import', exact: true }), '"Import"');
	const [chooser] = await Promise.all([
		page.waitForEvent('filechooser'),
		c.act(page.getByRole('menuitem', { name: 'From file' }), '"From file" under Import'),
	]);
	await chooser.setFiles(file);
	c.actions += 1;
};

/** Waits until the canvas shows `workflow`'s nodes (it draws sticky notes apart). */
ui.canvasShows = async function (page, workflow) {
	const shown = workflow.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
	await ui.until(
		`the canvas shows the workflow's ${shown.length} nodes`,
		async () => (await page.getByTestId('canvas-node').count()) >= shown.length - 1,
	);
};

/** Double-clicks the canvas node `name` and returns its settings (NDV). */
ui.openByClicking = async function (page, name, c) {
	await c.act(ui.canvasNode(page, name), `the canvas node "${name}"`, 'dblclick');
	return ui.visible(page.getByTestId('ndv'), `the settings of "${name}"`);
};

/** Leaves the node settings for the canvas (counted with `c`). */
ui.closeNdv = async function (page, c = { act: ui.act }) {
	const close = '[data-test-id=ndv-close-button]:visible, [data-test-id=back-to-canvas]:visible';
	await c.act(page.locator(close), 'the × of the node settings');
	await ui.hidden('the node settings close', page.getByTestId('ndv'));
};

/** A pick from a list field: the Project (resource locator) or the Document Type list. */
ui.pickByClicking = async function (page, ndv, field, name, c) {
	if (field === 'project') {
		await c.act(
			ndv.getByTestId('resource-locator-project').getByTestId('rlc-input'),
			'the field "Project"',
		);
		const whole = new RegExp(`^\\s*${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
		await c.act(page.getByTestId('rlc-item').filter({ hasText: whole }), `"${name}" in the list`);
		return;
	}
	await c.act(
		ndv.getByTestId('parameter-input-documentType').locator('input').first(),
		'the field "Document Type Name or ID"',
	);
	await c.act(
		ui.exact(page.locator('.el-select-dropdown:visible'), name),
		`"${name}" in the Document Type list`,
	);
};

/** Publish, Publish in its dialog, and (with `dismiss`) Got it in "Workflow published". */
ui.publishByClicking = async function (page, c, dismiss = true) {
	await c.act(page.getByTestId('workflow-open-publish-modal-button'), 'the Publish button');
	await c.act(page.getByTestId('workflow-publish-button'), 'Publish in the dialog');
	await waitPublished(page, ui.workflowIdOf(page));
	const published = ui.exact(page, 'Workflow published');
	await ui.visible(published, 'the dialog "Workflow published"');
	if (!dismiss) return;
	await c.act(page.getByRole('button', { name: 'Got it' }), 'Got it in "Workflow published"');
	await ui.hidden('the dialog "Workflow published" closes', published);
};

/** Clicks `button` in `scope`, fills the credential window (`fields` by test id) and saves it, counted. */
ui.connectCredential = async function (scope, button, fields, c) {
	const what = `the credential of "${button}"`;
	await c.act(ui.exact(scope, button), `"${button}"`);
	const page = scope.page();
	const modal = page.getByTestId('editCredential-modal');
	await ui.visible(modal, what);
	// n8n names a new credential once its window is open; typing earlier is lost
	const name = modal.getByTestId('credential-name');
	await ui.until(`${what} has its name`, async () =>
		/\S/.test(await name.innerText().catch(() => '')),
	);
	await page.waitForTimeout(300);
	for (const [field, value] of Object.entries(fields))
		await c.act(
			modal.getByTestId(`parameter-input-${field}`).locator('input'),
			`${what}: ${field}`,
			'fill',
			value,
		);
	await c.act(modal.getByTestId('credential-save-button'), `Save (${what})`);
	return modal;
};

/** The part of `doc` from `heading` to the next `next` (a heading prefix such as "\n## "). */
ui.docPart = function (doc, heading, next) {
	const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
	const at = text.indexOf(heading);
	if (at < 0) ui.fail(`${doc} has no "${heading}"`);
	return text.slice(at, text.indexOf(next, at + heading.length));
};

/** `doc`'s steps (`section`) name each of `words` and state the `actions` counted (at most `max`). */
ui.stepsStated = function (doc, section, words, actions, max) {
	for (const w of words) if (!section.includes(w)) ui.fail(`${doc}'s steps do not name ${w}`);
	const stated = /\*\*(\d+) actions\*\*/.exec(section);
	if (!stated || Number(stated[1]) !== actions)
		ui.fail(`${doc} states ${stated ? stated[1] : 'no'} actions; this run took ${actions}`);
	if (actions > max) ui.fail(`${doc}'s path took ${actions} actions (at most ${max})`);
};

/** The ```sh block of a doc that matches `pattern`, with the ports of the n8n `page` shows. */
ui.docBlock = function (doc, pattern, page) {
	const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
	const block = [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
		.map((m) => m[1])
		.find((b) => pattern.test(b));
	if (!block) ui.fail(`${doc} has no \`\`\`sh block with ${pattern}`);
	const emulator = (process.env.UI_EMULATOR_URL || 'http://127.0.0.1:8790').replace(/\/+$/, '');
	return block
		.replaceAll('http://127.0.0.1:5678', new URL(page.url()).origin)
		.replaceAll('http://127.0.0.1:8790', emulator);
};

/** Runs a documented command line in bash, on this machine only, with `env` added. */
ui.shell = function (command, env = {}) {
	if (/https?:\/\/(?!127\.0\.0\.1[:/])/.test(command))
		ui.fail(`the command reaches beyond 127.0.0.1: ${command}`);
	try {
		const output = execFileSync('bash', ['-euo', 'pipefail', '-c', command], {
			encoding: 'utf8',
			timeout: RUN_WAIT,
			env: { ...process.env, ...env },
		});
		return { ok: true, output };
	} catch (error) {
		return { ok: false, output: `${error.stdout ?? ''}${error.stderr ?? ''}${error.message}` };
	}
};

/** The production setup's Data Table, once it exists: {id, projectId, name}. */
ui.findTable = async function (page) {
	const name = 'document_extraction_tasks';
	const data = await ui.restCall(page, 'GET', `/data-tables-global?filter=${q({ name })}&take=10`);
	return (data.data ?? []).find((t) => t.name === name);
};

ui.tableRows = async function (page, table) {
	const url = `/projects/${table.projectId}/data-tables/${table.id}/rows?take=250`;
	return (await ui.restCall(page, 'GET', url)).data;
};

/** Runs docs/production.md's curl line; waits until the table's rows after `before` are all done. */
ui.postUntilDone = async function (page, command, before = 0, env = {}) {
	const ran = ui.shell(command, env);
	if (!ran.ok) ui.fail(`the curl line of docs/production.md failed: ${ran.output.slice(0, 500)}`);
	if (!/"state":\s*"accepted"/.test(ran.output))
		ui.fail(`Intake answered: ${ran.output.slice(0, 300)}`);
	const table = await ui.until('the Data Table exists', () => ui.findTable(page));
	return await ui.untilValue(
		'the rows of the documents sent are done',
		async () => (await ui.tableRows(page, table)).slice(before),
		(r) => r.length > 0 && r.every((row) => row.status === 'done'),
		RUN_WAIT,
	);
};
