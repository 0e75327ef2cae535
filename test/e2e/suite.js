#!/usr/bin/env node
'use strict';

/**
 * The end-to-end suite: the packed package installed as a community package in a real n8n, against
 * the emulator; the node:test files of cases/ in this order, in this process (lib/runner.js).
 * Normally run by run.sh.   E2E_KEEP=1: keep the work folder.   E2E_ONLY=<regexp>: some cases.
 * E2E_PROCESSING_MS: the emulator's processing time (1500).
 */

const path = require('node:path');

const { killAllSync } = require('../../harness/n8n.js');
const { runSuite } = require('./lib/runner.js');
const { teardown } = require('./lib/setup.js');

runSuite({
	cases: [
		'install',
		'examples',
		'inbox',
		'security',
		'retry-from-list',
		'binary-modes',
		'trigger',
		'editor',
		'credential',
		'trigger-refusal',
		'mcp',
		'secrets',
		'stop',
		'production',
		'production-reports',
		'trigger-replay',
	].map((name) => path.join(__dirname, 'cases', `${name}.test.js`)),
	only: process.env.E2E_ONLY,
	timeoutMs: 30 * 60 * 1000,
	killAll: killAllSync,
	teardown, // normally done by the after hook already
});
