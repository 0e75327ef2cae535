#!/usr/bin/env node
'use strict';

/**
 * Helpers for running the package inside a local n8n (used by scripts/start.sh and the e2e suite).
 * Plain CommonJS, node: built-ins only, runs on Node 20 and 24.
 *
 *   node scripts/n8n-local.js wait-ready <url> [timeoutSeconds]
 *   node scripts/n8n-local.js install-package <tarball> <nodesDir>
 *   node scripts/n8n-local.js write-credential <file> <id> <name> <apiKey> <baseUrl> [<intakeKey>]
 *     (with <intakeKey>: also the production workflow's credential "Intake Key",
 *     header X-Intake-Key)
 *   node scripts/n8n-local.js setup-owner <n8nBaseUrl> <stateFile>
 * With Node 24 and NODE_PATH=<n8n>/node_modules (they open n8n's database with n8n's own sqlite3 or
 * pg module): <database> is the SQLite file, or `postgresdb` for the PostgreSQL database that the
 * DB_POSTGRESDB_* variables name (as n8n reads them):
 *   node scripts/n8n-local.js register-package <database> <packageDir>
 *   node scripts/n8n-local.js restore-webhooks <database> <emulatorUrl> <apiKey>
 */

const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const crypto = require('node:crypto');
const { execFileSync } = require('node:child_process');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `url` until it answers 200, or throws after `timeoutMs`. */
async function waitReady(url, timeoutMs = 120000, isAlive = () => true) {
	const deadline = Date.now() + timeoutMs;
	let last = '';
	while (Date.now() < deadline) {
		if (!isAlive()) throw new Error(`process serving ${url} exited before it was ready`);
		try {
			const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
			if (res.status === 200) return;
			last = `HTTP ${res.status}`;
		} catch (error) {
			last = error.cause?.code ?? error.message;
		}
		await sleep(500);
	}
	throw new Error(`${url} not ready after ${Math.round(timeoutMs / 1000)} s (${last})`);
}

function npm(args, cwd) {
	execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
		cwd,
		stdio: ['ignore', 'ignore', 'inherit'],
		env: { ...process.env, NODE_ENV: 'production' },
	});
}

/**
 * Installs a packed tarball into `<N8N_USER_FOLDER>/.n8n/nodes` the way n8n 2.x does for
 * Settings > Community Nodes (CommunityPackagesService.downloadPackage): unpack into
 * node_modules/<name>, drop dev/peer/optional dependencies from its package.json (n8n-workflow
 * then resolves to n8n's own copy), `npm install` its runtime dependencies inside the package
 * folder, and record it in the nodes folder's package.json.
 */
function installPackage(tarball, nodesDir) {
	tarball = path.resolve(tarball);
	fs.mkdirSync(nodesDir, { recursive: true });
	const nodesPackageJson = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(nodesPackageJson)) {
		fs.writeFileSync(
			nodesPackageJson,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
		);
	}
	const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-package-'));
	try {
		execFileSync('tar', ['-xzf', tarball, '-C', staging, '--strip-components=1']);
		const manifestPath = path.join(staging, 'package.json');
		const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
		for (const key of ['devDependencies', 'peerDependencies', 'optionalDependencies'])
			delete manifest[key];
		fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
		const target = path.join(nodesDir, 'node_modules', ...manifest.name.split('/'));
		fs.rmSync(target, { recursive: true, force: true });
		fs.mkdirSync(path.dirname(target), { recursive: true });
		fs.cpSync(staging, target, { recursive: true });
		if (manifest.dependencies && Object.keys(manifest.dependencies).length) {
			npm(
				[
					'install',
					'--audit=false',
					'--fund=false',
					'--bin-links=false',
					'--install-strategy=shallow',
					'--ignore-scripts=true',
					'--package-lock=false',
					'--loglevel=error',
				],
				target,
			);
		}
		const nodesManifest = JSON.parse(fs.readFileSync(nodesPackageJson, 'utf8'));
		nodesManifest.dependencies = {
			...nodesManifest.dependencies,
			[manifest.name]: manifest.version,
		};
		fs.writeFileSync(nodesPackageJson, JSON.stringify(nodesManifest, null, 2));
		return { name: manifest.name, version: manifest.version, dir: target };
	} finally {
		fs.rmSync(staging, { recursive: true, force: true });
	}
}

/**
 * n8n's database: the SQLite file, or with `postgresdb` the PostgreSQL database of the
 * DB_POSTGRESDB_* variables. SQL uses `?` placeholders and double-quoted identifiers (both
 * databases accept those; n8n's PostgreSQL columns are camelCase and must be quoted).
 */
