'use strict';

/**
 * The browser test's toolkit: the settings it reads from the environment, waiting and
 * assertions that name what they waited for, screenshots, scenarios made of steps, and the
 * editor and REST actions the scenarios share.
 */

const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '../..');
const BASE = (process.env.UI_EDITOR_URL || 'http://127.0.0.1:5678/').replace(/\/+$/, '');
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
/** The placeholder of the field's input: what an empty select says ("" when it has none). */
const inputPlaceholder = async (locator) =>
	(await locator.locator('input').first().getAttribute('placeholder')) ?? '';

/** Saves a screenshot: of the whole window, or cropped to the union of `regions` (locators). */
async function shot(page, name, ...regions) {
	return await shotAround(page, name, 0, ...regions);
}

/** Like `shot`, with `margin` pixels around the regions (for a node whose label sits below it). */
async function shotAround(page, name, margin, ...regions) {
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
	if (clip && margin) {
		const view = page.viewportSize();
		const x = Math.max(0, clip.x - margin);
		const y = Math.max(0, clip.y - margin);
		const width = Math.min(view.width - x, clip.width + 2 * margin);
		clip = { x, y, width, height: Math.min(view.height - y, clip.height + 2 * margin) };
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

/** Waits until the credential window has its name (n8n names a new credential after it opens). */
async function credentialReady(modal, what) {
	await visible(modal, what);
	await until(`${what} has its name`, async () =>
		/\S/.test(
			await modal
				.getByTestId('credential-name')
				.innerText()
				.catch(() => ''),
		),
	);
	await modal.page().waitForTimeout(300);
}

module.exports = {
	credentialReady,
	ROOT,
	BASE,
	EMAIL,
	PASSWORD,
	CHROMIUM,
	SHOTS,
	WAIT,
	RUN_WAIT,
	CHROMIUM_ARGS,
	EXAMPLE,
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
	shotAround,
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
};
