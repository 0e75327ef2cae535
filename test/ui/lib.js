'use strict';

/**
 * The browser test's toolkit: settings, waits and assertions that name what they waited for,
 * screenshots, scenarios made of steps, and the editor and REST actions the scenarios share.
 * The editor is the page's origin (the context's baseURL), so one toolkit serves both n8ns.
 */

const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium, selectors } = require('playwright-core');

const ROOT = path.resolve(__dirname, '../..');
const CHROMIUM = process.env.UI_CHROMIUM || '/usr/bin/chromium';
const SHOTS = process.env.UI_SCREENSHOTS_DIR || path.join(ROOT, 'test/ui/out');
const WAIT = Number(process.env.UI_WAIT_MS || 60000);
const RUN_WAIT = Math.max(WAIT, 180000);
const EXAMPLE = readJson('examples/submit-and-wait.json');
const PROJECTS = ['Invoices', 'Identity', 'Invoices EU – Zürich (2025)'];
const CREDENTIAL = 'Document Extraction (local emulator)';

function readJson(file) {
	return JSON.parse(fs.readFileSync(path.resolve(ROOT, file), 'utf8'));
}

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
		if (Date.now() > deadline)
			fail(`${what}: not true after ${timeout / 1000} s (last seen: ${JSON.stringify(last)})`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** Reads a value until `accept` takes it; the failure names the last value read. */
async function untilValue(what, read, accept, timeout = WAIT) {
	let seen;
	await until(what, async () => accept((seen = await read())), timeout).catch((error) => {
		fail(
			`${error.message.replace(/ \(last seen: .*\)$/s, '')} (on screen: ${JSON.stringify(seen)})`,
		);
	});
	return seen;
}

const sameList = (expected) => (names) => names.join('\n') === expected.join('\n');
const includesAll = (expected) => (names) => expected.every((name) => names.includes(name));
const hidden = (what, locator) => until(what, async () => !(await locator.isVisible()));

async function visible(locator, what, timeout = WAIT) {
	try {
		await locator.first().waitFor({ state: 'visible', timeout });
	} catch {
		fail(`${what} is not on screen after ${timeout / 1000} s`);
	}
	return locator.first();
}

/** The package's icon in `scope` has loaded: an <img> from its icon path that decoded (n8n shows another when the file is missing). */
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
/** What an empty select says ("" when it has no placeholder). */
const inputPlaceholder = async (locator) =>
	(await locator.locator('input').first().getAttribute('placeholder')) ?? '';

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

const results = [];
const current = { page: null };
const ONLY = process.env.UI_ONLY ? new RegExp(process.env.UI_ONLY, 'i') : undefined;

/** Runs the steps in order; after a failure the rest are reported as not run. */
async function scenario(title, steps) {
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
				await shot(page, `FAILED-${label.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`)
					.then((file) => console.log(`        screenshot: ${path.relative(ROOT, file)}`))
					.catch(() => {});
			}
		}
	}
	return !blocked;
}

async function freshPage(context) {
	const previous = current.page;
	current.page = await context.newPage();
	if (previous && !previous.isClosed()) await previous.close();
	return current.page;
}

/** Runs `main`, then writes {"passed","failed"} to UI_SUMMARY_FILE (run.sh prints it last) and exits. */
function runMain(main) {
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
}

/** Debian's Chromium on an empty profile, the editor at `base`; the profile is removed after `run`. */
async function withBrowser(base, run) {
	if (!fs.existsSync(CHROMIUM)) fail(`no browser at ${CHROMIUM}`);
	selectors.setTestIdAttribute('data-test-id');
	const profile =
		process.env.UI_PROFILE_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'docex-ui-profile-'));
	fs.mkdirSync(profile, { recursive: true });
	if (fs.readdirSync(profile).length) fail(`the browser profile ${profile} is not empty`);
	fs.mkdirSync(SHOTS, { recursive: true });
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
}

async function signIn(page, email, password) {
	await page.goto('signin');
	await act(
		page.getByTestId('emailOrLdapLoginId').locator('input'),
		'the email field',
		'fill',
		email,
	);
	await page.getByTestId('password').locator('input').fill(password);
	await page.getByTestId('form-submit-button').click();
	await until('the editor leaves the sign-in page', () => !pathOf(page).startsWith('/signin'));
	await visible(page.getByTestId('project-home-menu-item'), 'the main menu (Overview)');
}

/** The workflow list, once the editor has loaded (its REST calls need the page's origin). */
async function openHome(page) {
	await page.goto('home/workflows');
	await visible(page.getByTestId('project-home-menu-item'), 'the main menu (Overview)');
}

