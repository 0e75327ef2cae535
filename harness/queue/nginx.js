'use strict';

/**
 * nginx (Debian's package) in front of several n8n webhook processes: round-robin, on
 * 127.0.0.1, its configuration (written by scripts/queue-services.sh nginx-conf, as for
 * `npm run start:queue`), logs and temporary files in a folder of ours, run in the foreground as
 * a tracked child (its own process group) so that stopping it stops its workers.
 * The access log names, for each request, the webhook process that got it ($upstream_addr)
 * and the request body (JSON-escaped), so that a test can tell where each copy of a delivery went.
 */

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const { waitReady } = require('../../scripts/n8n-local.js');
const { ROOT, freePort, startProcess, stopProcess } = require('../n8n.js');

const SERVICES = path.join(ROOT, 'scripts', 'queue-services.sh');

class NginxProxy {
	/** @param {{dir: string, upstreams: number[]}} o */
	constructor({ dir, upstreams }) {
		this.dir = dir;
		this.upstreams = upstreams;
		this.port = undefined;
		this.child = undefined;
	}

	get url() {
		return `http://127.0.0.1:${this.port}`;
	}

	async start() {
		this.port ??= await freePort();
		// writes the configuration and prints the command that runs nginx in the foreground
		const printed = execFileSync(
			'bash',
			[SERVICES, 'nginx-conf', this.dir, String(this.port), ...this.upstreams.map(String)],
			{ encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
		);
		const [command, ...args] = printed.trim().split('\n').pop().split(' ');
		this.child = startProcess(command, args, process.env, path.join(this.dir, 'nginx.out'));
		await waitReady(`${this.url}/healthz`, 30000, () => this.child.alive);
	}

	async stop() {
		await stopProcess(this.child, 10000);
	}

	/** The nginx process group, if it is still running; [] when gone. */
	leftovers() {
		if (!this.child) return [];
		try {
			process.kill(-this.child.pid, 0);
			return [`nginx process group ${this.child.pid}`];
		} catch (error) {
			return error.code === 'EPERM' ? [`nginx process group ${this.child.pid}`] : [];
		}
	}

	killSync() {
		if (!this.child) return;
		try {
			process.kill(-this.child.pid, 'SIGKILL');
		} catch {
			// gone
		}
	}

	/** The error log's lines (why nginx answered 502, for instance), oldest first. */
	errorLog() {
		const file = path.join(this.dir, 'error.log');
		if (!fs.existsSync(file)) return [];
		return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
	}

	/** The access log: [{upstream, status, uri, body}] in order. */
	accessLog() {
		const file = path.join(this.dir, 'access.log');
		if (!fs.existsSync(file)) return [];
		return fs
			.readFileSync(file, 'utf8')
			.split('\n')
			.filter(Boolean)
			.map((line) => JSON.parse(line));
	}
}

module.exports = { NginxProxy };
