#!/usr/bin/env node
'use strict';

/**
 * The README's "Try it on your own n8n", from its Installation section, on a fresh own n8n 2.41.1,
 * in Chromium: a `git clone` of this repository (its committed files), the README's tarball
 * command run in that clone, the README's install commands into a fresh HOME, the emulator
 * started with the README's command (its printed key and Base URL are what the test pastes), a
 * real IMAP mailbox (Debian's Dovecot, test/ui/mailbox.sh), and the emulator's CRM stand-in as the
 * CRM. In the editor it reloads the page, clicks the README's steps on
 * examples/email-to-crm-imap.json as shipped (picked from examples/, never copied or edited),
 * counting every click, typed field and key; then sends one email with two PDFs and a notes.txt to
 * the mailbox, waits for one CRM record per PDF and none for the text file, and opens the records
 * page the README links. Then it imports the Gmail and Outlook files and checks
 * that the editor asks for nothing but their credential. Run by test/ui/run.sh (also on its own:
 * `UI_ONLY=mailbox bash test/ui/run.sh`).
 *
 *   NODE24, N8N_BIN                   the n8n runtime (scripts/ensure-runtime.sh)
 *   UI_CHROMIUM, UI_SCREENSHOTS_DIR, UI_WAIT_MS, UI_ONLY, UI_SUMMARY_FILE   as for editor.js
 *   UI_WORK                           an empty folder for this run (removed by the caller)
 */

const { spawn, execFileSync } = require('child_process');
const tls = require('tls');
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

const ROOT = path.resolve(__dirname, '../..');
const WORK = process.env.UI_WORK || fs.mkdtempSync(path.join(os.tmpdir(), 'docex-ui-own-'));
const PACKAGE = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const TARBALL = `${PACKAGE.name}-${PACKAGE.version}.tgz`;
const IMAP_FILE = path.join(ROOT, 'examples', 'email-to-crm-imap.json');
const OTHER_FILES = ['email-to-crm-gmail.json', 'email-to-crm-outlook.json'];
/** The port the examples' CRM step and the README's emulator use. */
const EMULATOR_PORT = 8790;
/** IMAP over TLS on its usual port: the IMAP credential's defaults (993, SSL/TLS on) are kept. */
const MAILBOX_PORT = 993;
const MAILBOX_USER = 'invoices';
const MAILBOX_PASSWORD = 'mailbox-secret-1';
const MAX_ACTIONS = 25;
/** A person's minutes from the Installation section to the records, at most (the model in docs/first-hour.md). */
const MAX_MINUTES = 8;
/** What a person spends per action, and the reading the README asks for, in the time estimate. */
const SECONDS_PER_ACTION = 5;
const TITLE = 'mailbox to CRM on a fresh n8n';

const log = (...a) => console.log('[own]', ...a);

function listening(port) {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.on('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.on('error', () => resolve(false));
	});
}

/**
 * The machine's part, timed: the tarball, the README's install commands in a fresh HOME, the
 * mailbox, the README's emulator command, and n8n started on that HOME with its owner account.
 */