async function openDatabase(database, { readOnly = false } = {}) {
	if (database === 'postgresdb') {
		const { Client } = require('pg');
		const env = process.env;
		const client = new Client({
			host: env.DB_POSTGRESDB_HOST || 'localhost',
			port: Number(env.DB_POSTGRESDB_PORT || 5432),
			database: env.DB_POSTGRESDB_DATABASE || 'n8n',
			user: env.DB_POSTGRESDB_USER || 'postgres',
			password: env.DB_POSTGRESDB_PASSWORD || undefined,
		});
		await client.connect();
		const schema = env.DB_POSTGRESDB_SCHEMA || 'public';
		await client.query(`SET search_path TO "${schema.replace(/"/g, '')}"`);
		const toPg = (sql) => {
			let n = 0;
			return sql.replace(/\?/g, () => `$${++n}`);
		};
		return {
			run: async (sql, params = []) => void (await client.query(toPg(sql), params)),
			all: async (sql, params = []) => (await client.query(toPg(sql), params)).rows,
			close: () => client.end(),
		};
	}
	const sqlite3 = require('sqlite3');
	const db = readOnly
		? new sqlite3.Database(database, sqlite3.OPEN_READONLY)
		: new sqlite3.Database(database);
	return {
		run: (sql, params = []) =>
			new Promise((resolve, reject) => db.run(sql, params, (e) => (e ? reject(e) : resolve()))),
		all: (sql, params = []) =>
			new Promise((resolve, reject) =>
				db.all(sql, params, (e, rows) => (e ? reject(e) : resolve(rows))),
			),
		close: () => new Promise((resolve) => db.close(() => resolve())),
	};
}

/** A timestamp both databases store in n8n's columns. */
const dbNow = () => new Date().toISOString().replace('T', ' ').replace('Z', '');

/**
 * Adds the installed_packages / installed_nodes rows n8n writes after an install from
 * Settings > Community Nodes, so the package is listed there. n8n loads the package from
 * disk without them. Needs Node 24 and NODE_PATH pointing at n8n's node_modules (sqlite3 or pg,
 * n8n-workflow).
 */
async function registerPackage(databaseFile, packageDir) {
	const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
	const nodes = (manifest.n8n?.nodes ?? []).map((file) => {
		const exported = require(path.join(packageDir, file));
		const NodeClass = Object.values(exported).find((value) => typeof value === 'function');
		const { description } = new NodeClass();
		const version = Array.isArray(description.version)
			? Math.max(...description.version)
			: (description.defaultVersion ?? description.version ?? 1);
		return {
			name: description.displayName,
			type: `${manifest.name}.${description.name}`,
			version,
		};
	});
	const db = await openDatabase(databaseFile);
	const run = db.run;
	try {
		await run('BEGIN');
		await run('DELETE FROM "installed_nodes" WHERE "package" = ?', [manifest.name]);
		await run('DELETE FROM "installed_packages" WHERE "packageName" = ?', [manifest.name]);
		await run(
			`INSERT INTO "installed_packages" ("packageName", "installedVersion", "authorName", "authorEmail", "createdAt", "updatedAt")
			 VALUES (?, ?, ?, ?, ?, ?)`,
			[
				manifest.name,
				manifest.version,
				manifest.author?.name ?? null,
				manifest.author?.email ?? null,
				dbNow(),
				dbNow(),
			],
		);
		for (const node of nodes) {
			await run(
				'INSERT INTO "installed_nodes" ("name", "type", "latestVersion", "package") VALUES (?, ?, ?, ?)',
				[node.name, node.type, node.version, manifest.name],
			);
		}
		await run('COMMIT');
	} catch (error) {
		await run('ROLLBACK').catch(() => {});
		throw error;
	} finally {
		await db.close();
	}
	return nodes;
}

/**
 * The emulator keeps webhook registrations in memory only, while a published Document Extraction
 * Trigger remembers its registration (URL, project, secret) in the workflow's static data and
 * does not register again. This replays those registrations into a freshly started emulator.
 * Needs Node 24 and NODE_PATH pointing at n8n's node_modules (sqlite3 or pg).
 */
