'use strict';

/** The first hour as README.md and docs/ tell it, on a fresh `npm start` (run by editor.js). */

const ui = require('./lib.js');

const SUBMIT = ui.EXAMPLE.nodes.find((n) => n.type.endsWith('.documentExtraction')).name;
/** The examples whose webhooks docs/development.md calls with a curl line, and their answers. */
const DOC_EXAMPLES = [
	['Document Extraction: Trigger to CRM record', /process_file/, /"task_id":\s*"[0-9a-f-]{36}"/],
	// the MCP tool's answer: the extracted fields, not an error
	[
		'Document Extraction: tools for AI agents and MCP clients',
		/\/mcp\/document-extraction/,
		/invoice_number/,
	],
];

async function firstHour(context) {
	let page;
	let offered;
	const submitNode = () => page.getByTestId('canvas-node').filter({ hasText: SUBMIT });
	await ui.scenario('first hour', [
		[
			`opens "${ui.EXAMPLE.name}"; before a run, reads the fields offered to map from "${SUBMIT}"`,
			async () => {
				page = await ui.freshPage(context);
				await ui.openWorkflowByName(page, ui.EXAMPLE.name);
				await ui.until(
					`the canvas shows its ${ui.EXAMPLE.nodes.length} nodes`,
					async () => (await page.getByTestId('canvas-node').count()) === ui.EXAMPLE.nodes.length,
				);
				await ui.iconRendered(submitNode(), `the canvas node "${SUBMIT}"`);
				// a run would make the panel show its data instead of the schema
				if ((await ui.executionsOf(page, ui.workflowIdOf(page))).length)
					ui.fail(`"${ui.EXAMPLE.name}" has run before: the first hour needs a fresh npm start`);
				const input = await addEditFieldsAfter(page, SUBMIT);
				// before a run the panel lists the node's output schema; without one, n8n's "No input data"
				await ui.until(
					`the input panel shows a preview of "${SUBMIT}", or no input data`,
					async () =>
						(await input
							.getByTestId('run-data-schema-header')
							.filter({ hasText: SUBMIT })
							.count()) > 0 || /No input data/.test(await input.innerText()),
				);
				await page.waitForTimeout(1500); // a schema preview is fetched once the panel is open
				offered = await schemaFields(input, SUBMIT);
				console.log(`        offered before the run: ${JSON.stringify(offered)}`);
				await ui.shot(page, 'schema-preview', input);
				await ui.closeNdv(page);
			},
		],
		[
			'runs it: every node succeeds',
			async () => {
				await runWholeWorkflow(page, ui.EXAMPLE.nodes.length + 1);
			},
		],
		[
			'the fields offered before the run are all in the output (the preview lists none it lacks)',
			async () => {
				await page.getByTestId('canvas-node').filter({ hasText: 'Edit Fields' }).first().dblclick();
				const input = await inputPanel(page);
				const output = await ui.untilValue(
					`the input panel lists the fields "${SUBMIT}" output`,
					() => schemaFields(input, SUBMIT),
					(fields) => fields.includes('invoice_number'),
				);
				console.log(`        output by the run: ${JSON.stringify(output)}`);
				const missing = offered.filter((field) => !output.includes(field));
				if (missing.length)
					ui.fail(
						`before the run the editor offered ${missing.map((f) => `"${f}"`).join(', ')} to map, which the output lacks (output: ${output.join(', ')})`,
					);
				await ui.closeNdv(page);
			},
		],
		[
			'the output panel opens on the extracted fields, not on the input file',
			async () => {
				await submitNode().first().dblclick();
				const ndv = await ui.visible(page.getByTestId('ndv'), `the settings of "${SUBMIT}"`);
				const output = ndv.getByTestId('output-panel');
				await ui.until('the output panel shows invoice_number as it opens', async () =>
					/invoice_number/.test(await output.innerText()),
				);
				if (await output.getByTestId('radio-button-binary').count())
					ui.fail('the output panel offers a Binary tab: the input file was passed on by default');
				await ui.act(output.getByTestId('radio-button-json'), "the output panel's JSON view");
				const text = await ui.until(
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
					ui.fail(`the output panel does not say "1 item": ${text.slice(0, 200)}`);
				await ui.shot(page, 'output', ndv.locator('.node-settings'), output);
				await ui.closeNdv(page);
			},
		],
	]);
	await ui.scenario(
		'examples as imported',
		DOC_EXAMPLES.map(([name, block, answer]) => [
			`"${name}" runs as imported, with the curl line of docs/development.md`,
			async () => {
				page = await ui.freshPage(context);
				await ui.openHome(page);
				const id = await ui.workflowIdByName(page, name);
				await ui.publish(page, id);
				const before = (await ui.executionsOf(page, id)).length;
				const ran = ui.shell(ui.docBlock('docs/development.md', block, page));
				if (!ran.ok || !answer.test(ran.output) || /"isError":\s*true/.test(ran.output))
					ui.fail(`the curl line of docs/development.md answered: ${ran.output.slice(0, 600)}`);
				const done = await ui.executionsEnded(page, id, before);
				const failed = done.filter((e) => e.status !== 'success');
				if (failed.length)
					ui.fail(`"${name}" failed as imported: executions ${JSON.stringify(failed.slice(0, 3))}`);
				await ui.unpublish(page, id);
			},
		]),
	);
	await ui.scenario('production setup', [
		[
			'publishes the production workflow as npm start imported it; the curl line from docs/production.md, then every row is done',
			async () => {
				page = await ui.freshPage(context);
				const production = ui.readJson('examples/production.json');
				await pictureCanvas(page, production);
				const command = ui.docBlock('docs/production.md', /curl[\s\S]*intake/i, page);
				const existing = await ui.findTable(page);
				const before = existing ? (await ui.tableRows(page, existing)).length : 0;
				// the documented steps, counted: open it from the list, Publish, Publish, Got it
				const c = ui.counter();
				await ui.openWorkflowByName(page, production.name, c);
				await ui.publishByClicking(page, c);
				console.log(
					`        npm start path: ${c.actions} clicks and key presses from the workflow list`,
				);
				try {
					const posted = Date.now();
					const rows = await ui.postUntilDone(page, command, before);
					const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1);
					console.log(
						`        ${rows.length} rows done: ${rows.map((r) => r.task_id).join(', ')}; ${seconds(c.first)} s after the first click, ${seconds(posted)} s after the curl line`,
					);
				} finally {
					await ui.unpublish(page, ui.workflowIdOf(page));
				}
			},
		],
	]);
}

