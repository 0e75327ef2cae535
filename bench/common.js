'use strict';

/** Helpers of the benchmark's rows. */

/** One call to the admin API (`/_emulator/<route>`) of the emulator `emu`; its JSON answer. */
async function emulatorAdmin(emu, method, route, body) {
	const response = await fetch(`${emu.url}/_emulator/${route}`, {
		method,
		headers: body ? { 'Content-Type': 'application/json' } : undefined,
		body: body ? JSON.stringify(body) : undefined,
	});
	if (!response.ok) throw new Error(`emulator ${method} ${route}: ${response.status}`);
	return await response.json();
}

/** A positive number from the environment variable `name`, or `fallback` when it is not set. */
function positive(name, fallback) {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const value = Number(raw);
	if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got "${raw}")`);
	return value;
}

/** The median of `values` (numbers). */
function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

module.exports = { emulatorAdmin, median, positive };