async function restoreWebhooks(databaseFile, emulatorUrl, apiKey) {
	if (databaseFile !== 'postgresdb' && !fs.existsSync(databaseFile)) return [];
	const db = await openDatabase(databaseFile, { readOnly: true });
	const rows = await db
		.all('SELECT "id", "staticData" FROM "workflow_entity" WHERE "staticData" IS NOT NULL')
		.finally(() => db.close());
	const seen = new Set();
	const restored = [];
	for (const row of rows) {
		let staticData;
		try {
			staticData = typeof row.staticData === 'string' ? JSON.parse(row.staticData) : row.staticData;
		} catch {
			continue;
		}
		for (const [key, data] of Object.entries(staticData ?? {})) {
			if (!key.startsWith('node:') || !data || typeof data !== 'object') continue;
			const registrations = [
				data.registration,
				...(Array.isArray(data.retiredRegistrations) ? data.retiredRegistrations : []),
			];
			for (const r of registrations) {
				if (
					!r ||
					typeof r.url !== 'string' ||
					typeof r.projectId !== 'string' ||
					typeof r.secret !== 'string'
				)
					continue;
				if (seen.has(`${r.projectId} ${r.url}`)) continue;
				seen.add(`${r.projectId} ${r.url}`);
				const res = await postJson(
					`${emulatorUrl}/projects/${encodeURIComponent(r.projectId)}/webhooks`,
					{ url: r.url, events: ['task.completed'], secret: r.secret },
					{ authorization: `Bearer ${apiKey}` },
				);
				if (res.status >= 300)
					throw new Error(`re-registering ${r.url}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
				restored.push({ workflowId: row.id, url: r.url });
			}
		}
	}
	return restored;
}

/** Credential file in the format of `n8n import:credentials` (data is encrypted on import). */
function writeCredential(file, { id, name, apiKey, baseUrl, intakeKey }) {
	const credentials = [{ id, name, type: 'documentExtractionApi', data: { apiKey, baseUrl } }];
	if (intakeKey)
		credentials.push({
			id: 'DocExtrIntakeKey',
			name: 'Intake Key',
			type: 'documentExtractionIntakeApi',
			data: { secret: intakeKey },
		});
	fs.writeFileSync(file, JSON.stringify(credentials, null, 2));
}

function newPassword() {
	// n8n requires 8-64 characters with at least one digit and one uppercase letter
	return `Docex-${crypto.randomBytes(9).toString('base64url')}-7Q`;
}

async function postJson(url, body, headers = {}) {
	const res = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: JSON.stringify(body),
	});
	const text = await res.text();
	let json;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: res.status, json, text, headers: res.headers };
}

/** Logs in and returns the `n8n-auth` cookie header value. */
async function login(baseUrl, { email, password }) {
	const res = await postJson(`${baseUrl}/rest/login`, { emailOrLdapLoginId: email, password });
	if (res.status !== 200)
		throw new Error(`login as ${email} failed: HTTP ${res.status} ${res.text.slice(0, 200)}`);
	const cookie = res.headers
		.getSetCookie()
		.map((c) => c.split(';')[0])
		.find((c) => c.startsWith('n8n-auth='));
	if (!cookie) throw new Error('login answered without an n8n-auth cookie');
	return cookie;
}

/**
 * Creates the instance owner through POST /rest/owner/setup (what the editor's setup page
 * calls). The login is kept in `stateFile` so later runs can print it again.
 */
async function setupOwner(baseUrl, stateFile) {
	let owner;
	if (stateFile && fs.existsSync(stateFile)) owner = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
	if (!owner) {
		owner = {
			email: 'owner@example.com',
			password: newPassword(),
			firstName: 'Local',
			lastName: 'Owner',
		};
		if (stateFile) fs.writeFileSync(stateFile, JSON.stringify(owner, null, 2), { mode: 0o600 });
	}
	const res = await postJson(`${baseUrl}/rest/owner/setup`, owner);
	if (res.status === 200) return { ...owner, created: true };
	if (res.status === 400 && /already setup/i.test(res.json?.message ?? '')) {
		await login(baseUrl, owner); // proves the stored password still works
		return { ...owner, created: false };
	}
	throw new Error(`owner setup failed: HTTP ${res.status} ${res.text.slice(0, 300)}`);
}

module.exports = {
	waitReady,
	installPackage,
	registerPackage,
	restoreWebhooks,
	writeCredential,
	setupOwner,
	login,
	postJson,
};

async function main(argv) {
	const [command, ...args] = argv;
	switch (command) {
		case 'wait-ready':
			await waitReady(args[0], Number(args[1] ?? 120) * 1000);
			return;
		case 'install-package': {
			const installed = installPackage(args[0], args[1]);
			console.log(`${installed.name}@${installed.version} -> ${installed.dir}`);
			return;
		}
		case 'register-package': {
			const nodes = await registerPackage(args[0], args[1]);
			console.log(nodes.map((n) => n.type).join('\n'));
			return;
		}
		case 'restore-webhooks': {
			const restored = await restoreWebhooks(args[0], args[1], args[2]);
			for (const r of restored) console.log(`${r.workflowId} ${r.url}`);
			return;
		}
		case 'write-credential':
			writeCredential(args[0], {
				id: args[1],
				name: args[2],
				apiKey: args[3],
				baseUrl: args[4],
				intakeKey: args[5],
			});
			return;
		case 'setup-owner': {
			const owner = await setupOwner(args[0], args[1]);
			console.log(`OWNER_EMAIL=${owner.email}`);
			console.log(`OWNER_PASSWORD=${owner.password}`);
			console.log(`OWNER_CREATED=${owner.created}`);
			return;
		}
		default:
			throw new Error(`unknown command "${command ?? ''}"`);
	}
}

if (require.main === module) {
	main(process.argv.slice(2)).catch((error) => {
		console.error(`n8n-local: ${error.message}`);
		process.exit(1);
	});
}
