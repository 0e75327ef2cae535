'use strict';

/**
 * An n8n queue-mode stack on this machine, for the queue suite and the benchmark:
 * PostgreSQL and Redis (scripts/queue-services.sh: loopback, free ports, a data folder of ours),
 * then `n8n start` (EXECUTIONS_MODE=queue), two `n8n worker` processes and one `n8n webhook`
 * process, all on one database, one Redis and one encryption key, each with its own
 * N8N_USER_FOLDER, HTTP port and task-runner broker port. Production webhooks are served by the
 * webhook process only (N8N_DISABLE_PRODUCTION_MAIN_PROCESS=true on main). startWebhookPool()
 * adds a second webhook process (`webhook2`) and nginx in front of both (round-robin, lib/nginx.js).
 *
 * Builds on harness/: process control (every child in its own process group, tracked),
 * the REST helpers (pointed at main through state.n8nPort) and the emulator client.
 *
 *   const stack = await startStack({ dir, binaryMode: 'database' | 'filesystem' });
 *   await stack.startN8nProcesses(); …; await stack.stop();
 */

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const { installPackage, waitReady } = require('../../scripts/n8n-local.js');
const {
	ROOT,
	N8N_BIN,
	N8N_DIR,
	freePort,
	startProcess,
	stopProcess,
	n8nCliOk,
	n8nEnv,
} = require('../n8n.js');
const { sleep } = require('../fixtures.js');
const state = require('../state.js');
const { NginxProxy } = require('./nginx.js');

const NODE24 = process.env.NODE24 || process.execPath;
const SERVICES = path.join(ROOT, 'scripts', 'queue-services.sh');
const ENCRYPTION_KEY = 'queue-document-extraction-0123456789abcdef';
const WORKER_CONCURRENCY = Number(process.env.QUEUE_WORKER_CONCURRENCY || 5);

/** Parses the KEY=value lines queue-services.sh prints. */
function parseAssignments(text) {
	const env = {};
	for (const line of text.split('\n')) {
		const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
		if (m) env[m[1]] = m[2];
	}
	return env;
}

function isAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