/** docs/production.md's picture: the whole workflow, zoomed to fit in a taller window. */
async function pictureCanvas(page, production) {
	await ui.openWorkflowByName(page, production.name);
	await ui.canvasShows(page, production);
	const view = page.viewportSize();
	await page.setViewportSize({ width: 1400, height: 1300 });
	try {
		await ui.act(page.getByTestId('zoom-to-fit'), 'the canvas button Zoom to Fit');
		await page.waitForTimeout(800);
		await ui.shot(page, 'production-canvas');
	} finally {
		await page.setViewportSize(view);
	}
}

/** The open node settings' input panel, in its Schema view. */
async function inputPanel(page) {
	const ndv = await ui.visible(page.getByTestId('ndv'), 'the node settings');
	const input = await ui.visible(ndv.getByTestId('ndv-input-panel'), 'the input panel');
	const schemaTab = input.getByTestId('radio-button-schema').first();
	if (await schemaTab.isVisible()) await schemaTab.click();
	return input;
}

/** Adds "Edit Fields (Set)" after the node `name` and returns its input panel. */
async function addEditFieldsAfter(page, name) {
	await page.getByTestId('canvas-node').filter({ hasText: name }).first().hover();
	await ui.act(page.getByTestId('canvas-handle-plus'), `the "+" on the output of "${name}"`);
	const search = page.getByTestId('node-creator-search-bar');
	await ui.act(search, 'the nodes panel search box', 'fill', 'Edit Fields');
	const result = ui.exact(page.getByTestId('node-creator-item-name'), 'Edit Fields (Set)');
	await ui.act(result, '"Edit Fields (Set)" among the results');
	return inputPanel(page);
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
	await ui.act(page.getByTestId('execute-workflow-button'), 'the "Execute workflow" button');
	await ui.until(
		'every node ran successfully',
		async () => {
			const errors = await nodes
				.filter({ has: page.locator('[data-test-id^=canvas-node-status-error]') })
				.allInnerTexts();
			if (errors.length) ui.fail(`a node failed: ${errors.join(' | ')}`);
			const succeeded = nodes.filter({ has: page.getByTestId('canvas-node-status-success') });
			return (await succeeded.count()) === count;
		},
		ui.RUN_WAIT,
	);
	await ui.dismissToast(page, 'Workflow executed successfully');
}

module.exports = { firstHour };