const pathOf = (page) => new URL(page.url()).pathname;
const workflowIdOf = (page) => pathOf(page).split('/').pop();
const canvasNode = (page, name) =>
	page.getByTestId('canvas-node').filter({ has: page.getByText(name, { exact: true }) });
const q = (value) => encodeURIComponent(JSON.stringify(value));

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

/** The workflow's executions; `finished` is undefined while one runs or waits. */
async function executionsOf(page, id) {
	const data = await restCall(page, 'GET', `/executions?filter=${q({ workflowId: id })}`);
	return data.results.map((e) => ({
		id: e.id,
		status: e.status,
		finished: ['running', 'new', 'waiting'].includes(e.status) ? undefined : true,
	}));
}

async function waitPublished(page, id) {
	await until(`workflow ${id} is published`, async () => {
		const status = await restCall(page, 'GET', `/workflows/${id}/publication-status`);
		if (status.status === 'failed')
			fail(`publishing failed: ${JSON.stringify(status).slice(0, 400)}`);
		return status.status === 'published' && !status.pendingVersionId;
	});
}

async function publish(page, id) {
	const { versionId } = await restCall(page, 'GET', `/workflows/${id}`);
	await restCall(page, 'POST', `/workflows/${id}/activate`, { versionId });
	await waitPublished(page, id);
}

async function unpublish(page, id) {
	await restCall(page, 'POST', `/workflows/${id}/deactivate`, {}).catch(() => {});
}

async function workflowIdByName(page, name) {
	const found = (await restCall(page, 'GET', `/workflows?filter=${q({ name })}`)).find(
		(w) => w.name === name,
	);
	return found ? found.id : fail(`no workflow "${name}" was imported`);
}

async function openWorkflowByName(page, name) {
	await openHome(page);
	await act(page.getByText(name, { exact: true }), `the workflow "${name}" in the list`);
	await until('the workflow opens', () => pathOf(page).startsWith('/workflow/'));
}

/** Waits for the target, then clicks it (or `how`: dblclick, or fill with `value`). */
async function act(locator, what, how = 'click', value) {
	const target = await visible(locator, what);
	await (how === 'fill' ? target.fill(value) : target[how]());
}

/** A person's actions, counted (a typed field counts one, as a click does); `first`: when they began. */
function counter() {
	const c = { actions: 0, first: undefined };
	c.act = async (locator, what, how, value) => {
		await visible(locator, what);
		c.first ??= Date.now();
		await act(locator, what, how, value);
		c.actions += 1;
	};
	return c;
}

/** Create workflow (a new n8n: Build a workflow), … → Import → From file, and the file (one more). */
async function importByClicking(page, file, c) {
	const create = page
		.getByRole('button', { name: 'Create workflow' })
		.or(page.getByText('Build a workflow', { exact: true }));
	await c.act(create.first(), 'the button "Create workflow" or "Build a workflow"');
	await until('the new workflow opens', () => pathOf(page).startsWith('/workflow/'));
	await c.act(page.getByTestId('workflow-menu'), 'the … menu next to the workflow name');
	await c.act(page.getByRole('menuitem', { name: 'Import', exact: true }), '"Import"');
	const [chooser] = await Promise.all([
		page.waitForEvent('filechooser'),
		c.act(page.getByRole('menuitem', { name: 'From file' }), '"From file" under Import'),
	]);
	await chooser.setFiles(file);
	c.actions += 1;
}

/** Double-clicks the canvas node `name` and returns its settings (NDV). */
async function openByClicking(page, name, c) {
	await c.act(canvasNode(page, name), `the canvas node "${name}"`, 'dblclick');
	return visible(page.getByTestId('ndv'), `the settings of "${name}"`);
}

async function closeByClicking(ndv, c) {
	await c.act(ndv.getByTestId('ndv-close-button'), 'the × of the node settings');
	await hidden('the node settings close', ndv);
}

