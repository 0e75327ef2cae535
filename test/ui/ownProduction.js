'use strict';

/**
 * The production workflow on one's own n8n, after the README's email path on the same fresh n8n
 * (test/ui/ownMailboxScenario.js): docs/production.md's "On your own n8n 2.x" clicked step by
 * step on examples/production.json as shipped (picked from examples/, never copied or edited),
 * with the Document Extraction credential the email path made, counting every click, typed field
 * and key; then the documented curl line, until every row is done. The file's placeholders call
 * nothing: the emulator's sink gets no call from this workflow.
 */

const fs = require('fs');
const path = require('path');

const { ROOT, BASE, fail, until, visible, shot } = require('./lib.js');
const {
	restCall,
	docBlock,
	publishByClicking,
	postUntilDone,
	importByClicking,
	pickByClicking,
} = require('./firstHour.js');

const FILE = path.join(ROOT, 'examples', 'production.json');
const DOC = 'docs/production.md';
const SECTION = '### On your own n8n 2.x';
const CREDENTIAL_TYPE = 'documentExtractionApi';
const PROJECT = 'Invoices';
const DOCUMENT_TYPE = 'invoice';
const MAX_ACTIONS = 20;

/** The section of docs/production.md the test clicks. */
function docSection() {
	const text = fs.readFileSync(path.join(ROOT, DOC), 'utf8');
	const at = text.indexOf(SECTION);
	if (at < 0) fail(`${DOC} has no "${SECTION}"`);
	return text.slice(at, text.indexOf('\n### ', at + SECTION.length));
}