function groupAlive(pgid) {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

class QueueStack {
	/**
	 * @param {object} o
	 * @param {string} o.dir           work folder (services, user folders, logs)
	 * @param {string} [o.binaryMode]  unset: n8n's default in queue mode (database); or 'filesystem'
	 *                                 (then N8N_STORAGE_PATH is one shared folder)
	 * @param {boolean} [o.offload]    OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS on main (default true)
	 * @param {object} [o.env]         more environment for every n8n process
	 */
	constructor({ dir, binaryMode, offload = true, env = {} }) {
		this.dir = dir;
		this.binaryMode = binaryMode;
		this.offload = offload;
		this.extraEnv = env;
		this.services = undefined; // DB_* and QUEUE_BULL_REDIS_* assignments
		this.processes = {}; // name -> { child, env, logFile, logs: [] }
		this.pids = new Set(); // every process group started (n8n processes)
		this.nodesDir = path.join(dir, 'nodes');
		this.storagePath = path.join(dir, 'shared-storage');
		this.ports = {};
		this.logIndex = 0;
		this.nginx = undefined; // NginxProxy in front of the webhook processes, once started
	}

	// ------------------------------------------------------------- services

	startServices() {
		// PostgreSQL runs as `postgres`, which must be able to pass through the work folder
		fs.chmodSync(this.dir, 0o711);
		const out = execFileSync('bash', [SERVICES, 'start', path.join(this.dir, 'services')], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		this.services = parseAssignments(out);
		if (!this.services.DB_POSTGRESDB_PORT || !this.services.QUEUE_BULL_REDIS_PORT) {
			throw new Error(`queue-services.sh printed no DB/Redis settings:\n${out}`);
		}
	}

	/** Stops PostgreSQL and Redis (synchronous: usable on exit). Never throws. */
	stopServicesSync() {
		if (!this.services) return;
		try {
			execFileSync('bash', [SERVICES, 'stop', path.join(this.dir, 'services')], {
				stdio: 'ignore',
				timeout: 60000,
			});
		} catch {
			// reported by leftovers()
		}
	}

	/** Installs the packed package once; every user folder links to it. */
	installPackage(tarball) {
		fs.mkdirSync(this.nodesDir, { recursive: true });
		return installPackage(tarball, this.nodesDir);
	}

	// -------------------------------------------------------- environments

	/** What every n8n process shares: queue mode, one database, one Redis, one key, one webhook URL. */
	commonEnv() {
		const env = {
			...this.services,
			EXECUTIONS_MODE: 'queue',
			N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
			N8N_WEBHOOK_URL: `http://127.0.0.1:${this.ports.webhook}/`,
			N8N_EDITOR_BASE_URL: `http://127.0.0.1:${this.ports.main}/`,
			N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
			N8N_DYNAMIC_BANNERS_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_VERIFIED_PACKAGES_ENABLED: 'false',
			N8N_REINSTALL_MISSING_PACKAGES: 'false',
			N8N_AI_GATEWAY_ENABLED: 'false',
			N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '60',
			...this.extraEnv,
		};
		if (this.binaryMode) env.N8N_DEFAULT_BINARY_DATA_MODE = this.binaryMode;
		if (this.binaryMode === 'filesystem') env.N8N_STORAGE_PATH = this.storagePath;
		return env;
	}

	/** A user folder of its own for one process, its nodes folder linked to the installed package. */
	userFolder(name) {
		const folder = path.join(this.dir, name);
		const dotN8n = path.join(folder, '.n8n');
		fs.mkdirSync(dotN8n, { recursive: true });
		const link = path.join(dotN8n, 'nodes');
		if (!fs.existsSync(link)) fs.symlinkSync(this.nodesDir, link, 'dir');
		return folder;
	}

	async envFor(name) {
		const common = this.commonEnv();
		const own = { N8N_USER_FOLDER: this.userFolder(name) };
		if (name === 'main') {
			Object.assign(own, {
				N8N_PORT: String(this.ports.main),
				N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
			});
			if (this.offload) own.OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS = 'true';
		} else if (name.startsWith('webhook')) {
			this.ports[name] ??= await freePort();
			own.N8N_PORT = String(this.ports[name]);
		} else {
			this.ports[name] ??= await freePort();
			Object.assign(own, {
				N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(this.ports[name]),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				// a port of its own even though the worker serves no UI
				N8N_PORT: String(await freePort()),
			});
		}
		return { ...common, ...own };
	}

	/** `n8n <args>` run to completion with main's environment (imports, before main starts). */
	async cli(args) {
		return await n8nCliOk(args, await this.envFor('main'));
	}

	// ------------------------------------------------------- n8n processes

	async allocatePorts() {
		this.ports.main ??= await freePort();
		this.ports.webhook ??= await freePort();
		state.n8nPort = this.ports.main;
	}

	readyUrl(name) {
		if (name === 'main') return `http://127.0.0.1:${this.ports.main}/healthz/readiness`;
		if (name === 'webhook') return `http://127.0.0.1:${this.ports.webhook}/healthz/readiness`;
		return `http://127.0.0.1:${this.ports[name]}/healthz/readiness`;
	}

	/** Starts one n8n process (`main`, `webhook`, `worker1`, `worker2`) and waits until it is ready. */
	async startProcess(name) {
		const env = await n8nEnv(await this.envFor(name));
		const command =
			name === 'main'
				? ['start']
				: name.startsWith('webhook')
					? ['webhook']
					: ['worker', `--concurrency=${WORKER_CONCURRENCY}`];
		const logFile = path.join(this.dir, `${name}-${++this.logIndex}.log`);
		const child = startProcess(NODE24, [N8N_BIN, ...command], env, logFile);
		this.pids.add(child.pid);
		const entry = (this.processes[name] ??= { logs: [] });
		Object.assign(entry, { child, env, logFile });
		entry.logs.push(logFile);
		try {
			await waitReady(this.readyUrl(name), 180000, () => child.alive);
		} catch (error) {
			throw new Error(`${name}: ${error.message}\n${this.tail(name)}`);
		}
	}

	tail(name, chars = 3000) {
		const p = this.processes[name];
		return p ? fs.readFileSync(p.logFile, 'utf8').slice(-chars) : '';
	}

	/** Everything the process `name` logged, over all its starts. */
	log(name) {
		const p = this.processes[name];
		return p ? p.logs.map((f) => fs.readFileSync(f, 'utf8')).join('\n') : '';
	}

	/** Main first (it runs the migrations and must be ready), then the workers and the webhook process. */
	async startN8nProcesses() {
		await this.startProcess('main');
		await Promise.all([
			this.startProcess('worker1'),
			this.startProcess('worker2'),
			this.startProcess('webhook'),
		]);
		state.cookie = undefined;
	}

	/** SIGTERM (a worker drains its running jobs first), SIGKILL after `timeoutMs`. */
	async stopProcess(name, timeoutMs = 90000) {
		const p = this.processes[name];
		if (p?.child) await stopProcess(p.child, timeoutMs);
	}

	async stopN8nProcesses() {
		// the proxy, the webhook processes and main first: nothing new is enqueued while the workers drain
		if (this.nginx) await this.nginx.stop();
		await Promise.all([
			this.stopProcess('webhook'),
			this.stopProcess('webhook2'),
			this.stopProcess('main'),
		]);
		await Promise.all([this.stopProcess('worker1'), this.stopProcess('worker2')]);
	}

	/**
	 * A second webhook process (`webhook2`) and nginx in front of both webhook processes,
	 * round-robin on 127.0.0.1; returns the NginxProxy (its `url` is the public webhook address).
	 */
	async startWebhookPool() {
		if (!this.processes.webhook2?.child?.alive) await this.startProcess('webhook2');
		if (!this.nginx) {
			this.nginx = new NginxProxy({
				dir: path.join(this.dir, 'nginx'),
				upstreams: [this.ports.webhook, this.ports.webhook2],
			});
		}
		if (!this.nginx.child?.alive) await this.nginx.start();
		return this.nginx;
	}

	/**
	 * For comparison: one `n8n start` in regular mode on the same database (it serves the
	 * production webhooks and runs every execution itself); stop it with stopN8nProcesses().
	 */
	async startRegular() {
		await this.stopN8nProcesses();
		const env = await n8nEnv({
			...(await this.envFor('main')),
			EXECUTIONS_MODE: 'regular',
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'false',
			OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'false',
			N8N_WEBHOOK_URL: `http://127.0.0.1:${this.ports.main}/`,
		});
		const logFile = path.join(this.dir, `main-regular-${++this.logIndex}.log`);
		const child = startProcess(NODE24, [N8N_BIN, 'start'], env, logFile);
		this.pids.add(child.pid);
		const entry = (this.processes.main ??= { logs: [] });
		Object.assign(entry, { child, env, logFile });
		entry.logs.push(logFile);
		await waitReady(this.readyUrl('main'), 180000, () => child.alive);
		state.cookie = undefined;
	}

	/** Restarts the n8n processes with other settings (same database, Redis and package). */
	async restartN8n({ binaryMode }) {
		await this.stopN8nProcesses();
		this.binaryMode = binaryMode;
		await this.startN8nProcesses();
	}

	// --------------------------------------------------------- inspection

	/** A query on n8n's PostgreSQL database, through n8n's own `pg` module. */
	async query(sql, params = []) {
		const { Client } = require(path.join(N8N_DIR, 'node_modules', 'pg'));
		const s = this.services;
		const client = new Client({
			host: s.DB_POSTGRESDB_HOST,
			port: Number(s.DB_POSTGRESDB_PORT),
			database: s.DB_POSTGRESDB_DATABASE,
			user: s.DB_POSTGRESDB_USER,
		});
		await client.connect();
		try {
			return (await client.query(sql, params)).rows;
		} finally {
			await client.end();
		}
	}

	/** Which processes logged "Worker started execution <id>" (by name). */
	ranOn(executionId) {
		const re = new RegExp(`Worker started execution ${executionId} \\(job`);
		return Object.keys(this.processes).filter((name) => re.test(this.log(name)));
	}

	/** Processes (n8n process groups, PostgreSQL, Redis) still running; [] when all are gone. */
	leftovers() {
		const left = [];
		for (const pgid of this.pids) if (groupAlive(pgid)) left.push(`n8n process group ${pgid}`);
		const pgPidFile = path.join(this.dir, 'services', 'postgres', 'data', 'postmaster.pid');
		if (fs.existsSync(pgPidFile)) {
			const pid = Number(fs.readFileSync(pgPidFile, 'utf8').split('\n')[0]);
			if (pid && isAlive(pid)) left.push(`PostgreSQL ${pid}`);
		}
		const redisPidFile = path.join(this.dir, 'services', 'redis', 'redis.pid');
		if (fs.existsSync(redisPidFile)) {
			const pid = Number(fs.readFileSync(redisPidFile, 'utf8').trim());
			if (pid && isAlive(pid)) left.push(`Redis ${pid}`);
		}
		if (this.nginx) left.push(...this.nginx.leftovers());
		return left;
	}

	/** Stops the n8n processes, then PostgreSQL and Redis. Never throws. */
	async stop() {
		await this.stopN8nProcesses().catch(() => {});
		this.killSync();
		await sleep(200);
		this.stopServicesSync();
	}

	/** SIGKILL to every n8n process group (synchronous: usable on exit). */
	killSync() {
		if (this.nginx) this.nginx.killSync();
		for (const pgid of this.pids) {
			try {
				process.kill(-pgid, 'SIGKILL');
			} catch {
				// gone
			}
		}
	}
}

module.exports = { QueueStack, ENCRYPTION_KEY, WORKER_CONCURRENCY };