/** A pick from a list field: the Project (resource locator) or the Document Type list. */
async function pickByClicking(page, ndv, field, name, c) {
	if (field === 'project') {
		await c.act(
			ndv.getByTestId('resource-locator-project').getByTestId('rlc-input'),
			'the field "Project"',
		);
		const exact = new RegExp(`^\\s*${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
		await c.act(page.getByTestId('rlc-item').filter({ hasText: exact }), `"${name}" in the list`);
		return;
	}
	await c.act(
		ndv.getByTestId('parameter-input-documentType').locator('input').first(),
		'the field "Document Type Name or ID"',
	);
	await c.act(
		page.locator('.el-select-dropdown:visible').getByText(name, { exact: true }),
		`"${name}" in the Document Type list`,
	);
}

/** Publish, Publish in its dialog, and (with `dismiss`) Got it in "Workflow published". */
async function publishByClicking(page, c, dismiss = true) {
	await c.act(page.getByTestId('workflow-open-publish-modal-button'), 'the Publish button');
	await c.act(page.getByTestId('workflow-publish-button'), 'Publish in the dialog');
	await waitPublished(page, workflowIdOf(page));
	const published = page.getByText('Workflow published', { exact: true });
	await visible(published, 'the dialog "Workflow published"');
	if (!dismiss) return;
	await c.act(page.getByRole('button', { name: 'Got it' }), 'Got it in "Workflow published"');
	await hidden('the dialog "Workflow published" closes', published);
}

/** Fills a credential window that just opened (`fields`: [test id, value]) and saves it, counted. */
async function fillCredential(page, what, fields, c) {
	const modal = page.getByTestId('editCredential-modal');
	await visible(modal, what);
	// n8n names a new credential once its window is open; typing earlier is lost
	await until(`${what} has its name`, async () =>
		/\S/.test(
			await modal
				.getByTestId('credential-name')
				.innerText()
				.catch(() => ''),
		),
	);
	await page.waitForTimeout(300);
	for (const [field, value] of fields)
		await c.act(
			modal.getByTestId(`parameter-input-${field}`).locator('input'),
			`${what}: ${field}`,
			'fill',
			value,
		);
	await c.act(modal.getByTestId('credential-save-button'), `Save (${what})`);
	return modal;
}

/** The part of `doc` from `heading` to the next `next` (a heading prefix such as "\n## "). */
function docPart(doc, heading, next) {
	const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
	const at = text.indexOf(heading);
	if (at < 0) fail(`${doc} has no "${heading}"`);
	return text.slice(at, text.indexOf(next, at + heading.length));
}

/** The ```sh block of a doc that matches `pattern`, with the ports of the n8n `page` shows. */
function docBlock(doc, pattern, page) {
	const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
	const block = [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
		.map((m) => m[1])
		.find((b) => pattern.test(b));
	if (!block) fail(`${doc} has no \`\`\`sh block with ${pattern}`);
	const emulator = (process.env.UI_EMULATOR_URL || 'http://127.0.0.1:8790').replace(/\/+$/, '');
	return block
		.replaceAll('http://127.0.0.1:5678', new URL(page.url()).origin)
		.replaceAll('http://127.0.0.1:8790', emulator);
}

/** Runs a documented command line in bash, on this machine only, with `env` added. */
function shell(command, env = {}) {
	if (/https?:\/\/(?!127\.0\.0\.1[:/])/.test(command))
		fail(`the command reaches beyond 127.0.0.1: ${command}`);
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
}

/** The production setup's Data Table, once it exists: {id, projectId, name}. */
async function findTable(page) {
	const name = 'document_extraction_tasks';
	const data = await restCall(page, 'GET', `/data-tables-global?filter=${q({ name })}&take=10`);
	return (data.data ?? []).find((t) => t.name === name);
}

async function tableRows(page, table) {
	const url = `/projects/${table.projectId}/data-tables/${table.id}/rows?take=250`;
	return (await restCall(page, 'GET', url)).data;
}

/** Runs docs/production.md's curl line; waits until the table's rows after `before` are all done. */
async function postUntilDone(page, command, before = 0, env = {}) {
	const ran = shell(command, env);
	if (!ran.ok) fail(`the curl line of docs/production.md failed: ${ran.output.slice(0, 500)}`);
	if (!/"state":\s*"accepted"/.test(ran.output))
		fail(`Intake answered: ${ran.output.slice(0, 300)}`);
	const table = await until('the Data Table exists', () => findTable(page));
	return await untilValue(
		'the rows of the documents sent are done',
		async () => (await tableRows(page, table)).slice(before),
		(r) => r.length > 0 && r.every((row) => row.status === 'done'),
		RUN_WAIT,
	);
}

module.exports = {
	ROOT,
	SHOTS,
	RUN_WAIT,
	EXAMPLE,
	PROJECTS,
	CREDENTIAL,
	readJson,
	fail,
	until,
	untilValue,
	sameList,
	includesAll,
	hidden,
	visible,
	iconRendered,
	inputValue,
	inputPlaceholder,
	shot,
	scenario,
	freshPage,
	runMain,
	withBrowser,
	signIn,
	openHome,
	pathOf,
	workflowIdOf,
	canvasNode,
	q,
	restCall,
	executionsOf,
	publish,
	unpublish,
	workflowIdByName,
	openWorkflowByName,
	act,
	counter,
	importByClicking,
	openByClicking,
	closeByClicking,
	pickByClicking,
	publishByClicking,
	fillCredential,
	docPart,
	docBlock,
	shell,
	findTable,
	tableRows,
	postUntilDone,
};