async function setUp(timings) {
	const { setupOwner, waitReady } = require('../../scripts/n8n-local.js');
	const time = async (name, fn) => {
		const started = Date.now();
		const result = await fn();
		timings[name] = (Date.now() - started) / 1000;
		return result;
	};
	if (!process.env.NODE24 || !process.env.N8N_BIN)
		throw new Error('NODE24 and N8N_BIN are required (eval "$(bash scripts/ensure-runtime.sh)")');
	if (await listening(EMULATOR_PORT))
		throw new Error(
			`port ${EMULATOR_PORT} is taken: the README's emulator and the examples' CRM step need it`,
		);
	const home = path.join(WORK, 'home');
	fs.mkdirSync(home, { recursive: true });
	// the README's Installation from a clone: its tarball command as written, in the clone (no
	// npm ci there; npm offline: TypeScript comes from npm's cache), then its install block
	const clone = path.join(WORK, 'clone');
	await time('clone', () => execFileSync('git', ['clone', '-q', ROOT, clone]));
	const tarball = await time('tarball', () => {
		execFileSync('bash', ['-euo', 'pipefail', '-c', readmeBlock('<!-- build-tarball -->')], {
			cwd: clone,
			env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		return path.join(clone, TARBALL);
	});
	if (!fs.existsSync(tarball)) throw new Error(`the README's tarball command made no ${TARBALL}`);
	await time('install', () =>
		runReadmeInstall({ tarball, home, npmCache: path.join(WORK, 'npm-cache') }),
	);

	const mailbox = await time('mailbox', async () => {
		const port = MAILBOX_PORT;
		if (await listening(port)) throw new Error(`port ${port} is taken: the mailbox needs it`);
		const out = execFileSync(
			'bash',
			[
				path.join(__dirname, 'mailbox.sh'),
				'start',
				path.join(WORK, 'mailbox'),
				String(port),
				MAILBOX_USER,
				MAILBOX_PASSWORD,
			],
			{ encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
		);
		return Object.fromEntries(
			out
				.trim()
				.split('\n')
				.map((l) => l.split(/=(.*)/s).slice(0, 2)),
		);
	});

	// the README's command, in the clone, as a user runs it; the test pastes what it prints
	const emulatorLog = path.join(WORK, 'emulator.log');
	const emulator = startProcess(
		'bash',
		['-c', `cd '${clone}' && ${readmeBlock('<!-- run-emulator -->')}`],
		// as a user starts it: the emulator's own defaults (processing 3 s per document)
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
	const sink = `${printed.baseUrl}/_emulator/sink`;

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
		// the mailbox's certificate is from this run's CA, as a provider's is from a public one
		NODE_EXTRA_CA_CERTS: mailbox.MAILBOX_CA,
	};
	const n8nLog = path.join(WORK, 'n8n.log');
	const n8n = startProcess(process.env.NODE24, [process.env.N8N_BIN, 'start'], env, n8nLog);
	const owner = await time('n8n', async () => {
		await waitReady(`${base}/healthz/readiness`, 180000, () => n8n.alive);
		return setupOwner(base, path.join(WORK, 'owner.json'));
	});
	return { base, owner, mailbox, printed, sink, emulator, n8n, n8nLog, emulatorLog };
}

/** One email with `files` attached ({name, type, bytes}), appended to the mailbox's INBOX over IMAP. */
async function sendEmail(port, ca, files) {
	const boundary = 'docex-boundary-4f1c';
	const wrap = (b64) => b64.replace(/.{1,76}/g, '$&\r\n');
	const parts = [
		'From: Acme Supplies <billing@acme.example>',
		'To: Invoices <invoices@example.test>',
		'Subject: Invoices for March',
		`Date: ${new Date().toUTCString()}`,
		'Message-ID: <march-invoices@acme.example>',
		'MIME-Version: 1.0',
		`Content-Type: multipart/mixed; boundary="${boundary}"`,
		'',
		`--${boundary}`,
		'Content-Type: text/plain; charset=utf-8',
		'',
		'Hello, please find our two invoices for March attached.',
		...files.flatMap((f) => [
			`--${boundary}`,
			`Content-Type: ${f.type}; name="${f.name}"`,
			`Content-Disposition: attachment; filename="${f.name}"`,
			'Content-Transfer-Encoding: base64',
			'',
			wrap(f.bytes.toString('base64')).trimEnd(),
		]),
		`--${boundary}--`,
		'',
	];
	const message = Buffer.from(parts.join('\r\n'));
	const socket = tls.connect({ port, host: '127.0.0.1', ca: fs.readFileSync(ca) });
	let buffer = '';
	const waiters = [];
	socket.on('data', (d) => {
		buffer += d.toString();
		for (const w of [...waiters]) if (w.test(buffer)) w.resolve(buffer);
	});
	const expect = (pattern) =>
		new Promise((resolve, reject) => {
			const w = { test: (b) => pattern.test(b), resolve };
			if (w.test(buffer)) return resolve(buffer);
			waiters.push(w);
			setTimeout(() => reject(new Error(`IMAP: no ${pattern} in ${buffer.slice(-300)}`)), 10000);
		});
	await expect(/^\* OK/m);
	socket.write(`a1 LOGIN ${MAILBOX_USER} ${MAILBOX_PASSWORD}\r\n`);
	await expect(/^a1 OK/m);
	socket.write(`a2 APPEND INBOX {${message.length}}\r\n`);
	await expect(/^\+/m);
	socket.write(message);
	socket.write('\r\n');
	await expect(/^a2 OK/m);
	socket.write('a3 LOGOUT\r\n');
	await expect(/^a3 OK/m);
	socket.destroy();
}

async function getJson(url) {
	const res = await fetch(url);
	if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
	return res.json();
}

async function main() {
	const summaryFile = process.env.UI_SUMMARY_FILE;
	const writeSummary = (passed, failed) => {
		if (summaryFile) fs.writeFileSync(summaryFile, JSON.stringify({ passed, failed }));
		else console.log(`${passed} passed, ${failed} failed`);
	};
	const only = process.env.UI_ONLY ? new RegExp(process.env.UI_ONLY, 'i') : undefined;
	if (only && !only.test(TITLE)) {
		writeSummary(0, 0);
		return 0;
	}
	const timings = {};
	let env;
	let failed = 1;
	try {
		const started = Date.now();
		env = await setUp(timings);
		log(
			`set up in ${((Date.now() - started) / 1000).toFixed(0)} s: ${Object.entries(timings)
				.map(([k, v]) => `${k} ${v.toFixed(1)} s`)
				.join(', ')}`,
		);
		process.env.UI_EDITOR_URL = `${env.base}/`;
		process.env.UI_EMAIL = env.owner.email;
		process.env.UI_PASSWORD = env.owner.password;
		process.env.UI_EMULATOR_URL = env.printed.baseUrl;
		const { runBrowser } = require('./ownMailboxScenario.js');
		const results = await runBrowser({
			...env,
			timings,
			sendEmail: () =>
				sendEmail(Number(env.mailbox.MAILBOX_PORT), env.mailbox.MAILBOX_CA, EMAIL_FILES()),
			crmRecords: async () => (await getJson(env.sink)).calls.filter((c) => c.name === 'crm'),
			sinkCalls: async () => (await getJson(env.sink)).calls,
			IMAP_FILE,
			OTHER_FILES: OTHER_FILES.map((f) => path.join(ROOT, 'examples', f)),
			MAX_ACTIONS,
			MAX_MINUTES,
			SECONDS_PER_ACTION,
			TITLE,
			installCommands: readmeBlock('<!-- install-from-tarball -->')
				.split('\n')
				.filter((l) => l.trim()).length,
		});
		failed = results.failed;
		writeSummary(results.passed, results.failed);
	} catch (error) {
		console.log(`  FAIL  ${TITLE}: ${error.message}`);
		writeSummary(0, 1);
	} finally {
		if (env) {
			await stopProcess(env.n8n);
			await stopProcess(env.emulator);
			if (failed) {
				const shots = process.env.UI_SCREENSHOTS_DIR || path.join(ROOT, 'test/ui/out');
				fs.mkdirSync(shots, { recursive: true });
				for (const file of [env.n8nLog, env.emulatorLog, path.join(WORK, 'mailbox/dovecot.log')])
					if (fs.existsSync(file))
						fs.copyFileSync(file, path.join(shots, `own-${path.basename(file)}`));
			}
		}
		killAllSync();
		try {
			execFileSync('bash', [
				path.join(__dirname, 'mailbox.sh'),
				'stop',
				path.join(WORK, 'mailbox'),
			]);
		} catch {
			/* not started */
		}
	}
	return failed ? 1 : 0;
}

/** The email: two invoices and a text file. */
function EMAIL_FILES() {
	const { samplePdf } = require('../../emulator/lib/pdf.js');
	return [
		{
			name: 'INV-2024-0042.pdf',
			type: 'application/pdf',
			bytes: samplePdf('INVOICE INV-2024-0042 Acme Supplies GmbH Total 1,190.00 EUR'),
		},
		{
			name: 'INV-2024-0043.pdf',
			type: 'application/pdf',
			bytes: samplePdf('INVOICE INV-2024-0043 Acme Supplies GmbH Total 238.00 EUR'),
		},
		{
			name: 'notes.txt',
			type: 'text/plain',
			bytes: Buffer.from('Hello, please find our two invoices for March attached.\n'),
		},
	];
}

if (require.main === module)
	main().then(
		(code) => process.exit(code),
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