/** The steps of the production path, to run after the email path in its scenario. */
function productionSteps(context, env, freshPage) {
	const workflow = JSON.parse(fs.readFileSync(FILE, 'utf8'));
	let page;
	let actions = 0;
	let workflowId;
	let credentialId;
	const act = async (locator, what, how = 'click') => {
		await (await visible(locator, what))[how]();
		actions += 1;
	};
	return [
		[
			`imports examples/production.json as shipped and clicks ${DOC}'s "On your own n8n 2.x": at most ${MAX_ACTIONS} actions`,
			async () => {
				page = await freshPage(context);
				await page.goto(`${BASE}/home/workflows`);
				const credentials = (await restCall(page, 'GET', '/credentials')).filter(
					(c) => c.type === CREDENTIAL_TYPE,
				);
				if (credentials.length !== 1)
					fail(`${credentials.length} Document Extraction credentials (the email path made one)`);
				credentialId = credentials[0].id;

				// 1. Create workflow, … → Import → From file, the shipped file
				const filePick = await importByClicking(page, FILE, act); // read before adding: it counts too
				actions += filePick;
				const nodes = page.getByTestId('canvas-node');
				await until(
					"the canvas shows the workflow's nodes",
					async () => (await nodes.count()) >= workflow.nodes.length - 1,
				);
				// the file's credential is not on this n8n: n8n puts the user's into every node that
				// needs one, and says so
				await visible(
					page.locator('.el-notification').filter({ hasText: 'Credentials auto-added' }),
					'the message "Credentials auto-added"',
				);
				await shot(page, 'own-production-imported');

				// 2. the trigger: Project from the list
				await act(
					nodes.filter({ hasText: 'Document Extraction Trigger' }),
					'the canvas node "Document Extraction Trigger"',
					'dblclick',
				);
				const ndv = await visible(page.getByTestId('ndv'), 'the settings of the trigger');
				await pickByClicking(page, ndv, 'project', PROJECT, act);
				await act(ndv.getByTestId('ndv-close-button'), 'the × of the trigger settings');
				await until('the trigger settings close', async () => !(await ndv.isVisible()));

				// 3. Submit: Document Type; Allow Private Addresses (the emulator's documents)
				await act(
					nodes.filter({ has: page.getByText('Submit', { exact: true }) }),
					'the canvas node "Submit"',
					'dblclick',
				);
				await visible(ndv, 'the settings of "Submit"');
				await pickByClicking(page, ndv, 'documentType', DOCUMENT_TYPE, act);
				await act(ndv.getByTestId('collection-parameter-add'), 'the button "Add option"');
				await act(
					page
						.getByTestId('collection-parameter-option')
						.getByText('Allow Private Addresses', { exact: true }),
					'"Allow Private Addresses" in the option list',
				);
				await act(
					ndv.getByTestId('parameter-input-allowPrivateAddresses').locator('.el-switch').first(),
					'the switch "Allow Private Addresses"',
				);
				await shot(page, 'own-production-submit', ndv);
				await act(ndv.getByTestId('ndv-close-button'), 'the × of the settings of "Submit"');
				await until('the settings of "Submit" close', async () => !(await ndv.isVisible()));

				// 4. Publish, Publish, Got it
				workflowId = new URL(page.url()).pathname.split('/').pop();
				await publishByClicking(page, workflowId, act, 'own-production-published');
				console.log(`        ${actions} actions from the workflow list`);

				const section = docSection();
				for (const words of [
					'**Create workflow**',
					'**Import**',
					'**From file**',
					path.basename(FILE),
					'**Document Extraction Trigger**',
					'**Project**',
					'**Submit**',
					'**Document Type Name or ID**',
					'**Add option**',
					'**Allow Private Addresses**',
					'**Publish**',
					'**Got it**',
				])
					if (!section.includes(words)) fail(`${DOC}'s steps do not name ${words}`);
				const stated = /\*\*(\d+) actions\*\*/.exec(section);
				if (!stated || Number(stated[1]) !== actions)
					fail(`${DOC} states ${stated ? stated[1] : 'no'} actions; this run took ${actions}`);
				if (actions > MAX_ACTIONS)
					fail(`the production path took ${actions} actions (at most ${MAX_ACTIONS})`);

				// what was saved: the picks, and the credential on every node of the package
				const saved = await restCall(page, 'GET', `/workflows/${workflowId}`);
				const byName = (name) => saved.nodes.find((n) => n.name === name);
				const project = byName('Document Extraction Trigger').parameters.project;
				if (project.cachedResultName !== PROJECT)
					fail(`the trigger's saved Project is ${JSON.stringify(project)}, not "${PROJECT}"`);
				const submit = byName('Submit').parameters;
				if (submit.documentType !== DOCUMENT_TYPE)
					fail(`Submit's saved Document Type is ${submit.documentType}`);
				if (submit.options?.allowPrivateAddresses !== true)
					fail(`Submit's saved options are ${JSON.stringify(submit.options)}`);
				const without = saved.nodes
					.filter((n) => n.type.startsWith('n8n-nodes-document-extraction.'))
					.filter((n) => n.credentials?.[CREDENTIAL_TYPE]?.id !== credentialId);
				if (without.length) fail(`not on the credential: ${without.map((n) => n.name).join(', ')}`);
			},
		],
		[
			`the curl line of ${DOC}: every row done; the placeholders call nothing`,
			async () => {
				const sinkBefore = (await env.sinkCalls()).length;
				const posted = Date.now();
				const rows = await postUntilDone(page, docBlock(DOC, /curl[\s\S]*intake/i));
				console.log(
					`        ${rows.length} rows done ${((Date.now() - posted) / 1000).toFixed(1)} s after the curl line`,
				);
				await page.waitForTimeout(2000);
				const sinkAfter = await env.sinkCalls();
				if (sinkAfter.length !== sinkBefore)
					fail(
						`the workflow called the emulator's sink: ${JSON.stringify(sinkAfter.slice(sinkBefore)).slice(0, 300)}`,
					);
				// the completion ran through the placeholder, which shows what the CRM node would get
				const data = await restCall(
					page,
					'GET',
					`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`,
				);
				const failed = data.results.filter((e) => e.status !== 'success');
				if (failed.length)
					fail(`executions that did not succeed: ${JSON.stringify(failed.map((e) => e.status))}`);
			},
		],
	];
}

module.exports = { productionSteps };
