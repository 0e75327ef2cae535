'use strict';

/**
 * The browser test's "your own n8n" scenario (run last by editor.js): the production workflow set
 * up as docs/production.md's "On your own n8n 2.x" says, click by click, from a file on disk.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');

const { ROOT, BASE, fail, until, visible, shot, scenario, freshPage } = require('./lib.js');
const {
	EMULATOR,
	restCall,
	docBlock,
	findTable,
	unpublish,
	publishByClicking,
	postUntilDone,
} = require('./firstHour.js');
const { localExample } = require('../../scripts/local-examples.js');

const CREDENTIAL_TYPE = 'documentExtractionApi';
/** The name n8n gives a new credential of the type (its display name + " account"). */
const CREDENTIAL_NAME = 'Document Extraction API account';
const PROJECT = 'Invoices';
const DOCUMENT_TYPE = 'invoice';

/**
 * Makes this n8n what the production workflow meets on one's own n8n: no credential with the
 * file's credential ID (npm start's emulator credential is deleted), one Document Extraction API
 * credential made beforehand under n8n's default name (docs: "First create a credential"), no
 * copy of the workflow whose webhook paths would collide (npm start's is archived), no Data Table.
 */
async function freshN8n(page) {
	const credentials = await restCall(page, 'GET', '/credentials');
	for (const credential of credentials.filter((c) => c.type === CREDENTIAL_TYPE))
		await restCall(page, 'DELETE', `/credentials/${credential.id}`);
	const created = await restCall(page, 'POST', '/credentials', {
		name: CREDENTIAL_NAME,
		type: CREDENTIAL_TYPE,
		data: { apiKey: 'vnd_test_key', baseUrl: EMULATOR },
	});
	const workflows = await restCall(page, 'GET', '/workflows');
	for (const workflow of workflows.filter(
		(w) => !w.isArchived && w.name.startsWith('Document Extraction: Production'),
	)) {
		await unpublish(page, workflow.id);
		await restCall(page, 'POST', `/workflows/${workflow.id}/archive`, {});
	}
	const table = await findTable(page);
	if (table) await restCall(page, 'DELETE', `/projects/${table.projectId}/data-tables/${table.id}`);
	return created;
}

/**
 * The file the user imports: examples/production.json as it runs on this machine. Its two sinks
 * name this run's emulator (docs step 5 replaces them anyway) and Submit has Allow Private
 * Addresses on (the test's documents are the emulator's, on 127.0.0.1): scripts/local-examples.js,
 * as npm start imports it. Its credential ID is npm start's, which this n8n no longer has.
 */
function productionFile() {
	const workflow = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples/production.json'), 'utf8'));
	const file = path.join(
		fs.mkdtempSync(path.join(os.tmpdir(), 'docex-ui-own-')),
		'production.json',
	);
	fs.writeFileSync(file, JSON.stringify(localExample(workflow, EMULATOR), null, 2));
	return { workflow, file };
}

