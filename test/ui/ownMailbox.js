#!/usr/bin/env node
'use strict';

/**
 * The README's "Try it on your own n8n" from its Installation section on a fresh n8n 2.41.1 (run by
 * run.sh with NODE24, N8N_BIN and an empty UI_WORK): a `git clone` of this repository (committed
 * files only), the README's commands, Dovecot as the mailbox (mailbox.sh); the README's steps
 * clicked and counted, one email with two PDFs, one CRM record per PDF (emails without a document:
 * the e2e case Inbox); then ownProduction.js.
 */

const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const {
	freePort,
	startProcess,
	stopProcess,
	killAllSync,
	waitFor,
} = require('../../harness/n8n.js');
const { readmeBlock, runReadmeInstall } = require('../../harness/readme.js');
const { setupOwner, waitReady } = require('../../scripts/n8n-local.js');
const { samplePdf } = require('../../emulator/lib/pdf.js');
const ui = require('./lib.js');
const { attachment, deliverMail, mixed, text } = require('./mail.js');
const { productionSteps } = require('./ownProduction.js');

const WORK = process.env.UI_WORK || fs.mkdtempSync(path.join(os.tmpdir(), 'docex-ui-own-'));
const TITLE = 'mailbox to CRM on a fresh n8n';
const IMAP_FILE = 'examples/email-to-crm-imap.json';
const OTHER_FILES = ['examples/email-to-crm-gmail.json', 'examples/email-to-crm-outlook.json'];
/** The port the examples' CRM step and the README's emulator use. */
const EMULATOR_PORT = 8790;
/** Port, user, password: IMAP over TLS on 993 keeps the IMAP credential's defaults. */
const MAILBOX = ['993', 'invoices', 'mailbox-secret-1'];
const MAILBOX_DIR = path.join(WORK, 'mailbox');
const MAILBOX_SH = path.join(__dirname, 'mailbox.sh');
/** The mailbox's certificate is from this run's CA (as a provider's is from a public one). */
const MAILBOX_CA = path.join(MAILBOX_DIR, 'tls/ca.crt');
const MAX_ACTIONS = 25;
/** A person's minutes from Installation to the records, at most (the model in docs/first-hour.md). */
const MAX_MINUTES = 8;
/** What a person spends per action and shell command in the time estimate. */
const SECONDS_PER_ACTION = 5;
const PROJECT = 'Invoices';
const DOCUMENT_TYPE = 'invoice';
const PDFS = ['INV-2024-0042.pdf', 'INV-2024-0043.pdf'];

const listening = (port) =>
	new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.on('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.on('error', () => resolve(false));
	});

