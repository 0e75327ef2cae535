'use strict';

/**
 * The options of createEmulator: defaults and validation. Invalid options throw
 * a TypeError naming the option.
 */

const { DEFAULT_PROJECTS } = require('./fixtures.js');

const TERMINAL = new Set(['complete', 'failed']);

function fail(message) {
	throw new TypeError(`createEmulator: ${message}`);
}

function isStringList(v) {
	return Array.isArray(v) && v.every((s) => typeof s === 'string');
}

/** Fills in the defaults and checks every option; `log: true` becomes a stderr logger. */
function normalizeOptions(options = {}) {
	const o = {
		port: 0,
		apiKeys: ['vnd_test_key'],
		inactiveKeys: ['vnd_inactive_key'],
		processingMs: 3000,
		runningStatuses: ['queued', 'processing'],
		failMarker: 'EMULATOR_FAIL',
		timeScale: 1,
		projects: DEFAULT_PROJECTS,
		maxBodyBytes: 200 * 1024 * 1024,
		log: false,
	};
	for (const [key, value] of Object.entries(options || {})) {
		if (value !== undefined) o[key] = value;
	}
	if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) fail('port must be an integer 0..65535');
	if (!isStringList(o.apiKeys)) fail('apiKeys must be an array of strings');
	if (!isStringList(o.inactiveKeys)) fail('inactiveKeys must be an array of strings');
	if (typeof o.processingMs !== 'number' || !(o.processingMs >= 0)) fail('processingMs must be a number >= 0');
	if (!isStringList(o.runningStatuses) || o.runningStatuses.length === 0) {
		fail('runningStatuses must be a non-empty array of strings');
	}
	if (o.runningStatuses.some((s) => TERMINAL.has(s))) fail('runningStatuses must not contain complete or failed');
	if (typeof o.failMarker !== 'string' || o.failMarker.length === 0) fail('failMarker must be a non-empty string');
	if (typeof o.timeScale !== 'number' || !(o.timeScale > 0)) fail('timeScale must be a number > 0');
	if (!Number.isInteger(o.maxBodyBytes) || o.maxBodyBytes < 1) fail('maxBodyBytes must be a positive integer');
	if (o.log === true) o.log = (line) => console.error(`[emulator] ${line}`);
	if (o.log !== false && o.log !== null && typeof o.log !== 'function') fail('log must be a function or false');
	if (!Array.isArray(o.projects)) fail('projects must be an array');
	o.projects = o.projects.map((p) => {
		if (!p || typeof p.project_id !== 'string' || typeof p.name !== 'string' || !isStringList(p.document_types)) {
			fail('each project needs project_id, name and document_types (array of strings)');
		}
		return { project_id: p.project_id, name: p.name, document_types: [...p.document_types] };
	});
	return o;
}

module.exports = { normalizeOptions };