async function ownN8n(context) {
	let page;
	await scenario('own n8n', [
		[
			'imports production.json from disk, picks project and document type, publishes as docs/production.md says; the curl line, then every row is done; at most 20 clicks',
			async () => {
				page = await freshPage(context);
				await page.goto(`${BASE}/home/workflows`);
				await visible(page.getByTestId('project-home-menu-item'), 'the main menu (Overview)');
				const credential = await freshN8n(page);
				const { workflow, file } = productionFile();
				const command = docBlock('docs/production.md', /curl[\s\S]*intake/i);

				let clicks = 0;
				const act = async (locator, what, how = 'click') => {
					await (await visible(locator, what))[how]();
					clicks += 1;
				};
				await page.goto(`${BASE}/home/workflows`);
				const started = Date.now();
				// 1. Create workflow, … → Import → From file, pick the file
				await act(
					page.getByRole('button', { name: 'Create workflow' }),
					'the button "Create workflow"',
				);
				await until('the new workflow opens', () =>
					new URL(page.url()).pathname.startsWith('/workflow/'),
				);
				await act(page.getByTestId('workflow-menu'), 'the … menu next to the workflow name');
				await act(
					page.getByRole('menuitem', { name: 'Import', exact: true }),
					'"Import" in the … menu',
				);
				const [chooser] = await Promise.all([
					page.waitForEvent('filechooser'),
					act(page.getByRole('menuitem', { name: 'From file' }), '"From file" under Import'),
				]);
				await chooser.setFiles(file);
				clicks += 1;
				const nodes = page.getByTestId('canvas-node');
				// the editor reads the file after the pick: it stays on disk until the nodes are shown
				try {
					await until(
						`the canvas shows the workflow's nodes`,
						async () => (await nodes.count()) >= workflow.nodes.length - 1,
					);
				} finally {
					fs.rmSync(path.dirname(file), { recursive: true, force: true });
				}
				// no credential to pick: n8n drops the file's (this n8n has no credential with its ID)
				// and puts the user's in each node that needs one, and says so
				await visible(
					page.locator('.el-notification').filter({ hasText: 'Credentials auto-added' }),
					'the message "Credentials auto-added"',
				);
				await shot(page, 'own-n8n-imported');

				// 2. the trigger: Project (From List)
				const trigger = nodes.filter({ hasText: 'Document Extraction Trigger' });
				await act(trigger, 'the canvas node "Document Extraction Trigger"', 'dblclick');
				const ndv = await visible(page.getByTestId('ndv'), 'the settings of the trigger');
				await until(
					`the trigger has the credential "${CREDENTIAL_NAME}" already`,
					async () =>
						(await ndv
							.getByTestId('node-credentials-select')
							.locator('input')
							.first()
							.inputValue()) === CREDENTIAL_NAME,
				);
				await act(
					ndv.getByTestId('resource-locator-project').getByTestId('rlc-input'),
					'the field "Project"',
				);
				await act(
					page.getByTestId('rlc-item').filter({ hasText: new RegExp(`^\\s*${PROJECT}\\s*$`) }),
					`"${PROJECT}" in the Project list`,
				);
				await shot(page, 'own-n8n-trigger', ndv);
				await act(ndv.getByTestId('ndv-close-button'), 'the × of the trigger settings');
				await until('the trigger settings close', async () => !(await ndv.isVisible()));

				// 3. Submit: Document Type
				await act(
					nodes.filter({ has: page.getByText('Submit', { exact: true }) }),
					'the canvas node "Submit"',
					'dblclick',
				);
				await visible(page.getByTestId('ndv'), 'the settings of "Submit"');
				await act(
					ndv.getByTestId('parameter-input-documentType').locator('input').first(),
					'the field "Document Type Name or ID"',
				);
				await act(
					page.locator('.el-select-dropdown:visible').getByText(DOCUMENT_TYPE, { exact: true }),
					`"${DOCUMENT_TYPE}" in the Document Type list`,
				);
				await shot(page, 'own-n8n-submit', ndv);
				await act(ndv.getByTestId('ndv-close-button'), 'the × of the settings of "Submit"');
				await until('the settings of "Submit" close', async () => !(await ndv.isVisible()));

				// 5. Publish, Publish in the dialog, Got it
				const id = new URL(page.url()).pathname.split('/').pop();
				try {
					await publishByClicking(page, id, act, 'own-n8n-published');
					console.log(
						`        own n8n path: ${clicks} clicks and key presses from the workflow list`,
					);

					// what was saved: the picks, and the credential on every node of the package
					const saved = await restCall(page, 'GET', `/workflows/${id}`);
					const byName = (name) => saved.nodes.find((n) => n.name === name);
					const project = byName('Document Extraction Trigger').parameters.project;
					if (project.cachedResultName !== PROJECT)
						fail(`the trigger's saved Project is ${JSON.stringify(project)}, not "${PROJECT}"`);
					if (byName('Submit').parameters.documentType !== DOCUMENT_TYPE)
						fail(`Submit's saved Document Type is ${byName('Submit').parameters.documentType}`);
					const ours = saved.nodes.filter((n) =>
						n.type.startsWith('n8n-nodes-document-extraction.'),
					);
					const without = ours.filter(
						(n) => n.credentials?.[CREDENTIAL_TYPE]?.id !== credential.id,
					);
					if (without.length)
						fail(
							`not on the credential "${CREDENTIAL_NAME}": ${without.map((n) => `${n.name} ${JSON.stringify(n.credentials)}`).join('; ')}`,
						);
					if (clicks > 20)
						fail(`the own n8n path took ${clicks} clicks and key presses (at most 20)`);

					const posted = Date.now();
					const rows = await postUntilDone(page, command);
					const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1);
					console.log(
						`        ${rows.length} rows done; ${seconds(started)} s after the first click, ${seconds(posted)} s after the curl line`,
					);
				} finally {
					await unpublish(page, id);
				}
			},
		],
	]);
}

module.exports = { ownN8n };
