'use strict';

/**
 * The browser test's email scenario (run by editor.js): the example "Email to CRM" as `npm start`
 * imports it. Run from the canvas, its sample email (two invoices and a text file) gives one
 * output item per invoice at "Extract Every Attachment", each naming its file, and the hint
 * above the output names the text file that was not sent.
 */

const fs = require('fs');
const path = require('path');

const { ROOT, fail, until, visible, shot, scenario, freshPage } = require('./lib.js');
const { openWorkflowByName, runWholeWorkflow, closeNdv } = require('./firstHour.js');

const EMAIL_EXAMPLE = JSON.parse(
	fs.readFileSync(path.join(ROOT, 'examples/email-to-crm.json'), 'utf8'),
);
const EXTRACT = 'Extract Every Attachment';
const CRM = 'CRM Record';

/** The nodes a run from the Manual Trigger runs: all but the sticky note and the disabled trigger. */
const ran = EMAIL_EXAMPLE.nodes.filter((n) => !n.disabled && !n.type.endsWith('.stickyNote'));

/**
 * Opens the node `name` of the run, its output in the Table view, and waits until it shows both
 * invoices' files and says "2 items"; returns the panel, its output and their text.
 */
async function bothInvoices(page, name) {
	await page.getByTestId('canvas-node').filter({ hasText: name }).first().dblclick();
	const ndv = await visible(page.getByTestId('ndv'), `the settings of "${name}"`);
	const output = ndv.getByTestId('output-panel');
	await (
		await visible(output.getByTestId('radio-button-table'), "the output panel's Table view")
	).click();
	const text = await until(`"${name}" shows both invoices`, async () => {
		const t = await output.innerText();
		return /INV-2024-0042\.pdf/.test(t) && /INV-2024-0043\.pdf/.test(t) && t;
	});
	if (!/\b2 items\b/.test(text)) fail(`"${name}" does not say "2 items": ${text.slice(0, 300)}`);
	return { ndv, output, text };
}

async function emailExample(context) {
	let page;
	await scenario('email example', [
		[
			`"${EMAIL_EXAMPLE.name}" runs as imported: one output item per invoice, the text file in the hint`,
			async () => {
				page = await freshPage(context);
				await openWorkflowByName(page, EMAIL_EXAMPLE.name);
				await runWholeWorkflow(page, ran.length);
				// the table: one row per invoice, its file first, then the email's and the extracted fields
				const { ndv, output, text } = await bothInvoices(page, EXTRACT);
				for (const field of [
					'binaryField',
					'fileName',
					'attachment_0',
					'attachment_1',
					'subject',
				]) {
					if (!text.includes(field)) fail(`the output lacks ${field}: ${text.slice(0, 600)}`);
				}
				if (/\bnotes\.txt\b/.test(text.replace(/^[\s\S]*?\b2 items\b/, '')))
					fail('the text file was output as a document');
				await until('the hint above the output names the text file', async () =>
					/attachment_2.*notes\.txt/s.test(await ndv.innerText()),
				);
				await shot(page, 'email-extract-output', output);
				await closeNdv(page);
			},
		],
		[
			'"CRM Record" maps one record per invoice, its file and the email beside the extracted fields',
			async () => {
				// a wider window, so that the table shows the record's columns
				const size = page.viewportSize();
				await page.setViewportSize({ width: 1680, height: 720 });
				try {
					const { output, text } = await bothInvoices(page, CRM);
					if (!/INV-2024-\d{5}/.test(text))
						fail(`"${CRM}" shows no invoice number: ${text.slice(0, 400)}`);
					await shot(
						page,
						'email-output',
						output.getByText(/^2 items$/).first(),
						output.locator('table').first(),
					);
					await closeNdv(page);
				} finally {
					await page.setViewportSize(size);
				}
			},
		],
	]);
}

module.exports = { emailExample };