/** The machine's part, timed: the tarball, the install, the mailbox, the emulator, n8n and its owner. */
async function setUp(timings) {
	const time = async (name, fn) => {
		const started = Date.now();
		const result = await fn();
		timings[name] = (Date.now() - started) / 1000;
		return result;
	};
	if (!process.env.NODE24 || !process.env.N8N_BIN)
		ui.fail('NODE24 and N8N_BIN are required (eval "$(bash scripts/ensure-runtime.sh)")');
	for (const port of [EMULATOR_PORT, Number(MAILBOX[0])])
		if (await listening(port))
			ui.fail(`port ${port} is taken: the emulator and the mailbox need it`);
	const home = path.join(WORK, 'home');
	fs.mkdirSync(home, { recursive: true });
	// the tarball command as written, in the clone (npm offline: TypeScript from npm's cache)
	const clone = path.join(WORK, 'clone');
	await time('clone', () => execFileSync('git', ['clone', '-q', ui.ROOT, clone]));
	const { name, version } = ui.readJson('package.json');
	const tarball = path.join(clone, `${name}-${version}.tgz`);
	await time('tarball', () =>
		execFileSync('bash', ['-euo', 'pipefail', '-c', readmeBlock('<!-- build-tarball -->')], {
			cwd: clone,
			env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
			stdio: ['ignore', 'pipe', 'pipe'],
		}),
	);
	if (!fs.existsSync(tarball)) ui.fail(`the README's tarball command made no ${tarball}`);
	await time('install', () =>
		runReadmeInstall({ tarball, home, npmCache: path.join(WORK, 'npm-cache') }),
	);
	await time('mailbox', () =>
		execFileSync('bash', [MAILBOX_SH, 'start', MAILBOX_DIR, ...MAILBOX], {
			stdio: ['ignore', 'ignore', 'inherit'],
		}),
	);

	// the README's emulator command in the clone, with its own defaults (3 s per document)
	const emulatorLog = path.join(WORK, 'emulator.log');
	const emulator = startProcess(
		'bash',
		['-c', `cd '${clone}' && ${readmeBlock('<!-- run-emulator -->')}`],
		{ ...process.env, EMULATOR_PORT: '', EMULATOR_API_KEYS: '', EMULATOR_PROCESSING_MS: '' },
		emulatorLog,
	);
	const printed = await time('emulator', () =>
		waitFor(
			'the emulator prints the credential',
			() => {
				const text = fs.existsSync(emulatorLog) ? fs.readFileSync(emulatorLog, 'utf8') : '';
				const key = /API Key:\s+(\S+)/.exec(text);
				const url = /Base URL:\s+(\S+)/.exec(text);
				return key && url && { apiKey: key[1], baseUrl: url[1] };
			},
			30000,
		),
	);

	const n8nPort = await freePort();
	const base = `http://127.0.0.1:${n8nPort}`;
	const env = {
		PATH: process.env.PATH,
		HOME: home,
		TMPDIR: process.env.TMPDIR || os.tmpdir(),
		LANG: process.env.LANG || 'C.UTF-8',
		N8N_PORT: String(n8nPort),
		N8N_HOST: '127.0.0.1',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		// offline: nothing of n8n's own calls home leaves this machine
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		NODE_EXTRA_CA_CERTS: MAILBOX_CA,
	};
	const n8nLog = path.join(WORK, 'n8n.log');
	const n8n = startProcess(process.env.NODE24, [process.env.N8N_BIN, 'start'], env, n8nLog);
	const owner = await time('n8n', async () => {
		await waitReady(`${base}/healthz/readiness`, 180000, () => n8n.alive);
		return setupOwner(base, path.join(WORK, 'owner.json'));
	});
	const sink = `${printed.baseUrl}/_emulator/sink`;
	return { base, owner, printed, sink, emulator, n8n, logs: [n8nLog, emulatorLog] };
}

/** An email from Acme into the INBOX; `files` ({name, type, bytes}) as attachments, none: plain text. */
function deliver({ subject, id, text: body, files = [] }) {
	deliverMail(MAILBOX_DIR, MAILBOX[1], {
		from: 'Acme Supplies <billing@acme.example>',
		subject,
		id: `${id}@acme.example`,
		body: files.length
			? mixed(text(body), ...files.map((f) => attachment(f.name, f.type, f.bytes)))
			: text(body),
	});
}

const notesTxt = (text) => ({
	name: 'notes.txt',
	type: 'text/plain',
	bytes: Buffer.from(`${text}\n`),
});

/** One email with two invoices and a notes.txt. */
function sendEmail() {
	const text = 'Hello, please find our two invoices for March attached.';
	const totals = ['1,190.00', '238.00'];
	const files = [
		...PDFS.map((name, i) => ({
			name,
			type: 'application/pdf',
			bytes: samplePdf(`INVOICE ${name.slice(0, -4)} Acme Supplies GmbH Total ${totals[i]} EUR`),
		})),
		notesTxt(text),
	];
	deliver({ subject: 'Invoices for March', id: 'march-invoices', text, files });
}

/** The README's path to the records: "Try it on your own n8n", and the Installation it sends to. */
const readmeSection = () =>
	ui.docPart('README.md', '### Try it on your own n8n', '\n## ') +
	ui.docPart('README.md', '## Installation', '\n## ');

/** The file's Document Type, its options loaded, shows no warning while no Project is picked. */
async function noWarningBeforeProject(page, ndv, field) {
	await ui.untilInput("Document Type shows the file's", field, DOCUMENT_TYPE);
	const placeholder = () => ui.inputPlaceholder(field);
	await ui.until(
		'Document Type has loaded its options',
		async () => !/Loading/.test(await placeholder()),
	);
	await page.waitForTimeout(1000);
	await ui.shot(page, 'imported-document-type', ndv.getByTestId('node-parameters'));
	const item = field.locator('xpath=ancestor::*[@data-test-id="parameter-item"][1]');
	if (await item.getByTestId('parameter-issues').count())
		ui.fail('Document Type shows a warning before the Project is picked');
}

