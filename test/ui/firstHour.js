'use strict';

/** The browser test's first-hour scenario (run by editor.js). */

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const {
	ROOT,
	BASE,
	RUN_WAIT,
	EXAMPLE,
	fail,
	until,
	untilValue,
	visible,
	iconRendered,
	shot,
	scenario,
	freshPage,
} = require('./lib.js');

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
			'publishes the production workflow as npm start imported it; the curl line from docs/production.md, then every row is done',
			async () => {
				page = await freshPage(context);
				await page.goto(`${BASE}/home/workflows`);
				await visible(page.getByTestId('project-home-menu-item'), 'the main menu (Overview)');
				const command = docBlock('docs/production.md', /curl[\s\S]*intake/i);
				const production = JSON.parse(
					fs.readFileSync(path.join(ROOT, 'examples', 'production.json'), 'utf8'),
				);
				const id = await workflowIdByName(page, production.name);
				await pictureCanvas(page, production);
				const existing = await findTable(page);
				const before = existing ? (await tableRows(page, existing)).length : 0;
				// the documented steps, counted: open it from the list, Publish, Publish in the
				// dialog, Got it in "Workflow published"
				let clicks = 0;
				const click = async (locator, what) => {
					await (await visible(locator, what)).click();
					clicks += 1;
				};
				await page.goto(`${BASE}/home/workflows`);
				const started = Date.now();
				await click(
					page.getByText(production.name, { exact: true }),
					`"${production.name}" in the list`,
				);
				await until('the workflow opens', () =>
					new URL(page.url()).pathname.startsWith('/workflow/'),
				);
				await publishByClicking(page, id, click, 'production-published');
				console.log(
					`        npm start path: ${clicks} clicks and key presses from the workflow list`,
				);
				try {
					const posted = Date.now();
					const rows = await postUntilDone(page, command, before);
					const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1);
					console.log(
						`        ${rows.length} rows done: ${rows.map((r) => r.task_id).join(', ')}; ${seconds(started)} s after the first click, ${seconds(posted)} s after the curl line`,
					);
				} finally {
					await unpublish(page, id);
				}
			},
		],
	]);
}

/**
 * The last step of both production paths in docs/production.md, clicked (`click` counts each):
 * Publish, Publish in the Publish workflow dialog, and (with `dismiss`) Got it in "Workflow published".
 */
async function publishByClicking(page, id, click, shotName, dismiss = true) {
	await click(page.getByTestId('workflow-open-publish-modal-button'), 'the Publish button');
	await click(
		page.getByTestId('workflow-publish-button'),
		'Publish in the Publish workflow dialog',
	);
	await until(`workflow ${id} is published`, async () => {
		const status = await restCall(page, 'GET', `/workflows/${id}/publication-status`);
		if (status.status === 'failed')
			fail(`publishing failed: ${JSON.stringify(status).slice(0, 400)}`);
		return status.status === 'published' && !status.pendingVersionId;
	});
	const published = page.getByText('Workflow published', { exact: true });
	await visible(published, 'the dialog "Workflow published"');
	await shot(page, shotName);
	if (!dismiss) return;
	await click(page.getByRole('button', { name: 'Got it' }), 'Got it in "Workflow published"');
	await until('the dialog "Workflow published" closes', async () => !(await published.isVisible()));
}

/**
 * The first steps of every own-n8n path, clicked (`click` counts each, the file pick one more):
 * Create workflow (on a new n8n: Build a workflow), … → Import → From file, and `file` as it is.
 * Returns the count of the file pick (1), for the caller to add.
 */
async function importByClicking(page, file, click) {
	const create = page
		.getByRole('button', { name: 'Create workflow' })
		.or(page.getByText('Build a workflow', { exact: true }));
	await click(create.first(), 'the button "Create workflow" or "Build a workflow"');
	await until('the new workflow opens', () =>
		new URL(page.url()).pathname.startsWith('/workflow/'),
	);
	await click(page.getByTestId('workflow-menu'), 'the … menu next to the workflow name');
	await click(page.getByRole('menuitem', { name: 'Import', exact: true }), '"Import"');
	const [chooser] = await Promise.all([
		page.waitForEvent('filechooser'),
		click(page.getByRole('menuitem', { name: 'From file' }), '"From file" under Import'),
	]);
	await chooser.setFiles(file);
	return 1;
}

/** A pick from a list field, clicked: the Project (resource locator) or the Document Type list. */
async function pickByClicking(page, ndv, field, name, click) {
	if (field === 'project') {
		await click(
			ndv.getByTestId('resource-locator-project').getByTestId('rlc-input'),
			'the field "Project"',
		);
		await click(
			page.getByTestId('rlc-item').filter({
				hasText: new RegExp(`^\\s*${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`),
			}),
			`"${name}" in the Project list`,
		);
		return;
	}
	await click(
		ndv.getByTestId('parameter-input-documentType').locator('input').first(),
		'the field "Document Type Name or ID"',
	);
	await click(
		page.locator('.el-select-dropdown:visible').getByText(name, { exact: true }),
		`"${name}" in the Document Type list`,
	);
}

/**
 * Runs the curl line of docs/production.md (`command`, with the variables `env` adds, such as
 * INTAKE_KEY); waits until the table's rows after the first `before` are all `done`, and returns
 * them.
 */
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

/**
 * The picture docs/production.md shows next to its state table: the whole workflow on the canvas,
 * zoomed to fit.
 */
async function pictureCanvas(page, production) {
	await openWorkflowByName(page, production.name);
	const nodes = page.getByTestId('canvas-node');
	// its nodes, sticky notes aside (the canvas draws those apart)
	const shown = production.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
	await until(
		`the canvas shows the workflow's ${shown.length} nodes`,
		async () => (await nodes.count()) >= shown.length - 1,
	);
	// a taller window than the test's, so that the node names can be read
	const view = page.viewportSize();
	await page.setViewportSize({ width: 1400, height: 1300 });
	try {
		await visible(page.getByTestId('zoom-to-fit'), 'the canvas button Zoom to Fit');
		await page.getByTestId('zoom-to-fit').click();
		await page.waitForTimeout(800);
		await shot(page, 'production-canvas');
	} finally {
		await page.setViewportSize(view);
	}
}

const EMULATOR = (process.env.UI_EMULATOR_URL || 'http://127.0.0.1:8790').replace(/\/+$/, '');
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

/**
 * Runs a documented command line in bash, on this machine only (127.0.0.1), with the variables
 * `env` adds to this process's environment.
 */
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

module.exports = {
	firstHour,
	openWorkflowByName,
	runWholeWorkflow,
	closeNdv,
	EMULATOR,
	restCall,
	docBlock,
	findTable,
	unpublish,
	publishByClicking,
	importByClicking,
	pickByClicking,
	postUntilDone,
};