/** The text of a canvas node's issues tooltip ('' when it shows none). */
async function nodeIssues(page, name) {
	const icon = ui.canvasNode(page, name).getByTestId('node-issues');
	if (!(await icon.count())) return '';
	let hovered = 0;
	const text = await ui.until(`the issues of "${name}" show`, async () => {
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

/** The trigger's "Download Attachments" is on in the file as shipped. */
async function attachmentsOn(ndv, file) {
	const download = ndv.getByTestId('parameter-input-downloadAttachments');
	await ui.visible(download, 'the option "Download Attachments"');
	if (!(await download.locator('.is-checked').count()))
		ui.fail(`"Download Attachments" is off in ${file}`);
}

function emailSteps(context, env, timings) {
	const imap = ui.readJson(IMAP_FILE);
	const nameOf = (test) => imap.nodes.find((n) => test(n.type)).name;
	const trigger = nameOf((t) => t === 'n8n-nodes-base.emailReadImap');
	const extract = nameOf((t) => t.endsWith('.documentExtraction'));
	const crm = nameOf((t) => t === 'n8n-nodes-base.httpRequest');
	const crmRecords = async () => {
		const res = await fetch(env.sink);
		if (!res.ok) ui.fail(`GET ${env.sink}: HTTP ${res.status}`);
		return (await res.json()).calls.filter((c) => c.name === 'crm');
	};
	const readmeWords = [
		...['(F5)', '**Create workflow**', '**Build a workflow**', '**Import**', '**From file**'],
		...[path.basename(IMAP_FILE), "package's icon", `**${trigger}**`, '/_emulator/sink'],
		...['**Download Attachments**', '**Connect to IMAP**', '**User**', '**Password**'],
		...['**Host**', `**${extract}**`, '**Connect to Document Extraction**', '**API Key**'],
		...['**Base URL**', `*${PROJECT}*`, `*${DOCUMENT_TYPE}*`, '**Save**', '**Publish**'],
		'**Got it**',
	];
	const c = ui.counter();
	let page;
	let editorSeconds;
	let workflowId;
	return [
		[
			'signs in to the fresh n8n with its owner account (not counted)',
			async () => {
				page = await ui.freshPage(context);
				await ui.signIn(page, env.owner.email, env.owner.password);
				const credentials = await ui.restCall(page, 'GET', '/credentials');
				if (credentials.length)
					ui.fail(`this n8n is not fresh: it has ${credentials.length} credentials`);
			},
		],
		[
			`reloads after the restart, imports ${IMAP_FILE} as shipped, sees the package's icon and clicks the README's steps 4 to 6`,
			async () => {
				// Installation 3: n8n has restarted (the test started it); reload the page (F5)
				await page.reload();
				c.actions += 1;
				await ui.importByClicking(page, path.join(ui.ROOT, IMAP_FILE), c);
				await ui.visible(ui.canvasNode(page, crm), `the canvas node "${crm}"`);
				// the README's check that n8n loaded the package: the node shows the package's icon
				await ui.iconRendered(ui.canvasNode(page, extract), `the canvas node "${extract}"`);

				// 4. the trigger: Connect to IMAP, User, Password, Host, Save; close it
				let ndv = await ui.openByClicking(page, trigger, c);
				await attachmentsOn(ndv, IMAP_FILE);
				const [, user, password] = MAILBOX;
				const fields = { user, password, host: '127.0.0.1' };
				let modal = await ui.connectCredential(ndv, 'Connect to IMAP', fields, c);
				await ui.hidden('the IMAP credential is saved and tested, and its window closes', modal);
				await ui.closeNdv(page, c);

				// 5. the extraction: the printed key and Base URL, the Project (the Document Type stays)
				ndv = await ui.openByClicking(page, extract, c);
				const { apiKey, baseUrl } = env.printed;
				const button = 'Connect to Document Extraction';
				modal = await ui.connectCredential(ndv, button, { apiKey, baseUrl }, c);
				await ui.hidden('the Document Extraction credential is saved and tested', modal);
				const documentType = ndv.getByTestId('parameter-input-documentType');
				await noWarningBeforeProject(page, ndv, documentType);
				await ui.pickByClicking(page, ndv, 'project', PROJECT, c);
				await ui.untilInput("Document Type shows the file's", documentType, DOCUMENT_TYPE);
				await ui.closeNdv(page, c);

				// 6. Publish, Publish in the dialog, Got it in "Workflow published"
				workflowId = ui.workflowIdOf(page);
				await ui.publishByClicking(page, c);
				editorSeconds = (Date.now() - c.first) / 1000;
				console.log(
					`        ${c.actions} actions (the reload, clicks, typed fields, keys) up to publishing, ${editorSeconds.toFixed(1)} s`,
				);
				const saved = await ui.restCall(page, 'GET', `/workflows/${workflowId}`);
				const project = saved.nodes.find((n) => n.name === extract).parameters.project;
				if (project?.cachedResultName !== PROJECT)
					ui.fail(`the saved Project is ${JSON.stringify(project)}`);
			},
		],
		[
			`one email with two PDFs and a notes.txt: one CRM record per PDF on the records page, none for the text file; at most ${MAX_ACTIONS} actions and ${MAX_MINUTES} minutes from Installation`,
			async () => {
				const sent = Date.now();
				sendEmail();
				const records = await ui.untilValue(
					'the CRM has a record per PDF',
					crmRecords,
					(r) => r.length >= PDFS.length,
					ui.RUN_WAIT,
				);
				const waitSeconds = (Date.now() - sent) / 1000;
				// 7. the person opens the records page the README links (one action)
				const sinkPage = await context.newPage();
				await sinkPage.goto(env.sink);
				c.actions += 1;
				const shown = await sinkPage.locator('body').innerText();
				await sinkPage.close();
				for (const pdf of PDFS)
					if (!shown.includes(pdf)) ui.fail(`the records page ${env.sink} does not list ${pdf}`);
				const section = readmeSection();
				// every step clicked is one the README names
				ui.stepsStated('README.md', section, readmeWords, c.actions, MAX_ACTIONS);
				const executions = await ui.executionsEnded(page, workflowId);
				await page.waitForTimeout(2000); // nothing more arrives
				const final = await crmRecords();
				const files = final.map((r) => r.body.file).sort();
				if (JSON.stringify(files) !== JSON.stringify(PDFS))
					ui.fail(`the CRM records name ${JSON.stringify(files)}, not one per PDF (${PDFS})`);
				for (const { body } of final) {
					if (!/^INV-\d{4}-\d{5}$/.test(body.invoice_number))
						ui.fail(`a record without an invoice number: ${JSON.stringify(body)}`);
					if (typeof body.total !== 'number' || !body.vendor || !body.currency)
						ui.fail(`a record without its fields: ${JSON.stringify(body)}`);
					if (
						!/billing@acme\.example/.test(body.email_from) ||
						body.email_subject !== 'Invoices for March'
					)
						ui.fail(`a record without the email's sender and subject: ${JSON.stringify(body)}`);
				}
				if (executions.length !== 1 || executions[0].status !== 'success')
					ui.fail(`executions: ${JSON.stringify(executions.map((e) => e.status))} (one success)`);

				// the machine's waits a person has (the test's own mailbox is not one)
				const machine = Object.entries(timings)
					.filter(([name]) => name !== 'mailbox')
					.reduce((sum, [, seconds]) => sum + seconds, 0);
				// the words a person reads on the way, at 200 a minute
				const words = section.split(/\s+/).filter((w) => /[a-z0-9]/i.test(w)).length;
				const readingSeconds = Math.round((words / 200) * 60);
				// git clone, the tarball command, the install block, restarting n8n, npm run emulator
				const install = readmeBlock('<!-- install-from-tarball -->').split('\n');
				const shellCommands = 1 + 1 + install.filter((l) => l.trim()).length + 1 + 1;
				const person =
					machine +
					editorSeconds +
					waitSeconds +
					SECONDS_PER_ACTION * (c.actions + shellCommands) +
					readingSeconds;
				const counts = {
					actions: c.actions,
					machine_setup_s: Math.round(machine),
					setup: Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v)])),
					shell_commands: shellCommands,
					editor_s: Math.round(editorSeconds),
					email_to_records_s: Math.round(waitSeconds),
					reading_words: words,
					reading_s: readingSeconds,
					person_minutes: Math.round((person / 60) * 10) / 10,
				};
				console.log(`        ${records.length} records: ${files}; ${JSON.stringify(counts)}`);
				if (process.env.UI_COUNTS_FILE)
					fs.writeFileSync(process.env.UI_COUNTS_FILE, `${JSON.stringify(counts, null, 2)}\n`);
				const statedMinutes = /about \*\*([\d.]+) minutes\*\*/.exec(section);
				if (!statedMinutes || Number(statedMinutes[1]) !== counts.person_minutes)
					console.log(
						`        note: the README states ${statedMinutes ? statedMinutes[1] : 'no'} minutes; this run: ${counts.person_minutes}`,
					);
				if (counts.person_minutes > MAX_MINUTES)
					ui.fail(`the person's time is ${counts.person_minutes} minutes (at most ${MAX_MINUTES})`);
			},
		],
		[
			"the email's run in the editor: one item per PDF in the output of the extraction (the README's picture)",
			async () => {
				const execution = (await ui.executionsOf(page, workflowId)).find(
					(e) => e.status === 'success',
				);
				if (!execution) ui.fail('no successful execution of the email workflow');
				await page.goto(`workflow/${workflowId}/executions/${execution.id}`);
				await ui.act(ui.canvasNode(page, extract), `"${extract}" of the run`, 'dblclick');
				const ndv = await ui.visible(page.getByTestId('ndv'), `the run's data of "${extract}"`);
				const output = await ui.visible(ndv.getByTestId('output-panel'), 'the output panel');
				await ui.act(output.getByTestId('radio-button-table'), "the output panel's Table view");
				await ui.until('the output shows one item per PDF', async () => {
					const t = await output.innerText();
					return /2 items/.test(t) && PDFS.every((f) => t.includes(f)) && t;
				});
				await ui.shot(page, 'email-output', output);
			},
		],
		...OTHER_FILES.map((file) => [
			`${file} as shipped: the editor asks for nothing but the trigger's credential (and the picks of "${extract}")`,
			async () => {
				const source = ui.readJson(file).nodes.find((n) => n.type !== 'n8n-nodes-base.stickyNote');
				page = await ui.freshPage(context);
				await ui.openHome(page);
				await ui.importByClicking(page, path.join(ui.ROOT, file), ui.counter());
				await ui.visible(ui.canvasNode(page, crm), `the canvas node "${crm}"`);
				const triggerIssues = await nodeIssues(page, source.name);
				if (triggerIssues !== `Credentials for ${source.name} are not set.`)
					ui.fail(`"${source.name}" asks: ${triggerIssues || 'nothing'}`);
				const other = (await nodeIssues(page, extract))
					.split('\n')
					.map((l) => l.trim())
					.filter(
						(l) =>
							l &&
							!/^Parameter "(Project|Document Type Name or ID)" is required\.$/.test(l) &&
							!/^Credentials for .* are not set\.$/.test(l),
					);
				if (other.length)
					ui.fail(`"${extract}" asks for more than its picks: ${other.join(' | ')}`);
				const crmIssues = await nodeIssues(page, crm);
				if (crmIssues) ui.fail(`"${crm}" asks: ${crmIssues}`);
				await ui.canvasNode(page, source.name).dblclick();
				await attachmentsOn(
					await ui.visible(page.getByTestId('ndv'), 'the trigger settings'),
					file,
				);
			},
		]),
	];
}

ui.runMain(async () => {
	const timings = {};
	let env;
	let passed = false;
	try {
		const started = Date.now();
		env = await setUp(timings);
		const took = Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(1)} s`);
		console.log(
			`[own] set up in ${((Date.now() - started) / 1000).toFixed(0)} s: ${took.join(', ')}`,
		);
		process.env.UI_EMULATOR_URL = env.printed.baseUrl;
		await ui.withBrowser(env.base, async (context) => {
			passed = await ui.scenario(TITLE, [
				...emailSteps(context, env, timings),
				// then the production workflow, on the same n8n with the credential made above
				...productionSteps(context, env.sink),
			]);
		});
	} finally {
		if (env) {
			await stopProcess(env.n8n);
			await stopProcess(env.emulator);
			for (const file of [...env.logs, path.join(MAILBOX_DIR, 'dovecot.log')])
				if (!passed && fs.existsSync(file))
					fs.copyFileSync(file, path.join(ui.SHOTS, `own-${path.basename(file)}`));
		}
		killAllSync();
		spawnSync('bash', [MAILBOX_SH, 'stop', MAILBOX_DIR]);
	}
});
